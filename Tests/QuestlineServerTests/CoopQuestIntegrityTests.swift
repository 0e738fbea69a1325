import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import SQLKit
import Testing

/// What the probes found in co-op quests, on SQLite and PostgreSQL: the weekly cap broken by
/// concurrent creations, and a deleted child left in a quest.
@Suite struct CoopQuestIntegrityTests {
    typealias Coop = Components.Schemas.CoopQuest

    @Test func theWeeklyCapHoldsUnderConcurrentCreations() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (f, kiri) = try await CoopQuestAPITests.family(app)
            let list = "/api/v1/households/\(f.household)/coop-quests"
            let cap = QuestsFeature.maxCoopQuestsPerWeek
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<(cap + 4) {
                    group.addTask {
                        try await app.send(
                            .post, list, json: CoopQuestAPITests.input(f, second: kiri.id), token: f.guardian
                        ).status.code
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.filter { $0 == 201 }.count == cap, "\(statuses)")
            #expect(statuses.filter { $0 == 409 }.count == 4, "\(statuses)")
            let stored = try await app.store.database.withConnection { db in
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM coop_quests WHERE household_id = \(bind: f.household)"
                ).first()?.decode(column: "n", as: Int.self) ?? -1
            }
            #expect(stored == cap)
        }
    }

    @Test func aDeletedChildLeavesTheQuestWhichStaysWithoutThem() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (f, kiri) = try await CoopQuestAPITests.family(app)
            let quests = QuestAPITests()
            let list = "/api/v1/households/\(f.household)/coop-quests"
            let coop = try await app.send(
                .post, list, json: CoopQuestAPITests.input(f, second: kiri.id, target: 600), token: f.guardian
            ).decode(Coop.self)
            for (token, child, zone) in [(f.child, f.childID, "Europe/Berlin"), (kiri.token, kiri.id, "Asia/Tokyo")] {
                let reply = try await app.send(
                    .post, "/api/v1/children/\(child)/usage",
                    json: quests.usage([("u-\(child)", "khan", "2026-05-07T08:00:00Z", 600)], zone: zone), token: token
                )
                #expect(reply.status == .ok, "\(reply.text)")
            }
            #expect(try await app.send(.delete, "/api/v1/members/\(kiri.id)", token: f.guardian).status == .noContent)
            let after = try await app.send(.get, "/api/v1/coop-quests/\(coop.id)", token: f.guardian).decode(Coop.self)
            #expect(after.shares.map(\.childId) == [f.childID], "\(after.shares.map(\.displayName))")
            #expect(after.value == 10, "only the remaining child's minutes count")
            let page = try await app.send(
                .get, "/quests/family/coop", headers: [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"])
            #expect(!page.text.contains("A former member"))
            let specs = try await app.store.database.withConnection { db in
                try await db.raw("SELECT spec FROM coop_quests").all().map {
                    try $0.decode(column: "spec", as: String.self)
                }
            }
            #expect(specs.allSatisfy { !$0.contains(kiri.id) }, "no stored spec names the deleted child")
        }
    }
}
