import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

extension Harness {
    /// A form sent as the browser sends it, signed in with `token`.
    func submit(_ path: String, form: String, token: String) async throws -> Reply {
        try await send(
            .post, path,
            headers: [
                .cookie: "ql_session=\(token)", .contentType: "application/x-www-form-urlencoded", .accept: "text/html",
            ], bodyText: form)
    }
}

/// Forgiving streaks through the API and the pages, on SQLite and PostgreSQL (#39).
@Suite struct StreakSettingsAPITests {
    typealias Settings = Components.Schemas.StreakSettings

    @Test func restDaysAndPausesAreChosenWithTheirRules() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("rest@example.com", timeZone: "Europe/Paris")
            // Friday 1 May 2026.
            let empty = try await app.send(.get, "/api/v1/me/streak", token: token).decode(Settings.self)
            #expect(empty.restDays == [] && empty.pauses.isEmpty && empty.pausedDaysLeft == 14)

            let chosen = try await app.send(
                .put, "/api/v1/me/streak/rest-days", json: #"{"weekdays":[7,6]}"#, token: token,
                headers: [HTTPField.Name("Idempotency-Key")!: "rest-1"])
            let settings = try chosen.decode(Settings.self)
            #expect(settings.restDays == [])  // not this week
            #expect(settings.nextRestDays?.weekdays == [6, 7])
            #expect(settings.nextRestDays?.from == "2026-05-04")
            let replayed = try await app.send(
                .put, "/api/v1/me/streak/rest-days", json: #"{"weekdays":[7,6]}"#, token: token,
                headers: [HTTPField.Name("Idempotency-Key")!: "rest-1"])
            #expect(replayed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            try await app.send(.put, "/api/v1/me/streak/rest-days", json: #"{"weekdays":[1,2,3]}"#, token: token)
                .expectProblem(.badRequest, field: "restDays")

            try await app.send(
                .post, "/api/v1/me/streak/pause", json: #"{"start":"2026-05-01","end":"2026-05-03"}"#, token: token
            ).expectProblem(.badRequest, field: "start")
            try await app.send(
                .post, "/api/v1/me/streak/pause", json: #"{"start":"2026-05-10","end":"2026-05-31"}"#, token: token
            ).expectProblem(.badRequest, field: "end")
            try await app.send(
                .post, "/api/v1/me/streak/pause", json: #"{"start":"someday","end":"2026-05-12"}"#, token: token
            ).expectProblem(.badRequest, field: "start")
            let paused = try await app.send(
                .post, "/api/v1/me/streak/pause", json: #"{"start":"2026-05-10","end":"2026-05-12"}"#, token: token
            ).decode(Settings.self)
            #expect(paused.pauses.map(\.start) == ["2026-05-10"])
            #expect(paused.pausedDaysLeft == 11)

            // During the pause: ending it keeps the days before today.
            app.clock.set(at("2026-05-11T10:00:00Z"))
            let ended = try await app.send(.delete, "/api/v1/me/streak/pause", token: token).decode(Settings.self)
            #expect(ended.pauses.map(\.end) == ["2026-05-10"])
            #expect(ended.pausedDaysLeft == 13)
            try await app.send(.delete, "/api/v1/me/streak/pause", token: token).expectProblem(.conflict)
            // Saturday 9 May was a rest day, and so is Saturday 16th: the schedule applies.
            let now = try await app.send(.get, "/api/v1/me/streak", token: token).decode(Settings.self)
            #expect(now.restDays == [6, 7])
        }
    }

    @Test func restDaysKeepTheStreakAndThreeReadsRepairAMissedDay() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("repair@example.com", timeZone: "Europe/Paris")
            #expect(try await app.send(.post, "/api/v1/reading/challenge/join", token: token).status == .ok)
            _ = try await app.send(.put, "/api/v1/me/streak/rest-days", json: #"{"weekdays":[6,7]}"#, token: token)
            // Friday 1 to Wednesday 6 May, every day: a perfect streak (no freeze earned yet: the
            // campaign gives one at 7 days).
            try await app.readDaily(token: token, from: "2026-05-01", days: 6)
            let wednesday = try await app.widget(token: token)
            #expect(wednesday.state == .streakReadToday && wednesday.streak == 6 && wednesday.perfect == true)
            // Thursday 7th missed; Friday 8th: three reads today would repair it.
            app.clock.set(at("2026-05-08T07:00:00Z"))
            let friday = try await app.widget(token: token)
            #expect(friday.state == .repairable)
            #expect(friday.copy.title.contains("7-day"))
            for index in 0..<3 {
                let read = try await app.send(
                    .post, "/api/v1/reading/reads",
                    json: app.readJSON("fix-\(index)", "2026-05-08T07:0\(index):00Z", title: "Article \(index)"),
                    token: token)
                #expect(read.status == .ok)
            }
            let repaired = try await app.widget(token: token)
            #expect(repaired.state == .streakReadToday)
            #expect(repaired.streak == 7)
            #expect(repaired.perfect == false)
            // Saturday 9th: a rest day, not read; the streak waits.
            app.clock.set(at("2026-05-09T10:00:00Z"))
            let saturday = try await app.widget(token: token)
            #expect(saturday.state == .restDay)
            #expect(saturday.streak == 7)
            // The everyday streak in Activity says the same.
            let activity = try await app.send(.get, "/api/v1/activity", token: token)
                .decode(Components.Schemas.Activity.self)
            #expect(activity.currentStreak == 7)
            // The calendar marks the rest days and the repaired day.
            let page = try await app.send(
                .get, "/reading", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"]
            ).text
            #expect(page.contains(#"data-mark="rest""#))
            #expect(page.contains(#"data-mark="repaired""#))
            #expect(page.contains("href=\"/reading/streak\""))
            // The widget's basis carries what a device needs to compute it offline.
            let basis = try await app.send(.get, "/api/v1/reading/widget/basis", token: token)
                .decode(Components.Schemas.WidgetBasis.self)
            #expect(basis.repairDays == ["2026-05-08"])
            #expect(basis.streak?.schedule.map(\.weekdays) == [[6, 7]])
        }
    }

    /// A change of zone cannot make a pause cover a day that had begun anywhere when it was asked.
    @Test func noZoneChangeLetsAPauseCoverADayAlreadyBegun() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("travel@example.com", timeZone: "Pacific/Kiritimati")
            // Tuesday 5 May 12:00 UTC: Wednesday 6 May 02:00 in Kiritimati, Tuesday 00:00 in UTC−12.
            app.clock.set(at("2026-05-05T12:00:00Z"))
            let body = #"{"start":"2026-05-06","end":"2026-05-07"}"#
            try await app.send(.post, "/api/v1/me/streak/pause", json: body, token: token)
                .expectProblem(.badRequest, field: "start")
            #expect(
                try await app.send(.patch, "/api/v1/me", json: #"{"timeZone":"Etc/GMT+12"}"#, token: token).status
                    == .ok)
            // There the 6th is the day after tomorrow, but it has begun in Kiritimati: refused still.
            let refused = try await app.send(.post, "/api/v1/me/streak/pause", json: body, token: token)
            refused.expectProblem(.badRequest, field: "start")
            #expect(refused.text.contains("7 May 2026 at the earliest"), "\(refused.text)")
            let paused = try await app.send(
                .post, "/api/v1/me/streak/pause", json: #"{"start":"2026-05-07","end":"2026-05-08"}"#, token: token
            ).decode(Settings.self)
            #expect(paused.pauses.map(\.start) == ["2026-05-07"])
            #expect(
                try await app.send(.patch, "/api/v1/me", json: #"{"timeZone":"Pacific/Kiritimati"}"#, token: token)
                    .status == .ok)
            let back = try await app.send(.get, "/api/v1/me/streak", token: token).decode(Settings.self)
            #expect(back.pauses.map(\.start) == ["2026-05-07"], "the pause never covers the 6th")
        }
    }

    @Test func theSettingsPageSavesRestDaysAndPausesAndShowsErrors() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("page@example.com", timeZone: "Europe/Paris")
            let cookie: HTTPFields = [.cookie: "ql_session=\(token)", .accept: "text/html"]
            let page = try await app.send(.get, "/reading/streak", headers: cookie)
            #expect(page.status == .ok)
            #expect(page.text.contains("Rest days") && page.text.contains("14 days left this year"))
            let saved = try await app.submit("/reading/streak/rest-days", form: "restDay=6&restDay=7", token: token)
            #expect(saved.headers[.location] == "/reading/streak?rest=1")
            let after = try await app.send(.get, "/reading/streak?rest=1", headers: cookie).text
            #expect(after.contains("From Monday 4 May 2026: Saturday and Sunday"))
            let refused = try await app.submit(
                "/reading/streak/rest-days", form: "restDay=1&restDay=2&restDay=3", token: token)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("Choose at most 2 rest days a week."))
            let pause = try await app.submit(
                "/reading/streak/pause", form: "start=2026-05-05&end=2026-05-08", token: token)
            #expect(pause.headers[.location] == "/reading/streak?paused=1")
            let planned = try await app.send(.get, "/reading/streak", headers: cookie).text
            #expect(planned.contains("Planned: 5 May 2026 to 8 May 2026."))
            #expect(planned.contains("Cancel this pause"))
        }
    }
}
