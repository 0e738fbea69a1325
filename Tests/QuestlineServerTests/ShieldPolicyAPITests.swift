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

    @Test func aChildAsksForMoreTimeAndAGuardianAnswersOnce() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let asks = "/api/v1/children/\(f.childID)/time-requests"
            func ask(_ minutes: Int, app token: String = "game") async throws -> Reply {
                app.clock.advance(by: 60)
                return try await app.send(
                    .post, asks, json: #"{"appToken":"\#(token)","minutes":\#(minutes),"note":"Homework done"}"#,
                    token: f.child)
            }
            try await ask(15, app: "khan").expectProblem(.badRequest, field: "appToken")  // not a reward app
            try await ask(500).expectProblem(.badRequest, field: "minutes")
            try await app.send(.post, asks, json: #"{"appToken":"game","minutes":15}"#, token: f.guardian)
                .expectProblem(.forbidden)
            let first = try await ask(15)
            #expect(first.status == .created, "\(first.text)")
            let request = try first.decode(Components.Schemas.TimeRequest.self)
            #expect(request.state == .pending && request.note == "Homework done")
            _ = try await ask(10)
            _ = try await ask(5)
            // Three wait for an answer: a fourth is refused until one is answered.
            let fourth = try await ask(5)
            fourth.expectProblem(.tooManyRequests)
            #expect(fourth.headers[.retryAfter] != nil)
            let listed = try await app.send(.get, asks, token: f.guardian)
                .decode([Components.Schemas.TimeRequest].self)
            #expect(listed.map(\.minutes) == [5, 10, 15])

            // The child cannot answer; the guardian approves once; the minutes are granted.
            let decision = "/api/v1/time-requests/\(request.id)/decision"
            try await app.send(.post, decision, json: #"{"approve":true}"#, token: f.child).expectProblem(.forbidden)
            try await app.send(.post, decision, json: #"{"approve":true}"#, token: f.otherGuardian)
                .expectProblem(.notFound)
            let approved = try await app.send(.post, decision, json: #"{"approve":true}"#, token: f.guardian)
            #expect(try approved.decode(Components.Schemas.TimeRequest.self).state == .approved, "\(approved.text)")
            try await app.send(.post, decision, json: #"{"approve":false}"#, token: f.guardian)
                .expectProblem(.conflict)
            let policy = try await app.send(.get, "/api/v1/children/\(f.childID)/policy", token: f.child)
                .decode(Components.Schemas.ShieldPolicy.self)
            #expect(policy.apps.first?.blocked == false && policy.apps.first?.minutesLeft == 15)
            // Denied: no grant; the household heard of every ask and answer.
            let denied = try await app.send(
                .post, "/api/v1/time-requests/\(listed[0].id)/decision", json: #"{"approve":false}"#, token: f.guardian)
            #expect(try denied.decode(Components.Schemas.TimeRequest.self).state == .denied)
            let events = try await app.store.database.withConnection { db in
                try await db.raw("SELECT COUNT(*) AS n FROM live_events WHERE kind = 'request'").first()?
                    .decode(column: "n", as: Int.self) ?? 0
            }
            #expect(events == 5)  // three asks, two answers
            // Five asks a day at most: two more are fine now that two are answered, then no more.
            #expect(try await ask(5).status == .created)
            #expect(try await ask(5).status == .created)
            try await ask(5).expectProblem(.tooManyRequests)
        }
    }

    @Test func theWeeklyReportDrawsTheChildsWeek() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let quests = QuestAPITests()
            let f = try await quests.family(app)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: QuestAPITests.dailyQuest, token: f.guardian)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("r", "khan", "2026-05-07T09:00:00Z", 1800)]), token: f.child)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/redemptions", json: #"{"appToken":"game","minutes":5}"#,
                token: f.child)
            let html: HTTPFields = [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"]
            let page = try await app.send(.get, "/quests/children/\(f.childID)/report", headers: html)
            #expect(page.status == .ok)
            // 30 minutes of Khan at 2 points a minute, a 10% bonus, 5 minutes redeemed.
            #expect(page.text.contains("30 minutes learned · 1 quest completed · 66 points earned · "), "\(page.text)")
            // The week is Monday to Sunday, as co-op quests and leagues count it.
            #expect(page.text.contains(#"<svg class="chart""#) && page.text.contains("Minutes: Mon 4 0"))
            #expect(page.text.contains("Thu 7 30") && page.text.contains("Sun 10 0"))
            #expect(page.text.contains("report?week=2026-04-27") && !page.text.contains("report?week=2026-05-11"))
            // The previous week is empty; another household sees nothing; a bad week is a 400.
            let before = try await app.send(
                .get, "/quests/children/\(f.childID)/report?week=2026-04-30", headers: html)
            #expect(before.text.contains("0 minutes learned · 0 quests completed"))
            let other: HTTPFields = [.cookie: "ql_session=\(f.otherGuardian)", .accept: "text/html"]
            #expect(
                try await app.send(.get, "/quests/children/\(f.childID)/report", headers: other).status == .notFound)
            #expect(
                try await app.send(.get, "/quests/children/\(f.childID)/report?week=soon", headers: html).status
                    == .badRequest)
        }
    }

    @Test func theDeviceReportsItsAppsAndTheGuardianPicksFromThem() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let path = "/api/v1/children/\(f.childID)/device-apps"
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)
            let icon = Data(png).base64EncodedString()
            let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]).base64EncodedString()
            let huge = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 70_000))
                .base64EncodedString()
            // Checked whole: a JPEG, an icon over 64 KB, a token twice; nothing is kept.
            let bad = try await app.send(
                .put, path,
                json:
                    #"{"apps":[{"token":"a","name":"A","category":"games","icon":"\#(icon)"},{"token":"b","name":"B","category":"games","icon":"\#(jpeg)"},{"token":"c","name":"C","category":"games","icon":"\#(huge)"},{"token":"a","name":"A2","category":"games"}]}"#,
                token: f.child)
            bad.expectProblem(.badRequest, field: "apps[1].icon")
            #expect(bad.text.contains("apps[2].icon") && bad.text.contains("apps[3].token"))
            #expect(
                try await app.send(.get, path, token: f.guardian).decode([Components.Schemas.DeviceApp].self).isEmpty)
            try await app.send(
                .put, path, json: #"{"apps":[{"token":"x","name":"X","category":"games"}]}"#, token: f.guardian
            ).expectProblem(.forbidden)

            let good = try await app.send(
                .put, path,
                json:
                    #"{"apps":[{"token":"org.khan.kids","name":"Khan Kids","category":"education","icon":"\#(icon)"},{"token":"com.mojang","name":"Minecraft","category":"games"}]}"#,
                token: f.child)
            #expect(good.status == .ok, "\(good.text)")
            let listed = try await app.send(.get, path, token: f.guardian).decode([Components.Schemas.DeviceApp].self)
            #expect(listed.map(\.name) == ["Khan Kids", "Minecraft"])
            #expect(listed[1].iconUrl == nil)
            let iconURL = try #require(listed[0].iconUrl)
            let served = try await app.send(.get, iconURL, token: f.guardian)
            #expect(served.status == .ok && served.headers[.contentType] == "image/png")
            #expect(served.bytes == png)

            // The guardian's page offers them with their icons, and adding one keeps its icon.
            let html: HTTPFields = [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"]
            let page = try await app.send(.get, "/quests/children/\(f.childID)", headers: html)
            #expect(page.text.contains("On Kid&#39;s device") && page.text.contains(#"<img src="\#(iconURL)""#))
            #expect(page.text.contains(#"aria-label="Add Minecraft as a reward app""#))
        }
    }

    /// A token is a path segment of the icon's address: one that could not travel in one is
    /// refused at input, naming the field (`AppToken`, the rule the guardian's catalog uses too).
    @Test func anAppTokenThatCannotBeAPathSegmentIsRefused() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let path = "/api/v1/children/\(f.childID)/device-apps"
            for token in ["dev/../x?y", "a%2Fb", "..", "with#hash", #"back\\slash"#] {
                try await app.send(
                    .put, path,
                    json:
                        #"{"apps":[{"token":"fine.app","name":"Fine","category":"games"},{"token":"\#(token)","name":"Bad","category":"games"}]}"#,
                    token: f.child
                ).expectProblem(.badRequest, field: "apps[1].token")
            }
            #expect(
                try await app.send(.get, path, token: f.guardian).decode([Components.Schemas.DeviceApp].self).isEmpty)
            // Every token that is accepted gets an icon address that serves.
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)
            let icon = Data(png).base64EncodedString()
            let odd = "dev.app+x:y@z~1"
            #expect(
                try await app.send(
                    .put, path,
                    json: #"{"apps":[{"token":"\#(odd)","name":"Odd","category":"games","icon":"\#(icon)"}]}"#,
                    token: f.child
                ).status == .ok)
            let listed = try await app.send(.get, path, token: f.guardian).decode([Components.Schemas.DeviceApp].self)
            let served = try await app.send(.get, try #require(listed.first?.iconUrl), token: f.guardian)
            #expect(served.status == .ok && served.bytes == png, "\(listed.first?.iconUrl ?? "")")
        }
    }
}
