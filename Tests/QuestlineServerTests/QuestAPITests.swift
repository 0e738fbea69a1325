import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import Testing

private typealias QuestBody = Components.Schemas.Quest
private typealias QuestBoard = Components.Schemas.QuestBoard
private typealias UsageResult = Components.Schemas.UsageResult
/// The bodies the contract describes inline.
private struct Balance: Decodable { let balance: Int }
private struct Ledger: Decodable {
    let balance: Int
    let entries: [Components.Schemas.LedgerEntry]
}

/// Family quests through the real router: a guardian, a child, another household, a stranger.
@Suite struct QuestAPITests {
    typealias Family = HouseholdAPITests.Family

    /// The household fixture (guardian, child, another household's guardian, a stranger), with
    /// the child's apps: two learning apps and a reward app.
    func family(_ app: Harness) async throws -> Family {
        let f = try await HouseholdAPITests().family(app)
        for (token, body) in [
            ("khan", #"{"name":"Khan Kids","icon":"📘","role":"learning","pointsPerMinute":2}"#),
            ("duo", #"{"name":"Duolingo","role":"learning"}"#),
            ("game", #"{"name":"Minecraft","icon":"🎮","role":"reward"}"#),
        ] {
            let put = try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/\(token)", json: body, token: f.guardian)
            #expect(put.status == .ok, "\(put.text)")
        }
        return f
    }

    /// The household fixture with `dailyQuest` set for the child.
    func familyWithDailyQuest(_ app: Harness) async throws -> Family {
        let f = try await family(app)
        let created = try await app.send(
            .post, "/api/v1/children/\(f.childID)/quests", json: Self.dailyQuest, token: f.guardian)
        #expect(created.status == .created, "\(created.text)")
        return f
    }

    func usage(_ reports: [(id: String, app: String, start: String, seconds: Int)], zone: String = "Europe/Berlin")
        -> String
    {
        let items = reports.map {
            #"{"id":"\#($0.id)","appToken":"\#($0.app)","startedAt":"\#($0.start)","durationSeconds":\#($0.seconds),"timeZone":"\#(zone)"}"#
        }
        return #"{"reports":[\#(items.joined(separator: ","))]}"#
    }

    static let dailyQuest = #"""
        {"title":"Learn 30 minutes","goalType":"dailyMinutes","target":30,"bonusPercent":10,
         "rewardApps":[{"appToken":"game","minutes":20}],"weekdays":[1,2,3,4,5,6,7]}
        """#

    /// The guardian's console reads the whole household at once (not a board per child), and
    /// says what the child's board says: points, quests done in the period each shows, the
    /// current streak and the apps, with a completed quest, one in progress and a paused one.
    @Test func theConsoleSaysWhatTheBoardSays() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await familyWithDailyQuest(app)
            for title in ["Second", "Paused"] {
                let created = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/quests",
                    json: Self.dailyQuest.replacingOccurrences(of: "Learn 30 minutes", with: title)
                        .replacingOccurrences(of: "\"target\":30", with: "\"target\":600"),
                    token: f.guardian)
                #expect(created.status == .created, "\(created.text)")
                if title == "Paused" {
                    let paused = try await app.send(
                        .put, "/api/v1/quests/\(try created.string("id"))/status", json: #"{"status":"paused"}"#,
                        token: f.guardian)
                    #expect(paused.status == .ok, "\(paused.text)")
                }
            }
            let sent = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("c1", "khan", "2026-05-07T09:00:00Z", 1800)]), token: f.child)
            #expect(sent.status == .ok, "\(sent.text)")
            let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(QuestBoard.self)
            let done = board.quests.filter { $0.state == .completed }.count
            #expect(done == 1 && board.quests.count == 3 && board.currentStreak == 1 && board.balance > 0)
            let page = try await app.send(
                .get, "/quests/family", headers: [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"])
            #expect(page.status == .ok)
            #expect(page.text.contains("\(board.balance) points"), "\(page.text)")
            #expect(
                page.text.contains(
                    "\(done) of \(board.quests.count) quests done · \(board.currentStreak)-day streak · \(board.apps.count) apps"
                ),
                "\(page.text)")
        }
    }

    @Test func usageDrivesAQuestToCompletionOnceWithBonusAndUnlock() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await family(app)
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: Self.dailyQuest, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let questID = try created.string("id")
            #expect(try created.decode(QuestBody.self).progress.text == "0 / 30 minutes")

            // 20 minutes, then an overlapping report: the union is 09:00-09:30 UTC = 30 minutes.
            let first = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("r1", "khan", "2026-05-07T09:00:00Z", 1200)]), token: f.child)
            #expect(first.status == .ok, "\(first.text)")
            #expect(try first.decode(UsageResult.self).pointsEarned == 40)
            let quest = try await app.send(.get, "/api/v1/quests/\(questID)", token: f.guardian)
            // The old address answers the same through API version 1.
            let alias = try await app.send(.get, "/api/v1/challenges/\(questID)", token: f.guardian)
            #expect(alias.status == .ok)
            #expect(try alias.decode(QuestBody.self).id == questID)
            #expect(try quest.decode(QuestBody.self).progress.value == 20)

            let second = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([
                    ("r2", "khan", "2026-05-07T09:10:00Z", 1200), ("r1", "khan", "2026-05-07T09:00:00Z", 1200),
                ]),
                token: f.child)
            let secondResult = try second.decode(UsageResult.self)
            #expect(secondResult.accepted == 1 && secondResult.duplicates == 1, "\(second.text)")
            #expect(secondResult.pointsEarned == 20)
            #expect(secondResult.completed.map(\.bonus) == [6])  // 10% of 60 points
            #expect(secondResult.badges.contains("first-quest"))

            // The same again, late, and in another batch: nothing changes.
            let again = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("r2", "khan", "2026-05-07T09:10:00Z", 1200)]), token: f.child)
            let againResult = try again.decode(UsageResult.self)
            #expect(againResult.accepted == 0 && againResult.completed.isEmpty)
            // A third report inside the same minutes: no new minutes, no second completion.
            let inside = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("r3", "khan", "2026-05-07T09:05:00Z", 600)]), token: f.child)
            let insideResult = try inside.decode(UsageResult.self)
            #expect(insideResult.pointsEarned == 0 && insideResult.completed.isEmpty)

            // Parent and child see the same figures.
            let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
            let guardianBoard = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
            #expect(board.text == guardianBoard.text)
            let boardBody = try board.decode(QuestBoard.self)
            #expect(boardBody.balance == 66)
            #expect(boardBody.quests.first?.state == .completed)
            #expect(boardBody.quests.first?.progress.text == "30 / 30 minutes")

            // The child's device reads its unlock: 20 minutes of the game until local midnight.
            let grants = try await app.send(.get, "/api/v1/children/\(f.childID)/grants", token: f.child)
            let grant = try grants.decode([Components.Schemas.Grant].self).first
            #expect(grant?.appToken == "game" && grant?.minutesLeft == 20, "\(grants.text)")
            #expect(grant?.expiresAt == (try Date("2026-05-07T22:00:00Z", strategy: .iso8601)))  // midnight in Berlin
            // Playing the game uses the grant up.
            app.clock.advance(by: 1800)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("g1", "game", "2026-05-07T10:05:00Z", 900)]), token: f.child)
            let left = try await app.send(.get, "/api/v1/children/\(f.childID)/grants", token: f.child)
            #expect(try left.decode([Components.Schemas.Grant].self).map(\.minutesLeft) == [5], "\(left.text)")

            // The next local day starts again at zero.
            app.clock.set(try Date("2026-05-07T22:30:00Z", strategy: .iso8601))
            let tomorrow = try await app.send(.get, "/api/v1/quests/\(questID)", token: f.child)
            let tomorrowQuest = try tomorrow.decode(QuestBody.self)
            #expect(tomorrowQuest.progress.value == 0)
            #expect(tomorrowQuest.state == .inProgress)
            let ledger = try await app.send(.get, "/api/v1/children/\(f.childID)/ledger", token: f.guardian)
            #expect(try ledger.decode(Ledger.self).entries.map(\.kind) == [.bonus, .earn, .earn])

            // The board's totals: yesterday's learning still counts as today's streak; a late
            // report for the day before joins it into a streak of two and adds its minutes.
            let next = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self)
            #expect(next.currentStreak == 1 && next.learningMinutes == 30)
            #expect(next.quests.first?.completions == 1)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("late", "duo", "2026-05-06T09:00:00Z", 600)]), token: f.child)
            let late = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self)
            #expect(late.currentStreak == 2 && late.learningMinutes == 40)
        }
    }

    @Test func weeklyQuestsResetOnMondayInTheChildsZone() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await family(app)
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Week","goalType":"weeklyMinutes","target":100}"#, token: f.guardian)
            let id = try created.string("id")
            // Sunday 10 May 23:50 Berlin (21:50 UTC), 12 minutes: 10 in this week, 2 on Monday.
            app.clock.set(try Date("2026-05-10T21:59:00Z", strategy: .iso8601))
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("w1", "duo", "2026-05-10T21:50:00Z", 720)]), token: f.child)
            #expect(
                try await app.send(.get, "/api/v1/quests/\(id)", token: f.child).decode(QuestBody.self).progress.value
                    == 10)
            app.clock.set(try Date("2026-05-10T22:30:00Z", strategy: .iso8601))  // Monday 00:30 in Berlin
            let monday = try await app.send(.get, "/api/v1/quests/\(id)", token: f.child).decode(QuestBody.self)
                .progress
            #expect(monday.value == 2 && monday.periodStart == "2026-05-11")
        }
    }

    @Test func fiftyConcurrentRedemptionsAgainstABalanceForTenNeverOverdraw() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let rules = try await app.send(
                .put, "/api/v1/households/\(f.household)/quest-rules",
                json: #"{"pointsPerMinute":5,"minMinutes":5,"maxMinutes":30}"#, token: f.guardian)
            #expect(rules.status == .ok, "\(rules.text)")
            let adjust = try await app.send(
                .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":250,"reason":"Starter points"}"#,
                token: f.guardian)
            #expect(try adjust.decode(Balance.self).balance == 250)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await app.send(
                            .post, "/api/v1/children/\(f.childID)/redemptions",
                            json: #"{"appToken":"game","minutes":5}"#,
                            token: f.child
                        ).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 10)
            #expect(statuses.filter { $0 == .conflict }.count == 40)
            let ledger = try await app.send(.get, "/api/v1/children/\(f.childID)/ledger?limit=200", token: f.child)
            let ledgerBody = try ledger.decode(Ledger.self)
            #expect(ledgerBody.balance == 0)
            #expect(ledgerBody.entries.count == 11 && ledgerBody.entries.reduce(0) { $0 + $1.points } == 0)
            let child = try #require(
                try await app.store.accounts.member(try MemberID.parse(f.childID, field: "childId")))
            #expect(try await app.store.quests.read { try await $0.points.sum(child.id) } == 0)
            let grants = try await app.send(.get, "/api/v1/children/\(f.childID)/grants", token: f.child)
            #expect(try grants.decode([Components.Schemas.Grant].self).count == 10)
            // Out of the household's limits, and guardians do not spend a child's points.
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/redemptions", json: #"{"appToken":"game","minutes":31}"#,
                token: f.child
            )
            .expectProblem(.badRequest, field: "minutes")
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/redemptions", json: #"{"appToken":"game","minutes":5}"#,
                token: f.guardian
            )
            .expectProblem(.forbidden)
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":-1,"reason":"Oops"}"#,
                token: f.guardian
            )
            .expectProblem(.conflict, field: "points")
        }
    }

    @Test func childrenCannotSetOrChangeQuestsAndOtherHouseholdsSeeNothing() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: Self.dailyQuest, token: f.guardian)
            let id = try created.string("id")
            // The child: reads, reports, redeems; never creates, edits, pauses, deletes or approves.
            try await app.send(.post, "/api/v1/children/\(f.childID)/quests", json: Self.dailyQuest, token: f.child)
                .expectProblem(.forbidden)
            try await app.send(.put, "/api/v1/quests/\(id)", json: Self.dailyQuest, token: f.child).expectProblem(
                .forbidden)
            try await app.send(.put, "/api/v1/quests/\(id)/status", json: #"{"status":"paused"}"#, token: f.child)
                .expectProblem(.forbidden)
            try await app.send(.delete, "/api/v1/quests/\(id)", token: f.child).expectProblem(.forbidden)
            try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/x", json: #"{"name":"X","role":"reward"}"#, token: f.child
            ).expectProblem(.forbidden)
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":1000,"reason":"Me"}"#,
                token: f.child
            )
            .expectProblem(.forbidden)
            try await app.send(
                .put, "/api/v1/households/\(f.household)/quest-rules",
                json: #"{"pointsPerMinute":1,"minMinutes":1,"maxMinutes":240}"#,
                token: f.child
            ).expectProblem(.forbidden)
            #expect(try await app.send(.get, "/api/v1/quests/\(id)", token: f.child).status == .ok)

            for token in [f.otherGuardian, f.stranger] {
                try await app.send(.get, "/api/v1/quests/\(id)", token: token).expectProblem(.notFound)
                try await app.send(.put, "/api/v1/quests/\(id)", json: Self.dailyQuest, token: token).expectProblem(
                    .notFound)
                try await app.send(.delete, "/api/v1/quests/\(id)", token: token).expectProblem(.notFound)
                try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: token).expectProblem(.notFound)
                try await app.send(.post, "/api/v1/children/\(f.childID)/quests", json: Self.dailyQuest, token: token)
                    .expectProblem(.notFound)
                try await app.send(.get, "/api/v1/children/\(f.childID)/apps", token: token).expectProblem(.notFound)
                try await app.send(.get, "/api/v1/children/\(f.childID)/grants", token: token).expectProblem(.notFound)
                try await app.send(.get, "/api/v1/children/\(f.childID)/ledger", token: token).expectProblem(.notFound)
                try await app.send(
                    .post, "/api/v1/children/\(f.childID)/usage",
                    json: usage([("x", "khan", "2026-05-07T09:00:00Z", 60)]), token: token
                )
                .expectProblem(.notFound)
                try await app.send(
                    .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":5,"reason":"Hi"}"#,
                    token: token
                )
                .expectProblem(.notFound)
                try await app.send(.get, "/api/v1/households/\(f.household)/quest-rules", token: token).expectProblem(
                    .notFound)
                try await app.send(.get, "/api/v1/households/\(f.household)/events", token: token).expectProblem(
                    .notFound)
            }
            try await app.send(.get, "/api/v1/children/\(f.childID)/quests").expectProblem(.unauthorized)
            // Quests are for children: a guardian has no board.
            let guardianID = try await app.send(.get, "/api/v1/me", token: f.guardian).string("id")
            try await app.send(.get, "/api/v1/children/\(guardianID)/quests", token: f.guardian).expectProblem(
                .notFound)
            // Deleting keeps what was paid; pausing stops completion.
            #expect(
                try await app.send(
                    .put, "/api/v1/quests/\(id)/status", json: #"{"status":"paused"}"#, token: f.guardian
                )
                .decode(QuestBody.self).state == .paused)
            let paused = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("p1", "khan", "2026-05-07T09:00:00Z", 1800)]), token: f.child)
            #expect(try paused.decode(UsageResult.self).completed.isEmpty)
            let resumed = try await app.send(
                .put, "/api/v1/quests/\(id)/status", json: #"{"status":"active"}"#, token: f.guardian)
            #expect(try resumed.decode(QuestBody.self).state == .completed, "\(resumed.text)")
            #expect(try await app.send(.delete, "/api/v1/quests/\(id)", token: f.guardian).status == .noContent)
            try await app.send(.get, "/api/v1/quests/\(id)", token: f.guardian).expectProblem(.notFound)
            #expect(
                try await app.send(.get, "/api/v1/children/\(f.childID)/ledger", token: f.guardian).decode(Ledger.self)
                    .balance == 66)
        }
    }

    @Test func badInputIsRefusedNamingTheFieldAndChangesNothing() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let path = "/api/v1/children/\(f.childID)/usage"
            try await app.send(
                .post, path,
                json: usage([("a", "khan", "2026-05-07T09:00:00Z", 60), ("b", "tiktok", "2026-05-07T09:00:00Z", 60)]),
                token: f.child
            ).expectProblem(.badRequest, field: "reports[1].appToken")
            try await app.send(.post, path, json: usage([("a", "khan", "2026-05-07T09:00:00Z", -60)]), token: f.child)
                .expectProblem(.badRequest, field: "reports[0].durationSeconds")
            try await app.send(.post, path, json: usage([("a", "khan", "2026-05-07T10:30:00Z", 60)]), token: f.child)
                .expectProblem(.badRequest, field: "reports[0].startedAt")
            try await app.send(
                .post, path, json: usage([("a", "khan", "2026-05-07T09:00:00Z", 60)], zone: "Mars/Base"), token: f.child
            )
            .expectProblem(.badRequest, field: "reports[0].timeZone")
            try await app.send(.post, path, json: #"{"reports":[]}"#, token: f.child).expectProblem(
                .badRequest, field: "reports")
            let child = try #require(
                try await app.store.accounts.member(try MemberID.parse(f.childID, field: "childId")))
            #expect(try await app.store.quests.read { try await $0.reportCount(child.id) } == 0)
            // A report id reused with other content is a conflict, and the batch is not half-written.
            _ = try await app.send(
                .post, path, json: usage([("a", "khan", "2026-05-07T09:00:00Z", 60)]), token: f.child)
            try await app.send(
                .post, path,
                json: usage([("b", "khan", "2026-05-07T08:00:00Z", 60), ("a", "khan", "2026-05-07T09:00:00Z", 120)]),
                token: f.child
            ).expectProblem(.conflict, field: "reports[1].id")
            #expect(try await app.store.quests.read { try await $0.reportCount(child.id) } == 1)

            let quests = "/api/v1/children/\(f.childID)/quests"
            let cases: [(String, String)] = [
                (#"{"title":"T","goalType":"dailyMinutes","target":5000}"#, "target"),
                (
                    #"{"title":"T","goalType":"dailyMinutes","target":30,"startDate":"2026-05-10","endDate":"2026-05-09"}"#,
                    "endDate"
                ),
                (#"{"title":"T","goalType":"dailyMinutes","target":30,"weekdays":[]}"#, "weekdays"),
                (#"{"title":"T","goalType":"specificApps","target":30,"learningApps":["tiktok"]}"#, "learningApps"),
                (
                    #"{"title":"T","goalType":"dailyMinutes","target":30,"rewardApps":[{"appToken":"khan","minutes":10}]}"#,
                    "rewardApps"
                ),
                (#"{"title":"T","goalType":"dailyMinutes","target":30,"bonusPercent":50}"#, "bonusPercent"),
                (#"{"title":"T","goalType":"timeWindow","target":30}"#, "window"),
                (#"{"title":"T","goalType":"fastest","target":30}"#, "goalType"),
                (#"{"title":"T","goalType":"dailyMinutes","target":30,"startDate":"2026-05-01"}"#, "startDate"),
                (#"{"title":"","goalType":"dailyMinutes","target":30}"#, "title"),
            ]
            for (body, field) in cases {
                try await app.send(.post, quests, json: body, token: f.guardian).expectProblem(
                    .badRequest, field: field)
            }
            #expect(try await app.send(.get, quests, token: f.guardian).decode(QuestBoard.self).quests.isEmpty)
            try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/new", json: #"{"name":"","role":"toy"}"#, token: f.guardian
            )
            .expectProblem(.badRequest)
            try await app.send(.delete, "/api/v1/children/\(f.childID)/apps/nope", token: f.guardian).expectProblem(
                .notFound)
        }
    }

    @Test func theWebPagesAskTheSamePolicy() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let id =
                try await app.send(
                    .post, "/api/v1/children/\(f.childID)/quests", json: Self.dailyQuest, token: f.guardian
                ).string("id")
            func cookie(_ token: String) -> HTTPFields { [.cookie: "ql_session=\(token)", .accept: "text/html"] }
            #expect(
                try await app.send(.get, "/quests/children/\(f.childID)", headers: cookie(f.guardian)).status == .ok)
            #expect(try await app.send(.get, "/quests/\(id)", headers: cookie(f.child)).status == .ok)
            for token in [f.otherGuardian, f.stranger] {
                for path in [
                    "/quests/children/\(f.childID)", "/quests/\(id)", "/quests/children/\(f.childID)/quests/new",
                    "/quests/\(id)/edit",
                ] {
                    #expect(try await app.send(.get, path, headers: cookie(token)).status == .notFound, "\(path)")
                }
                #expect(
                    try await app.send(.post, "/quests/\(id)/delete", headers: cookie(token), bodyText: "").status
                        == .notFound)
            }
            // A child's own board, but not the guardian's tools.
            #expect(
                try await app.send(.get, "/quests/children/\(f.childID)/quests/new", headers: cookie(f.child)).status
                    == .forbidden)
            var form = cookie(f.child)
            form[.contentType] = "application/x-www-form-urlencoded"
            #expect(
                try await app.send(
                    .post, "/quests/children/\(f.childID)/adjust", headers: form, bodyText: "points=500&reason=Me"
                ).status == .forbidden)
            #expect(
                try await app.send(.post, "/quests/\(id)/delete", headers: cookie(f.child), bodyText: "").status
                    == .forbidden)
            #expect(try await app.send(.get, "/api/v1/quests/\(id)", token: f.guardian).status == .ok)  // still there
        }
    }

    @Test func catalogsAndQuestListsAreCapped() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            for index in 3..<ShieldFeature.maxApps {  // the family already has 3 apps
                let put = try await app.send(
                    .put, "/api/v1/children/\(f.childID)/apps/app-\(index)",
                    json: #"{"name":"App \#(index)","role":"learning"}"#,
                    token: f.guardian)
                #expect(put.status == .ok)
            }
            try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/one-more", json: #"{"name":"One more","role":"learning"}"#,
                token: f.guardian
            )
            .expectProblem(.conflict, field: "token")
            // Changing an app that is there is still fine.
            #expect(
                try await app.send(
                    .put, "/api/v1/children/\(f.childID)/apps/app-3", json: #"{"name":"Renamed","role":"learning"}"#,
                    token: f.guardian
                ).status == .ok)
            #expect(
                (try JSONSerialization.jsonObject(
                    with: Data(try await app.send(.get, "/api/v1/children/\(f.childID)/apps", token: f.child).text.utf8)
                )
                    as? [Any])?.count == ShieldFeature.maxApps)
        }
    }

    @Test func everyGoalTypeCanBeBuiltWithRealApps() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let bodies = [
                #"{"title":"Daily","goalType":"dailyMinutes","target":30}"#,
                #"{"title":"Weekly","goalType":"weeklyMinutes","target":300}"#,
                #"{"title":"Khan","goalType":"specificApps","target":60,"period":"week","learningApps":["khan"]}"#,
                #"{"title":"Streak","goalType":"streak","target":7,"dailyMinimumMinutes":10}"#,
                #"{"title":"Points","goalType":"pointsTarget","target":500,"period":"challenge","endDate":"2026-05-31"}"#,
                #"{"title":"Diverse","goalType":"appDiversity","target":2,"period":"week"}"#,
                #"{"title":"Consistent","goalType":"dailyConsistency","target":5,"dailyMinimumMinutes":15}"#,
                #"{"title":"After school","goalType":"timeWindow","target":30,"windowStart":"16:00","windowEnd":"18:00","weekdays":[1,2,3,4,5]}"#,
                #"{"title":"Fast","goalType":"efficiency","target":40,"withinMinutes":15}"#,
            ]
            for body in bodies {
                let created = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/quests", json: body, token: f.guardian)
                #expect(created.status == .created, "\(body): \(created.text)")
            }
            // 20 minutes of Khan (2/min) at 16:30 Berlin: progress in every unit.
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: usage([("k", "khan", "2026-05-07T08:00:00Z", 1200), ("d", "duo", "2026-05-07T08:30:00Z", 300)]),
                token: f.child)
            let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
            let texts = try board.decode(QuestBoard.self).quests.map(\.progress.text)
            #expect(
                texts == [
                    "25 / 30 minutes", "25 / 300 minutes", "20 / 60 minutes", "1 / 7 days", "45 / 500 points",
                    "2 / 2 apps",
                    "1 / 5 days", "0 / 30 minutes", "30 / 40 points within 15 minutes",
                ], "\(texts)")
        }
    }
}
