import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineStore
import SQLKit
import Testing

private func at(_ iso: String) throws -> Date { try Date(iso, strategy: .iso8601) }
private struct Ledger: Decodable {
    let balance: Int
    let entries: [Components.Schemas.LedgerEntry]
}

/// Co-op quests through the API and the pages, on SQLite and PostgreSQL (#39): one target for
/// two children, each paid once on their own points, late reports, concurrent reports, cancel.
@Suite struct CoopQuestAPITests {
    typealias Coop = Components.Schemas.CoopQuest
    typealias Family = HouseholdAPITests.Family

    /// The quest fixture's family plus a second child in Tokyo with Khan and the reward app.
    static func family(_ app: Harness) async throws -> (Family, second: (token: String, id: String)) {
        let f = try await QuestAPITests().family(app)
        let created = try await app.send(
            .post, "/api/v1/households/\(f.household)/children",
            json: #"{"username":"kid2","password":"kidpass123","displayName":"Kiri","timeZone":"Asia/Tokyo"}"#,
            token: f.guardian)
        #expect(created.status == .created, "\(created.text)")
        let id = try created.string("id")
        for (token, body) in [
            ("khan", #"{"name":"Khan Kids","icon":"📘","role":"learning","pointsPerMinute":3}"#),
            ("game", #"{"name":"Minecraft","icon":"🎮","role":"reward"}"#),
        ] {
            #expect(
                try await app.send(.put, "/api/v1/children/\(id)/apps/\(token)", json: body, token: f.guardian)
                    .status == .ok)
        }
        let login = try await app.send(
            .post, "/api/v1/auth/login", json: #"{"login":"kid2","password":"kidpass123"}"#)
        return (f, (try login.string("token"), id))
    }

    static func input(_ f: Family, second: String, target: Int = 60, week: String = "2026-05-04") -> String {
        #"{"title":"Learn together","goal":"minutes","target":\#(target),"weekStart":"\#(week)","children":["\#(f.childID)","\#(second)"],"bonusPercent":10,"rewardApps":[{"appToken":"game","minutes":20}]}"#
    }

    static func events(_ app: Harness, _ type: String) async throws -> [String] {
        try await app.store.database.withConnection { db in
            try await db.raw("SELECT member_id FROM outbox_events WHERE type = \(bind: type) ORDER BY member_id").all()
                .map { try $0.decode(column: "member_id", as: String.self) }
        }
    }

    fileprivate func ledger(_ app: Harness, _ child: String, _ token: String) async throws -> Ledger {
        try await app.send(.get, "/api/v1/children/\(child)/ledger?limit=100", token: token).decode(Ledger.self)
    }

    @Test func theTargetTogetherPaysEachContributorOnTheirOwnPointsOnceAndLateReportsTopUp() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (f, kiri) = try await Self.family(app)
            let (admin, _) = try await app.signUpAdministrator("admin@example.com", name: "Admin")
            _ = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["coop.completed","reward.unlocked"]}"#,
                token: admin)
            let quests = QuestAPITests()
            let list = "/api/v1/households/\(f.household)/coop-quests"

            // Refusals name their fields; a child sets nothing; another household sees nothing.
            let bad = try await app.send(
                .post, list,
                json:
                    #"{"title":"","goal":"days","target":99,"weekStart":"2026-05-05","children":["\#(f.childID)"],"bonusPercent":3}"#,
                token: f.guardian)
            bad.expectProblem(.badRequest)
            let named = Set(((bad.object["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(named == ["title", "target", "weekStart", "children", "bonusPercent"], "\(bad.text)")
            try await app.send(.post, list, json: Self.input(f, second: kiri.id), token: f.child)
                .expectProblem(.forbidden)
            try await app.send(.get, list, token: f.otherGuardian).expectProblem(.notFound)
            try await app.send(
                .post, "/api/v1/households/\(f.otherHousehold)/coop-quests", json: Self.input(f, second: kiri.id),
                token: f.otherGuardian
            ).expectProblem(.badRequest, field: "children")

            let created = try await app.send(
                .post, list, json: Self.input(f, second: kiri.id), token: f.guardian,
                headers: [HTTPField.Name("Idempotency-Key")!: "coop-1"])
            #expect(created.status == .created, "\(created.text)")
            var coop = try created.decode(Coop.self)
            #expect(coop.phase == .running && coop.value == 0 && coop.shares.map(\.displayName) == ["Kid", "Kiri"])
            // The same key again answers the same quest: one quest.
            let again = try await app.send(
                .post, list, json: Self.input(f, second: kiri.id), token: f.guardian,
                headers: [HTTPField.Name("Idempotency-Key")!: "coop-1"])
            #expect(try again.decode(Coop.self).id == coop.id)
            #expect(
                try await app.send(.get, list, token: f.child).decode(Components.Schemas.CoopBoard.self).quests.count
                    == 1)

            // Kid learns 40 minutes (80 points): not there yet.
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("a1", "khan", "2026-05-07T08:00:00Z", 2400)]), token: f.child)
            coop = try await app.send(.get, "/api/v1/coop-quests/\(coop.id)", token: kiri.token).decode(Coop.self)
            #expect(coop.value == 40 && coop.phase == .running && coop.shares.allSatisfy { $0.bonus == nil })

            // Kiri learns 30 minutes in Tokyo (90 points): 70 of 60, both paid, both unlock.
            _ = try await app.send(
                .post, "/api/v1/children/\(kiri.id)/usage",
                json: quests.usage([("b1", "khan", "2026-05-07T09:00:00Z", 1800)], zone: "Asia/Tokyo"),
                token: kiri.token)
            coop = try await app.send(.get, "/api/v1/coop-quests/\(coop.id)", token: f.guardian).decode(Coop.self)
            #expect(coop.value == 70 && coop.phase == .completed && coop.completedAt != nil)
            #expect(coop.shares.map(\.bonus) == [8, 9], "10% of each child's own points")
            for (child, token) in [(f.childID, f.child), (kiri.id, kiri.token)] {
                let grants = try await app.send(.get, "/api/v1/children/\(child)/grants", token: token)
                    .decode([Components.Schemas.Grant].self)
                #expect(grants.contains { $0.appToken == "game" && $0.minutes == 20 }, "\(grants)")
            }
            #expect(try await Self.events(app, "coop.completed") == [f.childID, kiri.id].sorted())

            // The same report again changes nothing; a late report of Kid's Tuesday tops the bonus up.
            _ = try await app.send(
                .post, "/api/v1/children/\(kiri.id)/usage",
                json: quests.usage([("b1", "khan", "2026-05-07T09:00:00Z", 1800)], zone: "Asia/Tokyo"),
                token: kiri.token)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("a0", "khan", "2026-05-05T08:00:00Z", 600)]), token: f.child)
            coop = try await app.send(.get, "/api/v1/coop-quests/\(coop.id)", token: f.guardian).decode(Coop.self)
            #expect(coop.value == 80 && coop.shares.map(\.bonus) == [10, 9])
            let kid = try await ledger(app, f.childID, f.guardian)
            let coopCredits = kid.entries.filter { $0.kind == .bonus && $0.reason.hasPrefix("Co-op quest") }
            #expect(coopCredits.map(\.points).sorted() == [2, 8], "\(kid.entries)")
            #expect(kid.balance == kid.entries.reduce(0) { $0 + $1.points })
            #expect(try await Self.events(app, "coop.completed").count == 2, "paid once each")
            let kiriLedger = try await ledger(app, kiri.id, kiri.token)
            #expect(kiriLedger.entries.filter { $0.reason.hasPrefix("Co-op quest") }.map(\.points) == [9])

            // Cancelled: a child may not; a guardian may; it stops counting.
            try await app.send(.post, "/api/v1/coop-quests/\(coop.id)/cancel", token: f.child)
                .expectProblem(.forbidden)
            let second = try await app.send(
                .post, list, json: Self.input(f, second: kiri.id, target: 500), token: f.guardian
            ).decode(Coop.self)
            let cancelled = try await app.send(
                .post, "/api/v1/coop-quests/\(second.id)/cancel", token: f.guardian
            ).decode(Coop.self)
            #expect(cancelled.phase == .cancelled && cancelled.status == .cancelled)
            try await app.send(.get, "/api/v1/coop-quests/\(second.id)", token: f.otherGuardian)
                .expectProblem(.notFound)
        }
    }

    /// Learning already done in the week counts when the quest is set; a quest of next week
    /// starts at zero; last week is refused.
    @Test func learningBeforeTheQuestCountsAndTheWeekIsThisOrTheNext() async throws {
        try await Harness.run { app in
            let (f, kiri) = try await Self.family(app)
            let quests = QuestAPITests()
            for (token, child, id) in [(f.child, f.childID, "p1"), (kiri.token, kiri.id, "p2")] {
                _ = try await app.send(
                    .post, "/api/v1/children/\(child)/usage",
                    json: quests.usage([(id, "khan", "2026-05-06T08:00:00Z", 1800)]), token: token)
            }
            let list = "/api/v1/households/\(f.household)/coop-quests"
            let now = try await app.send(.post, list, json: Self.input(f, second: kiri.id), token: f.guardian)
                .decode(Coop.self)
            #expect(now.phase == .completed && now.shares.map(\.bonus) == [6, 9], "\(now)")
            let next = try await app.send(
                .post, list, json: Self.input(f, second: kiri.id, week: "2026-05-11"), token: f.guardian
            ).decode(Coop.self)
            #expect(next.phase == .upcoming && next.value == 0)
            try await app.send(
                .post, list, json: Self.input(f, second: kiri.id, week: "2026-04-27"), token: f.guardian
            ).expectProblem(.badRequest, field: "weekStart")
        }
    }

    /// Both children report at once, many times: the quest completes once, each contributor is
    /// paid once, with the bonus on all their points, and every ledger adds up (PostgreSQL's
    /// row locks; SQLite's one writer).
    @Test func concurrentReportsOfBothChildrenPayEachOnce() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (f, kiri) = try await Self.family(app)
            let quests = QuestAPITests()
            let list = "/api/v1/households/\(f.household)/coop-quests"
            let coop = try await app.send(
                .post, list, json: Self.input(f, second: kiri.id, target: 90), token: f.guardian
            ).decode(Coop.self)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<12 {
                    for (token, child, zone) in [
                        (f.child, f.childID, "Europe/Berlin"), (kiri.token, kiri.id, "Asia/Tokyo"),
                    ] {
                        group.addTask {
                            let start = "2026-05-07T0\(n / 4):\(10 + (n % 4) * 10):00Z"
                            return try await app.send(
                                .post, "/api/v1/children/\(child)/usage",
                                json: quests.usage([("c\(n)", "khan", start, 300)], zone: zone), token: token
                            ).status.code
                        }
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            let done = try await app.send(.get, "/api/v1/coop-quests/\(coop.id)", token: f.guardian).decode(Coop.self)
            #expect(done.value == 120 && done.phase == .completed)
            #expect(done.shares.map(\.bonus) == [12, 18], "10% of 120 and of 180 points")
            for (child, token, bonus) in [(f.childID, f.child, 12), (kiri.id, kiri.token, 18)] {
                let ledger = try await ledger(app, child, token)
                #expect(
                    ledger.entries.filter { $0.reason.hasPrefix("Co-op quest") }.reduce(0) { $0 + $1.points } == bonus)
                #expect(ledger.balance == ledger.entries.reduce(0) { $0 + $1.points })
                let grants = try await app.send(.get, "/api/v1/children/\(child)/grants", token: token)
                    .decode([Components.Schemas.Grant].self)
                #expect(grants.filter { $0.appToken == "game" }.count == 1, "one unlock each")
            }
        }
    }

    /// The page: a guardian sets a quest (a refusal keeps what was typed), both boards show it,
    /// a child sees the shares but no form.
    @Test func thePageSetsShowsAndCancels() async throws {
        try await Harness.run { app in
            let (f, kiri) = try await Self.family(app)
            func page(_ path: String, _ token: String, form: String? = nil) async throws -> Reply {
                if let form { return try await app.submit(path, form: form, token: token) }
                return try await app.send(.get, path, headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
            }
            var reply = try await page("/quests/family/coop", f.guardian)
            #expect(reply.status == .ok && reply.text.contains("Set a co-op quest") && reply.text.contains("Kiri"))
            reply = try await page(
                "/quests/family/coop", f.guardian,
                form: "title=Reading+race&goal=minutes&target=60&week=2026-05-04&bonus=10&child=\(f.childID)")
            #expect(reply.status == .badRequest && reply.text.contains("Choose 2 to 8 different children."))
            #expect(reply.text.contains(#"value="Reading race""#), "the title is kept")
            reply = try await page(
                "/quests/family/coop", f.guardian,
                form:
                    "title=Reading+race&goal=minutes&target=60&week=2026-05-04&bonus=10&child=\(f.childID)&child=\(kiri.id)&app=game&unlockMinutes=15"
            )
            #expect(reply.status == .seeOther)
            reply = try await page("/quests/family/coop", f.guardian)
            #expect(reply.text.contains("Reading race") && reply.text.contains("0 of 60 minutes together"))
            #expect(reply.text.contains("Minecraft for 15 minutes"))
            let child = try await page("/quests/family/coop", kiri.token)
            #expect(child.text.contains("Reading race") && !child.text.contains("Set a co-op quest"))
            #expect(!child.text.contains("Cancel this co-op quest"))
            let board = try await page("/quests", f.child)
            #expect(board.text.contains("Reading race") && board.text.contains("Kiri"))
            let console = try await page("/quests/family", f.guardian)
            #expect(console.text.contains("Reading race"))
        }
    }
}
