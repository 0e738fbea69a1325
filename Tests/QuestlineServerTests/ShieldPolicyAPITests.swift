import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineServer
import QuestlineStore
import SQLKit
import Testing

/// The device's side: the shield policy it polls (ETag, 304), the rules a guardian sets, and
/// the live `policy` event whenever either changes.
@Suite struct ShieldPolicyAPITests {
    func policyEvents(_ app: Harness) async throws -> Int {
        try await app.store.database.withConnection { db in
            try await db.raw("SELECT COUNT(*) AS n FROM live_events WHERE kind = 'policy'").first()?
                .decode(column: "n", as: Int.self) ?? 0
        }
    }

    @Test func theDevicePollsThePolicyAndHearsWhenItChanges() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let quests = QuestAPITests()
            let f = try await quests.family(app)
            let path = "/api/v1/children/\(f.childID)/policy"
            let first = try await app.send(.get, path, token: f.child)
            #expect(first.status == .ok)
            let blocked = try first.decode(Components.Schemas.ShieldPolicy.self)
            #expect(blocked.apps.map(\.appToken) == ["game"])  // reward apps only
            #expect(blocked.apps.first?.blocked == true && blocked.apps.first?.reason == .noGrant)
            #expect(blocked.nextChange == nil)
            let tag = try #require(first.headers[.eTag])
            // Unchanged: 304, however often the device asks.
            let again = try await app.send(.get, path, token: f.child, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified && again.headers[.eTag] == tag)

            // A quest completes and unlocks 20 minutes of the game: a policy event, a new tag.
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: QuestAPITests.dailyQuest, token: f.guardian)
            #expect(created.status == .created)
            let before = try await policyEvents(app)
            let report = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("r", "khan", "2026-05-07T09:00:00Z", 1800)]), token: f.child)
            #expect(report.status == .ok, "\(report.text)")
            #expect(try await policyEvents(app) == before + 1)
            let unlocked = try await app.send(.get, path, token: f.child, headers: [.ifNoneMatch: tag])
            #expect(unlocked.status == .ok && unlocked.headers[.eTag] != tag)
            let open = try unlocked.decode(Components.Schemas.ShieldPolicy.self)
            #expect(open.apps.first?.blocked == false && open.apps.first?.minutesLeft == 20)
            let midnight = try Date("2026-05-07T22:00:00Z", strategy: .iso8601)  // Berlin
            #expect(open.apps.first?.unlockedUntil == midnight && open.nextChange == midnight)

            // The guardian sets downtime from 20:00 (18:00Z): unlocked until then; a policy event.
            let rules = "/api/v1/children/\(f.childID)/shield-rules"
            #expect(
                try await app.send(.get, rules, token: f.child).decode(Components.Schemas.ShieldRules.self).rewardDays
                    == [1, 2, 3, 4, 5, 6, 7])
            try await app.send(
                .put, rules, json: #"{"rewardDays":[1,2,3,4,5],"downtime":{"start":20,"end":7}}"#, token: f.child
            ).expectProblem(.forbidden)
            try await app.send(
                .put, rules, json: #"{"rewardDays":[1,9]}"#, token: f.guardian
            ).expectProblem(.badRequest, field: "rewardDays")
            let set = try await app.send(
                .put, rules, json: #"{"rewardDays":[1,2,3,4,5],"downtime":{"start":20,"end":7}}"#, token: f.guardian)
            #expect(set.status == .ok, "\(set.text)")
            #expect(try await policyEvents(app) == before + 2)
            let limited = try await app.send(.get, path, token: f.child).decode(Components.Schemas.ShieldPolicy.self)
            let evening = try Date("2026-05-07T18:00:00Z", strategy: .iso8601)
            #expect(limited.apps.first?.unlockedUntil == evening && limited.nextChange == evening)
            // In downtime: shielded, whatever the grant.
            app.clock.set(try Date("2026-05-07T18:30:00Z", strategy: .iso8601))
            let shielded = try await app.send(.get, path, token: f.child).decode(Components.Schemas.ShieldPolicy.self)
            #expect(shielded.apps.first?.blocked == true && shielded.apps.first?.reason == .downtime)
            // Another household sees nothing.
            #expect(try await app.send(.get, path, token: f.otherGuardian).status == .notFound)
        }
    }
}
