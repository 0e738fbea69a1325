import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import SQLKit
import Testing

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

/// The month and year in review through the API, the pages and the `recap.ready` event, on
/// SQLite and PostgreSQL (#39).
@Suite struct RecapAPITests {
    typealias Recap = Components.Schemas.Recap

    @Test func aMonthInReviewFromReadsReadingTimeSavesAndGames() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("recap@example.com", timeZone: "Europe/Paris")
            // 1–3 May: Octopus twice, Squid once, with reading time on each; a save.
            for (index, (title, instant)) in [
                ("Octopus", "2026-05-01T08:00:00Z"), ("Squid", "2026-05-02T08:00:00Z"),
                ("Octopus", "2026-05-03T08:00:00Z"),
            ].enumerated() {
                app.clock.set(at(instant))
                let read = try await app.send(
                    .post, "/api/v1/reading/reads", json: app.readJSON("r\(index)", instant, title: title),
                    token: token)
                #expect(read.status == .ok)
                let end = at(instant).addingTimeInterval(title == "Octopus" ? 600 : 1500).formatted(.iso8601)
                app.clock.set(at(instant).addingTimeInterval(3600))
                let time = try await app.send(
                    .post, "/api/v1/activity/reading-time",
                    json:
                        #"{"intervals":[{"eventId":"t\#(index)","start":"\#(instant)","end":"\#(end)","timeZone":"Europe/Paris","articleId":"\#(title)"}]}"#,
                    token: token)
                #expect(time.status == .ok, "\(time.text)")
            }
            _ = try await app.send(
                .post, "/api/v1/saved", json: #"{"language":"en","title":"Octopus"}"#, token: token)
            app.clock.set(at("2026-05-20T10:00:00Z"))
            let may = try await app.send(.get, "/api/v1/me/recap", token: token).decode(Recap.self)
            #expect(may.period == "2026-05" && may.title == "May 2026" && !may.closed)
            #expect(may.readingMinutes == 45)
            #expect(may.articles == 2)
            #expect(may.topArticles.map(\.title) == ["Squid", "Octopus"])
            #expect(may.topArticles.first?.minutes == 25)
            #expect(may.bestStreak == 3)
            #expect(may.saved == 1)
            #expect(may.percentile == nil)  // one reader: no comparison
            #expect(may.slides.first?.figure == "45 min")
            // The year so far says the same; a month to come and a malformed period are refused.
            let year = try await app.send(.get, "/api/v1/me/recap?period=2026", token: token).decode(Recap.self)
            #expect(year.readingMinutes == 45 && year.title == "2026")
            try await app.send(.get, "/api/v1/me/recap?period=2026-06", token: token)
                .expectProblem(.badRequest, field: "period")
            try await app.send(.get, "/api/v1/me/recap?period=May", token: token)
                .expectProblem(.badRequest, field: "period")
            // The picture fits the name and says the period.
            let picture = try await app.send(.get, "/api/v1/me/recap.svg?period=2026-05", token: token)
            #expect(picture.status == .ok)
            #expect(picture.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(picture.text.contains("May 2026 in review") && picture.text.contains("45 min"))
            #expect(picture.text.contains(#"x="40""#) && !picture.text.contains("direction"))
            // In Arabic the picture's lines start at the right.
            let arabic = try await app.send(.get, "/api/v1/me/recap.svg?period=2026-05&uselang=ar", token: token)
            #expect(arabic.text.contains(#"xml:lang="ar" direction="rtl""#) && arabic.text.contains(#"x="560""#))
            #expect(!arabic.text.contains(#"x="40""#) && !arabic.text.contains("in review"))
            // The page: slides, and the neighbouring periods.
            let page = try await app.send(
                .get, "/activity/recap?period=2026-05", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"]
            ).text
            #expect(page.contains("May 2026 in review") && page.contains("Your top article"))
            #expect(page.contains("/activity/recap?period=2026-04") && !page.contains("/activity/recap?period=2026-06"))
        }
    }

    @Test func recapReadyIsSentOnceWhenTheMonthClosesInTheMembersZone() async throws {
        try await Harness.runReading { app in
            let (admin, _) = try await app.signUpAdministrator("recap-admin@example.com")
            let hook = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["recap.ready"]}"#,
                token: admin)
            #expect(hook.status == .created)
            let (tokyo, tokyoID) = try await app.signUp("tokyo@example.com", timeZone: "Asia/Tokyo")
            let (honolulu, honoluluID) = try await app.signUp("honolulu@example.com", timeZone: "Pacific/Honolulu")
            app.clock.set(at("2026-05-20T00:00:00Z"))
            for (token, zone) in [(tokyo, "Asia/Tokyo"), (honolulu, "Pacific/Honolulu")] {
                let read = try await app.send(
                    .post, "/api/v1/reading/reads",
                    json: app.readJSON("m-\(zone)", "2026-05-20T00:00:00Z", zone: zone), token: token)
                #expect(read.status == .ok)
            }
            let notifications = NotificationsFeature(
                store: app.store, configuration: Harness.configuration(clock: app.clock).features)
            func events(_ member: String) async throws -> [String] {
                try await app.store.database.withConnection { db in
                    try await db.raw(
                        "SELECT body FROM outbox_events WHERE type = 'recap.ready' AND member_id = \(bind: member)"
                    ).all().map { try $0.decode(column: "body", as: String.self) }
                }
            }
            // 31 May 20:00 UTC: Tokyo's June has begun, Honolulu's May has not ended.
            app.clock.set(at("2026-05-31T20:00:00Z"))
            #expect(try await notifications.sendRecapsReady() == 1)
            #expect(try await events(tokyoID).count == 1)
            #expect(try await events(tokyoID).first?.contains(#""period":"2026-05""#) == true)
            #expect(try await events(honoluluID).isEmpty)
            // 1 June 12:00 UTC: Honolulu's too; each once.
            app.clock.set(at("2026-06-01T12:00:00Z"))
            #expect(try await notifications.sendRecapsReady() == 1)
            #expect(try await notifications.sendRecapsReady() == 0)
            #expect(try await events(honoluluID).count == 1)
        }
    }

    @Test func aChildsMonthCountsLearningQuestsAndPoints() async throws {
        try await Harness.run { app in
            let f = try await QuestAPITests().familyWithDailyQuest(app)
            let report = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json:
                    #"{"reports":[{"id":"recap-1","appToken":"khan","startedAt":"2026-05-07T07:00:00Z","durationSeconds":2400,"timeZone":"Europe/Berlin"}]}"#,
                token: f.child)
            #expect(report.status == .ok, "\(report.text)")
            let recap = try await app.send(.get, "/api/v1/me/recap", token: f.child).decode(Recap.self)
            let child = try #require(recap.child)
            #expect(child.learningMinutes == 40)
            #expect(child.questsCompleted >= 1)
            #expect(child.pointsEarned > 0)
            #expect(child.topApp != nil)
            // A guardian's own recap has no child part.
            #expect(try await app.send(.get, "/api/v1/me/recap", token: f.guardian).decode(Recap.self).child == nil)
        }
    }
}
