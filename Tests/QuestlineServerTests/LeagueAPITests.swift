import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import SQLKit
import Testing

private func at(_ iso: String) throws -> Date { try Date(iso, strategy: .iso8601) }

/// Weekly leagues through the API and the pages, on SQLite and PostgreSQL (#39).
@Suite struct LeagueAPITests {
    typealias League = Components.Schemas.League

    func league(_ app: Harness, _ token: String) async throws -> League {
        try await app.send(.get, "/api/v1/me/league", token: token).decode(League.self)
    }

    func join(_ app: Harness, _ token: String, member: String? = nil) async throws -> Reply {
        let body = member.map { #"{"joined":true,"memberId":"\#($0)"}"# } ?? #"{"joined":true}"#
        return try await app.send(.put, "/api/v1/me/league", json: body, token: token)
    }

    func read(_ app: Harness, _ token: String, _ id: String, _ instant: String, zone: String = "Europe/Berlin")
        async throws
    {
        let reply = try await app.send(
            .post, "/api/v1/reading/reads",
            json:
                #"{"eventId":"\#(id)","articleId":"A\#(id)","title":"A\#(id)","language":"en","at":"\#(instant)","timeZone":"\#(zone)"}"#,
            token: token)
        #expect(reply.status == .ok, "\(reply.text)")
    }

    func leagues(_ app: Harness) -> LeaguesFeature {
        LeaguesFeature(store: app.store, configuration: FeatureConfiguration(clock: app.clock))
    }

    @Test func adultsPlayInDivisionsChildrenOnlyWithTheirHouseholdAndTheWeekClosesOnce() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 60 * 86_400) { app in
            let (admin, _) = try await app.signUpAdministrator("admin@example.com", name: "Admin")
            _ = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["league.closed"]}"#, token: admin)
            app.clock.set(try at("2026-05-01T08:00:00Z"))  // the Friday before the week of 4 May
            let f = try await HouseholdAPITests().family(app)
            #expect(try await join(app, f.guardian).status == .ok)
            #expect(try await join(app, f.guardian, member: f.childID).status == .ok, "a guardian for a child")
            try await join(app, f.child, member: f.guardianID).expectProblem(.forbidden)
            #expect(try await join(app, f.stranger).status == .ok)

            // Wednesday: Grace reads two articles; Sam reads one and plays the daily game.
            app.clock.set(try at("2026-05-06T10:00:00Z"))
            let (late, _) = try await app.signUp("late@example.com", name: "Lou")
            #expect(try await join(app, late).status == .ok)
            try await read(app, f.guardian, "g1", "2026-05-06T09:00:00Z")
            try await read(app, f.guardian, "g2", "2026-05-06T09:30:00Z")
            try await read(app, f.stranger, "s1", "2026-05-06T09:00:00Z")
            try await app.playWholeGame(token: f.stranger)

            let grace = try await league(app, f.guardian)
            #expect(grace.joined && grace.tier == .bronze && grace.week == "2026-05-04")
            #expect(grace.closesAt == (try at("2026-05-11T12:00:00Z")))
            let division = try #require(grace.boards.first { $0.kind == .division })
            #expect(
                division.rows.map(\.displayName) == ["Member", "Grace"] && division.rows.map(\.points) == [30, 20])
            #expect(division.rows.first { $0.me }?.displayName == "Grace")
            let household = try #require(grace.boards.first { $0.kind == .household })
            #expect(Set(household.rows.map(\.displayName)) == ["Grace", "Kid"])
            // The child: the household's board only, never a division.
            let kid = try await league(app, f.child)
            #expect(kid.joined && kid.boards.map(\.kind) == [.household] && !kid.divisionFromNextWeek)
            // Joined mid-week: a division from the next week.
            let lou = try await league(app, late)
            #expect(lou.divisionFromNextWeek && !lou.boards.contains { $0.kind == .division })

            // The close: not before the last zone has finished Sunday; once, whatever the passes.
            // The weeks before closed on Monday (a pass now makes them up); this one is open.
            #expect(try await leagues(app).closeDueWeeks().map(\.iso) == ["2026-04-20", "2026-04-27"])
            app.clock.set(try at("2026-05-11T11:59:59Z"))
            #expect(try await leagues(app).closeDueWeeks().isEmpty)
            app.clock.set(try at("2026-05-11T12:00:00Z"))
            #expect(try await leagues(app).closeDueWeeks() == [LocalDay(iso: "2026-05-04")!])
            #expect(try await leagues(app).closeDueWeeks().isEmpty)
            let closed = try await league(app, f.guardian)
            let last = try #require(closed.lastWeek)
            #expect(last.week == "2026-05-04")
            let inDivision = try #require(last.results.first { $0.board == "division" })
            #expect(inDivision.rank == 2 && inDivision.points == 20 && inDivision.movement == .stay)
            let events = try await app.store.database.withConnection { db in
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM outbox_events WHERE type = 'league.closed' AND body LIKE '%2026-05-04%'"
                ).first()?
                .decode(column: "n", as: Int.self) ?? 0
            }
            #expect(events == 3, "one per player on a board: Grace, Kid and Sam (Lou joined mid-week, alone)")

            // A late read of that Saturday changes nothing of the closed week.
            try await read(app, f.guardian, "g3", "2026-05-09T09:00:00Z")
            #expect(try await league(app, f.guardian).lastWeek?.results == last.results)
        }
    }

    @Test func theTopFifthMovesUpAtTheClose() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            app.clock.set(try at("2026-05-01T08:00:00Z"))
            var tokens: [String] = []
            for n in 0..<6 {
                let (token, _) = try await app.signUp("p\(n)@example.com", name: "Player \(n)")
                #expect(try await join(app, token).status == .ok)
                tokens.append(token)
            }
            app.clock.set(try at("2026-05-06T10:00:00Z"))
            for (n, token) in tokens.enumerated() {
                for k in 0..<n { try await read(app, token, "p\(n)-\(k)", "2026-05-06T0\(k):10:00Z") }
            }
            let before = try await league(app, tokens[5])
            #expect(before.boards.first { $0.kind == .division }?.rows.first?.movement == .up)
            app.clock.set(try at("2026-05-11T12:00:00Z"))
            try await leagues(app).closeDueWeeks()
            let top = try await league(app, tokens[5])
            #expect(top.tier == .silver && top.lastWeek?.results.first { $0.board == "division" }?.movement == .up)
            // Bronze cannot fall: the last stays.
            #expect(try await league(app, tokens[0]).tier == .bronze)
            #expect(try await league(app, tokens[3]).tier == .bronze)
        }
    }

    @Test func friendGroupsJoinHouseholdsByCodeAndChildrenNeverSeeTheCode() async throws {
        try await Harness.run(sessionLifetime: 60 * 86_400) { app in
            let f = try await HouseholdAPITests().family(app)
            let groups = "/api/v1/me/league/friend-groups"
            try await app.send(.post, groups, json: #"{"name":"Cousins"}"#, token: f.child).expectProblem(.forbidden)
            try await app.send(.post, groups, json: #"{"name":" "}"#, token: f.guardian)
                .expectProblem(.badRequest, field: "name")
            let created = try await app.send(.post, groups, json: #"{"name":"Cousins"}"#, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let code = try created.string("code")
            #expect(code.count == 9 && code.contains("-"))
            try await app.send(.post, "\(groups)/join", json: #"{"code":"ZZZZ-ZZZZ"}"#, token: f.otherGuardian)
                .expectProblem(.badRequest, field: "code")
            let typed = code.lowercased().replacingOccurrences(of: "-", with: "")
            let joined = try await app.send(
                .post, "\(groups)/join", json: #"{"code":"\#(typed)"}"#, token: f.otherGuardian)
            #expect(joined.status == .ok, "\(joined.text)")
            let households = try joined.decode(Components.Schemas.FriendGroup.self).households
            #expect(Set(households) == ["Hopper home", "Other"], "\(households)")

            for token in [f.guardian, f.otherGuardian, f.child] { #expect(try await join(app, token).status == .ok) }
            let kid = try await league(app, f.child)
            let friends = try #require(kid.boards.first { $0.kind == .friends })
            #expect(friends.title == "Cousins" && friends.rows.count == 3)
            #expect(kid.friendGroups.first?.code == nil, "a child never sees a code")
            #expect(try await league(app, f.guardian).friendGroups.first?.code == code)

            // Leaving: the group goes from the household; the last household out removes it.
            #expect(
                try await app.send(.delete, "\(groups)/\(try joined.string("id"))", token: f.otherGuardian).status
                    == .noContent)
            #expect(try await league(app, f.otherGuardian).friendGroups.isEmpty)
            try await app.send(.delete, "\(groups)/\(try joined.string("id"))", token: f.otherGuardian)
                .expectProblem(.notFound)
            #expect(try await league(app, f.child).boards.first { $0.kind == .friends }?.rows.count == 2)
        }
    }

    @Test func thePageJoinsAndShowsTheBoards() async throws {
        try await Harness.run { app in
            let f = try await HouseholdAPITests().family(app)
            func page(_ path: String, _ token: String) async throws -> Reply {
                try await app.send(.get, path, headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
            }
            var html = try await page("/league", f.guardian).text
            #expect(html.contains("Join the league") && html.contains("Start a friend group"))
            #expect(try await app.submit("/league", form: "joined=on", token: f.guardian).status == .seeOther)
            #expect(try await app.submit("/league", form: "joined=on", token: f.child).status == .seeOther)
            html = try await page("/league", f.guardian).text
            #expect(html.contains("Leave the league") && html.contains("Your household") && html.contains("Kid"))
            let refused = try await app.submit("/league/friend-groups/join", form: "code=nope", token: f.guardian)
            #expect(refused.status == .badRequest && refused.text.contains("A code is eight letters and digits"))
            let child = try await page("/league", f.child).text
            #expect(child.contains("Your household") && !child.contains("Start a friend group"))
        }
    }
}
