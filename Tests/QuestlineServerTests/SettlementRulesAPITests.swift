import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

private typealias QuestBoard = Components.Schemas.QuestBoard

/// The settlement rules of `../shared/specs/family-quests.md` that need the whole service: a
/// change of the child's zone settles again; a quest that has not started shows no progress.
@Suite struct SettlementRulesAPITests {
    /// Reproduction 2: 30 minutes stamped Asia/Tokyo while the child's zone is 11 hours behind
    /// UTC; a daily quest of 10 minutes; then the child's zone becomes Asia/Tokyo. The met
    /// period completes then, with its bonus and unlock, without another report.
    @Test func aMetPeriodCompletesWhenTheChildsZoneChanges() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            app.clock.set(try Date("2026-05-07T10:00:00Z", strategy: .iso8601))  // 19:00 in Tokyo; 23:00 on the 6th in Pago Pago
            let member = "/api/v1/members/\(f.childID)"
            let west = try await app.send(.patch, member, json: #"{"timeZone":"Pacific/Pago_Pago"}"#, token: f.guardian)
            #expect(west.status == .ok, "\(west.text)")
            let usage = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([("tokyo", "khan", "2026-05-07T09:00:00Z", 1800)], zone: "Asia/Tokyo"),
                token: f.child)
            #expect(usage.status == .ok, "\(usage.text)")
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Ten minutes","goalType":"dailyMinutes","target":10}"#, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let before = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(QuestBoard.self)
            #expect(before.quests.first?.state == .inProgress)  // the 6th in Pago Pago: nothing that day

            let east = try await app.send(.patch, member, json: #"{"timeZone":"Asia/Tokyo"}"#, token: f.guardian)
            #expect(east.status == .ok, "\(east.text)")
            let after = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(QuestBoard.self)
            #expect(after.quests.first?.state == .completed, "\(after)")
            #expect(after.quests.first?.progress.text == "30 / 10 minutes")
            #expect(after.quests.first?.completions == 1)
            #expect(after.balance == 60 + 6)  // 30 minutes of Khan at 2, and 10% of it
            // Setting the same zone again (a retry) pays nothing more.
            _ = try await app.send(.patch, member, json: #"{"timeZone":"Asia/Tokyo"}"#, token: f.guardian)
            let again = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(QuestBoard.self)
            #expect(again.balance == 66 && again.quests.first?.completions == 1)
        }
    }

    /// Reproduction 4: 20 minutes today, then a daily quest of 30 that starts tomorrow: "not
    /// started", 0 / 30, and its period is tomorrow.
    @Test func aQuestThatHasNotStartedShowsNoProgress() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            app.clock.set(try Date("2026-05-07T10:00:00Z", strategy: .iso8601))  // noon in Berlin
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([("today", "khan", "2026-05-07T08:00:00Z", 1200)]), token: f.child)
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Tomorrow","goalType":"dailyMinutes","target":30,"startDate":"2026-05-08"}"#,
                token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let card = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self).quests.first
            #expect(card?.state == .notStarted)
            #expect(card?.progress.text == "0 / 30 minutes")
            #expect(card?.progress.periodStart == "2026-05-08")
        }
    }
}
