import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineL10n
import QuestlineStore
import SQLKit
import Testing

/// A child's day follows the household (the zone a guardian sets), and every screen and
/// endpoint answers "is this app open?" with the one shield decision (`ShieldRules.restriction`,
/// `ShieldPolicy`, `RewardUse`).
@Suite struct ChildDayTests {
    typealias Policy = Components.Schemas.ShieldPolicy
    typealias Usage = Components.Schemas.UsageResult
    typealias Board = Components.Schemas.QuestBoard

    /// A daily quest of 5 learning minutes that unlocks 20 minutes of the game.
    static let shortQuest = #"""
        {"title":"Learn 5 minutes","goalType":"dailyMinutes","target":5,"bonusPercent":10,
         "rewardApps":[{"appToken":"game","minutes":20}],"weekdays":[1,2,3,4,5,6,7]}
        """#

    func at(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }

    /// Before: a child in downtime at 23:30 in Berlin moved itself to Pacific/Kiritimati (already
    /// the next day, 11:30) and its reward apps opened; a report stamped there completed, paid and
    /// unlocked a day the child had not reached, while the card showed 0 / 5.
    @Test func aChildWhoChangesZonesStaysInDowntimeAndEarnsNothingAheadOfItsDay() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let quests = QuestAPITests()
            let f = try await quests.family(app)
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: Self.shortQuest, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let rules = try await app.send(
                .put, "/api/v1/children/\(f.childID)/shield-rules",
                json: #"{"rewardDays":[1,2,3,4,5,6,7],"downtime":{"start":21,"end":7}}"#, token: f.guardian)
            #expect(rules.status == .ok)
            app.clock.set(try at("2026-05-07T21:30:00Z"))  // 23:30 in Berlin: downtime

            // The child cannot move its own day; the same zone is no change; a guardian can.
            try await app.send(.patch, "/api/v1/me", json: #"{"timeZone":"Pacific/Kiritimati"}"#, token: f.child)
                .expectProblem(.forbidden, field: "timeZone")
            #expect(
                try await app.send(.patch, "/api/v1/me", json: #"{"timeZone":"Europe/Berlin"}"#, token: f.child)
                    .status == .ok)
            let policy = try await app.send(.get, "/api/v1/children/\(f.childID)/policy", token: f.child)
                .decode(Policy.self)
            #expect(policy.apps.allSatisfy { $0.blocked } && policy.apps.first?.reason == .noGrant)

            // Ten learning minutes stamped in Kiritimati, where it is already 8 May: stored, but
            // nothing completes, pays or unlocks before the child's 8 May.
            let ahead = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("k1", "khan", "2026-05-07T21:15:00Z", 600)], zone: "Pacific/Kiritimati"),
                token: f.child)
            let early = try ahead.decode(Usage.self)
            #expect(early.accepted == 1 && early.pointsEarned == 0 && early.completed.isEmpty, "\(ahead.text)")
            let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(Board.self)
            #expect(board.balance == 0 && board.grants.isEmpty)
            #expect(board.quests.first?.progress.value == 0)

            // 8 May in Berlin (08:00): the next settlement counts it; the card and the bonus agree.
            app.clock.set(try at("2026-05-08T06:00:00Z"))
            let later = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("b1", "duo", "2026-05-08T05:50:00Z", 60)]), token: f.child)
            let settled = try later.decode(Usage.self)
            #expect(settled.completed.count == 1 && settled.pointsEarned > 0, "\(later.text)")
            let morning = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(Board.self)
            #expect(morning.quests.first?.state == .completed && morning.grants.map(\.minutesLeft) == [20])

            // A guardian sets the child's zone; the child's day follows it.
            let moved = try await app.send(
                .patch, "/api/v1/members/\(f.childID)", json: #"{"timeZone":"America/New_York"}"#, token: f.guardian)
            #expect(moved.status == .ok, "\(moved.text)")
        }
    }

    /// Before: during downtime a child redeemed points ("Unlocked! Enjoy your reward time.", 25
    /// points spent, the board listing the app under "Unlocked now") while the device page said
    /// "Blocked: downtime"; 10 then 5 minutes of reported use left "30 min left", then "29 min
    /// left"; use of a blocked app was accepted silently.
    @Test func oneAnswerToIsThisAppOpen() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let quests = QuestAPITests()
            let f = try await quests.family(app)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":500,"reason":"Start"}"#,
                token: f.guardian)
            _ = try await app.send(
                .put, "/api/v1/children/\(f.childID)/shield-rules",
                json: #"{"rewardDays":[1,2,3,4,5,6,7],"downtime":{"start":21,"end":7}}"#, token: f.guardian)
            let redeem = "/api/v1/children/\(f.childID)/redemptions"

            // Downtime (23:30 Berlin): redemption is refused, nothing is spent; the web says why.
            app.clock.set(try at("2026-05-07T21:30:00Z"))
            let refused = try await app.send(.post, redeem, json: #"{"appToken":"game","minutes":10}"#, token: f.child)
            refused.expectProblem(.conflict, field: "appToken")
            // 07:00 in Berlin, as English writes the time.
            let berlin = try #require(TimeZoneID("Europe/Berlin"))
            let seven = Localizer.english.render(.time(try at("2026-05-08T05:00:00Z"), berlin))
            #expect(refused.text.contains("downtime until \(seven) tomorrow"), "\(refused.text)")
            var board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(Board.self)
            #expect(board.balance == 500 && board.grants.isEmpty)
            let page = try await app.send(
                .get, "/quests", headers: [.cookie: "ql_session=\(f.child)", .accept: "text/html"])
            #expect(page.text.contains("downtime until \(seven) tomorrow") && page.text.contains("disabled>Redeem"))

            // Use of the game now is blocked use: recorded, reported back, shown to the guardian.
            let night = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("n1", "game", "2026-05-07T21:10:00Z", 600)]), token: f.child)
            let nightUse = try night.decode(Usage.self)
            #expect(nightUse.blocked.map(\.reason) == [.downtime] && nightUse.blocked.map(\.minutes) == [10])
            board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(Board.self)
            #expect(board.blockedToday.map(\.appToken) == ["game"])
            let device = try await app.send(
                .get, "/quests/children/\(f.childID)/device",
                headers: [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"])
            let twentyPastEleven = Localizer.english.render(.time(try at("2026-05-07T21:20:00Z"), berlin))
            #expect(
                device.text.contains("Used while blocked today")
                    && device.text.contains("10 min at \(twentyPastEleven)"))

            // 12:00 the next day: redeemed, unlocked on every screen; used minute for minute.
            app.clock.set(try at("2026-05-08T10:00:00Z"))
            let bought = try await app.send(.post, redeem, json: #"{"appToken":"game","minutes":30}"#, token: f.child)
            #expect(bought.status == .ok || bought.status == .created, "\(bought.text)")
            let open = try await app.send(.get, "/api/v1/children/\(f.childID)/policy", token: f.child)
                .decode(Policy.self)
            #expect(open.apps.first?.blocked == false && open.apps.first?.minutesLeft == 30)
            for (id, minutes, left) in [("p1", 10, 20), ("p2", 5, 15)] {
                app.clock.advance(by: 5)
                let start = app.clock.now().addingTimeInterval(-Double(minutes * 60))
                let body =
                    #"{"reports":[{"id":"\#(id)","appToken":"game","startedAt":"\#(start.formatted(.iso8601))","durationSeconds":\#(minutes * 60),"timeZone":"Europe/Berlin"}]}"#
                let used = try await app.send(.post, "/api/v1/children/\(f.childID)/usage", json: body, token: f.child)
                #expect(try used.decode(Usage.self).blocked.isEmpty, "\(used.text)")
                let policy = try await app.send(.get, "/api/v1/children/\(f.childID)/policy", token: f.child)
                    .decode(Policy.self)
                #expect(policy.apps.first?.minutesLeft == left, "after \(minutes) minutes")
                board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                    .decode(Board.self)
                #expect(board.grants.map(\.minutesLeft) == [left])
            }
            // The board, the device page and the policy agree that the game is open now.
            let childBoard = try await app.send(
                .get, "/quests", headers: [.cookie: "ql_session=\(f.child)", .accept: "text/html"])
            #expect(childBoard.text.contains("15 min left"))
        }
    }

    /// Before, use reported from the web's device page was stamped with the viewer's zone (a
    /// guardian in New York reporting for a child in Berlin moved the use to another day).
    @Test func useReportedFromTheWebIsStampedWithTheChildsZone() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let moved = try await app.send(
                .patch, "/api/v1/me", json: #"{"timeZone":"America/New_York"}"#, token: f.guardian)
            #expect(moved.status == .ok)
            let reply = try await app.send(
                .post, "/quests/children/\(f.childID)/device/usage", headers: [.cookie: "ql_session=\(f.guardian)"],
                bodyText: "appToken=khan&minutes=5")
            #expect(reply.status == .seeOther, "\(reply.status)")
            let zones = try await app.store.database.withConnection { db in
                try await db.raw("SELECT time_zone FROM usage_reports").all().map {
                    try $0.decode(column: "time_zone", as: String.self)
                }
            }
            #expect(zones == ["Europe/Berlin"])
        }
    }
}
