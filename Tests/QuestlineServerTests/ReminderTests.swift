import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

/// Reading reminders as webhook events: "streak at risk" in the member's evening, "streak lost"
/// the next day, once each, never when turned off or in quiet hours.
@Suite struct ReminderTests {
    func events(_ app: Harness, _ type: String, member: String) async throws -> Int {
        try await app.store.database.withConnection { db in
            try await db.raw(
                "SELECT COUNT(*) AS n FROM outbox_events WHERE type = \(bind: type) AND member_id = \(bind: member)"
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    func read(_ app: Harness, token: String, id: String) async throws {
        let at = app.clock.now().formatted(.iso8601)
        let reply = try await app.send(
            .post, "/api/v1/reading/reads",
            json:
                #"{"eventId":"\#(id)","articleId":"Octopus","title":"Octopus","language":"en","at":"\#(at)","timeZone":"Europe/Berlin"}"#,
            token: token)
        #expect(reply.status == .ok, "\(reply.text)")
    }

    @Test func atRiskInTheEveningThenLostTheNextDayOnceEachRespectingPreferences() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (admin, _) = try await app.signUpAdministrator("admin@example.com")
            let hook = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json:
                    #"{"url":"https://93.184.215.14/hook","events":["reading.streak_at_risk","reading.streak_lost"]}"#,
                token: admin)
            #expect(hook.status == .created)
            let (reader, readerID) = try await app.signUp("streak@example.com")
            let (quiet, quietID) = try await app.signUp("quiet@example.com")
            let (off, offID) = try await app.signUp("off@example.com")
            #expect(
                try await app.send(
                    .put, "/api/v1/me/notifications",
                    json: #"{"streakReminders":true,"quietHours":{"start":19,"end":23}}"#, token: quiet
                ).status == .ok)
            #expect(
                try await app.send(.put, "/api/v1/me/notifications", json: #"{"streakReminders":false}"#, token: off)
                    .status == .ok)
            try await app.send(
                .put, "/api/v1/me/notifications", json: #"{"streakReminders":true,"quietHours":{"start":25,"end":7}}"#,
                token: off
            ).expectProblem(.badRequest, field: "quietHours.start")

            // Two days of reading (Berlin, UTC+2), then an evening without.
            app.clock.set(try Date("2026-05-08T08:00:00Z", strategy: .iso8601))
            for (token, name) in [(reader, "r"), (quiet, "q"), (off, "o")] {
                try await read(app, token: token, id: name + "1")
            }
            app.clock.advance(by: 86_400)
            for (token, name) in [(reader, "r"), (quiet, "q"), (off, "o")] {
                try await read(app, token: token, id: name + "2")
            }
            let reminders = NotificationsFeature(
                store: app.store, configuration: Harness.configuration(clock: app.clock).features)
            app.clock.set(try Date("2026-05-10T16:30:00Z", strategy: .iso8601))  // 18:30 in Berlin: not yet
            #expect(try await reminders.sendDueReminders() == 0)
            app.clock.set(try Date("2026-05-10T17:30:00Z", strategy: .iso8601))  // 19:30
            #expect(try await reminders.sendDueReminders() == 1)
            #expect(try await reminders.sendDueReminders() == 0)  // once a day
            #expect(try await events(app, "reading.streak_at_risk", member: readerID) == 1)
            #expect(try await events(app, "reading.streak_at_risk", member: quietID) == 0)  // quiet hours
            #expect(try await events(app, "reading.streak_at_risk", member: offID) == 0)  // turned off
            let body = try await app.store.database.withConnection { db in
                try await db.raw("SELECT body FROM outbox_events WHERE type = 'reading.streak_at_risk'").first()?
                    .decode(column: "body", as: String.self) ?? ""
            }
            #expect(body.contains(#""streak":2"#) && body.contains(readerID))

            // The next morning, the streak is lost: once, for those who want to hear it.
            app.clock.set(try Date("2026-05-11T06:00:00Z", strategy: .iso8601))  // 08:00 in Berlin
            #expect(try await reminders.sendDueReminders() == 2)
            #expect(try await reminders.sendDueReminders() == 0)
            #expect(try await events(app, "reading.streak_lost", member: readerID) == 1)
            #expect(try await events(app, "reading.streak_lost", member: quietID) == 1)
            #expect(try await events(app, "reading.streak_lost", member: offID) == 0)
            let settings = try await app.send(.get, "/api/v1/me/notifications", token: quiet)
                .decode(Components.Schemas.NotificationPreferences.self)
            #expect(settings.streakReminders && settings.quietHours?.start == 19)
        }
    }

    /// The `notifyAt` of each event of `type`, in order ("-" when absent).
    func notifyAts(_ app: Harness, _ type: String) async throws -> [String] {
        try await app.store.database.withConnection { db in
            try await db.raw("SELECT body FROM outbox_events WHERE type = \(bind: type) ORDER BY seq").all()
        }.map { row in
            let body = try row.decode(column: "body", as: String.self)
            let event = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            return (event?["data"] as? [String: Any])?["notifyAt"] as? String ?? "-"
        }
    }

    @Test func questUpdatesWaitForTheChildsQuietHoursAndStopWhenTurnedOff() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (admin, _) = try await app.signUpAdministrator("admin@example.com")
            let hook = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["quest.completed","reward.unlocked"]}"#,
                token: admin)
            #expect(hook.status == .created)
            let quests = QuestAPITests()
            let f = try await quests.familyWithDailyQuest(app)
            let child = try await app.send(.get, "/api/v1/me/notifications", token: f.child)
                .decode(Components.Schemas.NotificationPreferences.self)
            #expect(child.quietHours?.start == 20 && child.quietHours?.end == 7 && child.questUpdates == true)

            func learn(_ id: String, from start: String) async throws {
                let reply = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/usage",
                    json: quests.usage([(id, "khan", start, 1800)]), token: f.child)
                #expect(try reply.decode(Components.Schemas.UsageResult.self).completed.count == 1, "\(reply.text)")
            }
            // Completed at 21:00 in Berlin: inside the child's quiet hours, so the push waits
            // until 07:00 the next morning.
            app.clock.set(try Date("2026-05-07T19:00:00Z", strategy: .iso8601))
            try await learn("evening", from: "2026-05-07T18:20:00Z")
            // Completed at noon: at once.
            app.clock.set(try Date("2026-05-08T10:00:00Z", strategy: .iso8601))
            try await learn("noon", from: "2026-05-08T09:00:00Z")
            // Turned off: the events still go to the app team's systems, without notifyAt.
            #expect(
                try await app.send(
                    .put, "/api/v1/me/notifications", json: #"{"streakReminders":true,"questUpdates":false}"#,
                    token: f.child
                ).status == .ok)
            app.clock.set(try Date("2026-05-09T10:00:00Z", strategy: .iso8601))
            try await learn("off", from: "2026-05-09T09:00:00Z")

            let expected = ["2026-05-08T05:00:00Z", "2026-05-08T10:00:00Z", "-"]
            #expect(try await notifyAts(app, "quest.completed") == expected)
            #expect(try await notifyAts(app, "reward.unlocked") == expected)
        }
    }

    /// A pass reads its candidates a page at a time: the pages hold every member who read
    /// lately once, with all their read days, however the page size cuts the rows.
    @Test func candidatesComeInPagesWithEveryMemberOnceAndWhole() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            app.clock.set(try Date("2026-05-08T08:00:00Z", strategy: .iso8601))
            var readers: [String: Int] = [:]
            for n in 0..<7 {
                let (token, id) = try await app.signUp("pager\(n)@example.com")
                let days = n % 3 + 1  // one to three read days each
                readers[id] = days
                for day in 0..<days {
                    try await read(app, token: token, id: "p\(n)-\(day)")
                    app.clock.advance(by: 86_400)
                }
                app.clock.set(try Date("2026-05-08T08:00:00Z", strategy: .iso8601))
            }
            let since = LocalDay(app.clock.now(), in: .gmt).adding(days: -4)
            for limit in [1, 2, 3, 100] {
                var seen: [String: Int] = [:]
                var after: MemberID?
                var pages = 0
                repeat {
                    // A page reads 8 rows a member of `limit`: small limits end pages inside a
                    // member's days, which then starts the next page.
                    let page = try await app.store.notifications.candidates(since: since, after: after, limit: limit)
                    for candidate in page.candidates {
                        #expect(seen[candidate.member.rawValue] == nil, "member on two pages")
                        seen[candidate.member.rawValue] = candidate.readDays.count
                    }
                    after = page.next
                    pages += 1
                } while after != nil && pages < 100
                #expect(seen == readers, "limit \(limit)")
            }
        }
    }
}
