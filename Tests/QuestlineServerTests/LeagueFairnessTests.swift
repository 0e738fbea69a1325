import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import Testing

private func at(_ iso: String) throws -> Date { try Date(iso, strategy: .iso8601) }

/// What the probes found in weekly leagues, on SQLite and PostgreSQL: points farmed by
/// repeated reads, friend-group codes guessed without a limit, divisions re-split mid-week.
@Suite struct LeagueFairnessTests {
    let leagueTests = LeagueAPITests()

    func division(_ app: Harness, _ token: String) async throws -> Components.Schemas.League.boardsPayloadPayload {
        try #require(try await leagueTests.league(app, token).boards.first { $0.kind == .division })
    }

    @Test func anArticleCountsOnceALocalDayHoweverOftenItIsRead() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            app.clock.set(try at("2026-05-01T08:00:00Z"))
            let (token, _) = try await app.signUp("reader@example.com", name: "Reader")
            #expect(try await leagueTests.join(app, token).status == .ok)
            app.clock.set(try at("2026-05-06T10:00:00Z"))
            // 500 reads of one article, each a new event: one article read that day.
            let reads = (0..<500).map {
                #"{"eventId":"e\#($0)","articleId":"Same","title":"Same","language":"en","at":"2026-05-06T09:00:00Z","timeZone":"Europe/Berlin"}"#
            }
            let batch = try await app.send(
                .post, "/api/v1/reading/reads/batch", json: #"{"reads":[\#(reads.joined(separator: ","))]}"#,
                token: token)
            #expect(batch.status == .ok, "\(batch.text)")
            #expect(try await division(app, token).rows.first?.points == LeagueRules.pointsPerArticle)
            // Another article that day counts; the same article the next day counts again.
            try await leagueTests.read(app, token, "other", "2026-05-06T09:10:00Z")
            app.clock.set(try at("2026-05-07T10:00:00Z"))
            try await leagueTests.read(app, token, "e0-next-day", "2026-05-07T09:00:00Z")
            let next = try await app.send(
                .post, "/api/v1/reading/reads",
                json:
                    #"{"eventId":"again","articleId":"Same","title":"Same","language":"en","at":"2026-05-07T09:30:00Z","timeZone":"Europe/Berlin"}"#,
                token: token)
            #expect(next.status == .ok)
            #expect(try await division(app, token).rows.first?.points == 4 * LeagueRules.pointsPerArticle)
        }
    }

    @Test func wrongFriendCodesLockJoiningPerMemberAndHousehold() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            let f = try await HouseholdAPITests().family(app)
            let groups = "/api/v1/me/league/friend-groups"
            let created = try await app.send(.post, groups, json: #"{"name":"Cousins"}"#, token: f.guardian)
            let code = try created.string("code")
            // A malformed code is not a guess.
            for _ in 0..<8 {
                try await app.send(.post, "\(groups)/join", json: #"{"code":"nope"}"#, token: f.otherGuardian)
                    .expectProblem(.badRequest, field: "code")
            }
            for n in 0..<5 {
                try await app.send(
                    .post, "\(groups)/join", json: #"{"code":"ZZZZ-ZZZ\#(n + 2)"}"#, token: f.otherGuardian
                ).expectProblem(.badRequest, field: "code")
            }
            // Locked now, even for the right code, with the time it ends.
            let locked = try await app.send(
                .post, "\(groups)/join", json: #"{"code":"\#(code)"}"#, token: f.otherGuardian)
            locked.expectProblem(.tooManyRequests)
            #expect(locked.headers[.retryAfter] == "300", "\(locked.headers)")
            #expect((locked.object["detail"] as? String)?.contains("locked until") == true, "\(locked.text)")
            // After the lock, the right code joins.
            app.clock.advance(by: 301)
            let joined = try await app.send(
                .post, "\(groups)/join", json: #"{"code":"\#(code)"}"#, token: f.otherGuardian)
            #expect(joined.status == .ok, "\(joined.text)")
            // The next wrong code locks again, twice as long.
            try await app.send(.post, "\(groups)/join", json: #"{"code":"ZZZZ-ZZZZ"}"#, token: f.otherGuardian)
                .expectProblem(.badRequest, field: "code")
            let again = try await app.send(
                .post, "\(groups)/join", json: #"{"code":"ZZZZ-ZZZZ"}"#, token: f.otherGuardian)
            again.expectProblem(.tooManyRequests)
            #expect(again.headers[.retryAfter] == "600", "\(again.headers)")
        }
    }

    @Test func aHouseholdSharesOneCodeBudgetAcrossItsGuardians() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            let f = try await HouseholdAPITests().family(app)
            let second = try await HouseholdAPITests().addGuardian(app, to: f)
            let join = "/api/v1/me/league/friend-groups/join"
            for n in 0..<3 {
                try await app.send(.post, join, json: #"{"code":"ZZZZ-ZZZ\#(n + 2)"}"#, token: f.guardian)
                    .expectProblem(.badRequest, field: "code")
            }
            for n in 0..<2 {
                try await app.send(.post, join, json: #"{"code":"YYYY-YYY\#(n + 2)"}"#, token: second)
                    .expectProblem(.badRequest, field: "code")
            }
            try await app.send(.post, join, json: #"{"code":"ZZZZ-ZZZZ"}"#, token: second)
                .expectProblem(.tooManyRequests)
            try await app.send(.post, join, json: #"{"code":"ZZZZ-ZZZZ"}"#, token: f.guardian)
                .expectProblem(.tooManyRequests)
        }
    }

    @Test func aDivisionKeepsItsPlayersWhenOneLeavesMidWeek() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            app.clock.set(try at("2026-05-01T08:00:00Z"))
            var tokens: [String] = []
            for n in 0..<34 {
                let (token, _) = try await app.signUp("p\(n)@example.com", name: "Player \(n)")
                #expect(try await leagueTests.join(app, token).status == .ok)
                tokens.append(token)
                app.clock.advance(by: 1)
            }
            // The week before closes: it draws this week's divisions, 17 and 17.
            app.clock.set(try at("2026-05-04T12:00:00Z"))
            try await leagueTests.leagues(app).closeDueWeeks()
            app.clock.set(try at("2026-05-06T10:00:00Z"))
            let last = try await division(app, tokens[33])
            #expect(last.rows.count == 17)
            let first = try await division(app, tokens[1])
            #expect(first.rows.count == 17 && first.rows.contains { $0.displayName == "Player 0" })
            #expect(try await leagueTests.league(app, tokens[33]).divisionDrawAt == nil)

            // Player 0 leaves: nobody changes division; their row leaves their board.
            #expect(
                try await app.send(.put, "/api/v1/me/league", json: #"{"joined":false}"#, token: tokens[0]).status
                    == .ok)
            #expect(Set(try await division(app, tokens[33]).rows.map(\.memberId)) == Set(last.rows.map(\.memberId)))
            let after = try await division(app, tokens[1])
            #expect(Set(after.rows.map(\.displayName)) == Set(first.rows.map(\.displayName)).subtracting(["Player 0"]))
            // Back in the week: their place again.
            #expect(try await leagueTests.join(app, tokens[0]).status == .ok)
            #expect(
                Set(try await division(app, tokens[1]).rows.map(\.displayName)) == Set(first.rows.map(\.displayName)))

            // The close of this week uses the drawn split and draws the next.
            app.clock.set(try at("2026-05-11T12:00:00Z"))
            #expect(try await leagueTests.leagues(app).closeDueWeeks().map(\.iso) == ["2026-05-04"])
            app.clock.set(try at("2026-05-13T10:00:00Z"))
            #expect(try await division(app, tokens[33]).rows.count == 17)
        }
    }

    @Test func beforeTheDrawTheBoardSaysWhenItIsDrawn() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            app.clock.set(try at("2026-05-01T08:00:00Z"))
            let (token, _) = try await app.signUp("early@example.com", name: "Early", timeZone: "Pacific/Kiritimati")
            #expect(try await leagueTests.join(app, token).status == .ok)
            // Sunday 20:00 UTC: Monday in Kiritimati, and the week before is still open.
            app.clock.set(try at("2026-05-03T20:00:00Z"))
            let league = try await leagueTests.league(app, token)
            #expect(league.week == "2026-05-04")
            #expect(league.divisionDrawAt == (try at("2026-05-04T12:00:00Z")))
            #expect(league.boards.contains { $0.kind == .division })
        }
    }
}
