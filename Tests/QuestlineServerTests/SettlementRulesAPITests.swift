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
            // 19:00 in Tokyo; 23:00 on the 6th in Pago Pago.
            app.clock.set(try Date("2026-05-07T10:00:00Z", strategy: .iso8601))
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

    /// Reproduction 1: "25 points within 10 minutes"; Math (3 a minute) 15 minutes two hours
    /// ago, Khan (2 a minute) 8 minutes three hours ago. Either order completes it with 30.
    @Test(arguments: [true, false])
    func efficiencyCompletesInEitherArrivalOrder(inTimeOrder: Bool) async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            app.clock.set(try Date("2026-05-07T12:00:00Z", strategy: .iso8601))
            let math = try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/math",
                json: #"{"name":"Math","role":"learning","pointsPerMinute":3}"#, token: f.guardian)
            #expect(math.status == .ok, "\(math.text)")
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Quick","goalType":"efficiency","target":25,"withinMinutes":10}"#, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let khan = ("b", "khan", "2026-05-07T09:00:00Z", 8 * 60)
            let mathUse = ("a", "math", "2026-05-07T10:00:00Z", 15 * 60)
            for report in inTimeOrder ? [khan, mathUse] : [mathUse, khan] {
                let sent = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/usage", json: QuestAPITests().usage([report]),
                    token: f.child)
                #expect(sent.status == .ok, "\(sent.text)")
            }
            let card = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self).quests.first
            #expect(card?.state == .completed)
            #expect(card?.progress.text == "30 / 25 points within 10 minutes")
            #expect(card?.completions == 1)
        }
    }

    /// Reproduction 3: two apps at 1 point a minute, 90 seconds each; "3 points within 10
    /// minutes" does not complete: the ledger earned 1 + 1.
    @Test func efficiencyCountsThePointsTheLedgerEarns() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            app.clock.set(try Date("2026-05-07T12:00:00Z", strategy: .iso8601))
            _ = try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/read", json: #"{"name":"Read","role":"learning"}"#,
                token: f.guardian)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Quick","goalType":"efficiency","target":3,"withinMinutes":10}"#, token: f.guardian)
            let sent = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([
                    ("x", "duo", "2026-05-07T09:00:00Z", 90), ("y", "read", "2026-05-07T09:02:00Z", 90),
                ]), token: f.child)
            #expect(try sent.decode(Components.Schemas.UsageResult.self).pointsEarned == 2)
            let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self)
            #expect(board.quests.first?.progress.text == "2 / 3 points within 10 minutes")
            #expect(board.quests.first?.state == .inProgress && board.balance == 2)
        }
    }

    /// Reproduction 5: a 3-day streak shows "3 / 3 days", completed, on the day it completes;
    /// the next day the new cycle, with the whole run beside it.
    @Test func aStreakShowsItsFullCycleOnTheDayItCompletes() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            app.clock.set(try Date("2026-05-04T06:00:00Z", strategy: .iso8601))  // Monday, 08:00 in Berlin
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Every day","goalType":"streak","target":3,"dailyMinimumMinutes":5}"#,
                token: f.guardian)
            var texts: [String] = []
            for offset in 0..<4 {
                let start = Date(timeIntervalSince1970: 1_777_874_400 + Double(offset) * 86_400)  // 06:00 UTC
                app.clock.set(start.addingTimeInterval(1_800))
                _ = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/usage",
                    json: QuestAPITests().usage([
                        ("s\(offset)", "khan", ISO8601DateFormatter().string(from: start), 600)
                    ]), token: f.child)
                let card = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                    .decode(QuestBoard.self).quests.first
                texts.append("\(card.map { "\($0.state)" } ?? "-") \(card?.progress.text ?? "-")")
            }
            #expect(
                texts == [
                    "inProgress 1 / 3 days", "inProgress 2 / 3 days", "completed 3 / 3 days",
                    "inProgress 1 / 3 days · 4 days in a row",
                ])
        }
    }
}
