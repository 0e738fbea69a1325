import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
typealias Widget = Components.Schemas.Widget
/// The bodies the contract describes inline.
private struct Badges: Decodable {
    struct Badge: Decodable { let id: String }
    let badges: [Badge]
}
private struct Campaigns: Decodable { let campaigns: [Components.Schemas.Campaign] }

extension Harness {
    static func runReading(_ body: @Sendable (Harness) async throws -> Void) async throws {
        try await run(sessionLifetime: 120 * 86_400) { app in
            app.clock.set(at("2026-05-01T08:00:00Z"))
            try await body(app)
        }
    }

    func readJSON(_ id: String, _ instant: String, zone: String = "Europe/Paris", title: String = "Octopus") -> String {
        #"{"eventId":"\#(id)","articleId":"\#(title)","title":"\#(title)","language":"en","at":"\#(instant)","timeZone":"\#(zone)"}"#
    }

    /// The widget as the contract types it.
    func widget(token: String? = nil, headers: HTTPFields = [:]) async throws -> Widget {
        try await send(.get, "/api/v1/reading/widget", token: token, headers: headers).decode(Widget.self)
    }

    /// Reads one article on each local day from `from` (Paris noon), advancing the clock.
    func readDaily(token: String, from: String, days: Int) async throws {
        var instant = at(from + "T10:00:00Z")
        for index in 0..<days {
            clock.set(instant)
            let reply = try await send(
                .post, "/api/v1/reading/reads",
                json: readJSON("\(from)-\(index)", ISO8601DateFormatter().string(from: instant)), token: token)
            #expect(reply.status == .ok, "\(reply.text)")
            instant += 86_400
        }
    }
}

@Suite struct ReadingAPITests {
    /// Too few days left for the goal: the widget, the API and the announcement say so, and
    /// still offer to join and read along.
    @Test func aGoalOutOfReachIsSaidHonestlyEverywhere() async throws {
        try await Harness.runReading { app in
            app.clock.set(at("2026-05-10T08:00:00Z"))  // 22 days left for a 25-day goal
            let (token, _) = try await app.signUp("late@example.com", timeZone: "Europe/Paris")
            let widget = try await app.widget(token: token)
            #expect(widget.state == .notEnrolledOutOfReach && widget.goalInReach == false)
            #expect(widget.reachableStreak == 22 && widget.ctas.map(\.kind) == [.join])
            let home = try await app.send(.get, "/", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
            #expect(home.text.contains("Join to read along") && home.text.contains("a 22-day streak"), "\(home.text)")
            #expect(!home.text.contains("Join the challenge</button>"))
            #expect(try await app.send(.post, "/api/v1/reading/challenge/join", token: token).status == .ok)
            let joined = try await app.widget(token: token)
            #expect(joined.state == .enrolledNotStarted && joined.goalInReach == false)
            #expect(!joined.copy.body.contains("25-day streak"), "\(joined.copy)")
        }
    }

    @Test func joinReadAndWatchTheWidgetChange() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "Europe/Paris")
            app.clock.set(at("2026-04-30T10:00:00Z"))
            #expect(try await app.widget(token: token).state == .notLiveYet)
            app.clock.set(at("2026-05-02T08:00:00Z"))
            let before = try await app.widget(token: token)
            #expect(before.state == .notEnrolled)
            #expect(before.ctas.first?.kind == .join)

            let joined = try await app.send(.post, "/api/v1/reading/challenge/join", token: token)
            #expect(joined.status == .ok)
            #expect(try joined.decode(Components.Schemas.Enrollment.self).joinDay == "2026-05-02")
            #expect(try await app.widget(token: token).state == .enrolledNotStarted)

            let first = try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("r1", "2026-05-02T07:30:00Z"), token: token)
            let recorded = try first.decode(Components.Schemas.ReadResult.self)
            #expect(recorded.recorded && recorded.localDay == "2026-05-02")
            let retry = try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("r1", "2026-05-02T07:30:00Z"), token: token)
            #expect(try retry.decode(Components.Schemas.ReadResult.self).recorded == false)
            let readToday = try await app.widget(token: token)
            #expect(readToday.state == .streakReadToday)
            #expect(readToday.streak == 1)
            #expect(!readToday.copy.title.isEmpty)

            app.clock.set(at("2026-05-03T09:00:00Z"))
            #expect(try await app.widget(token: token).state == .streakNotReadToday)
            app.clock.set(at("2026-05-05T09:00:00Z"))  // the 3rd and 4th missed, no freezes in 2026
            #expect(try await app.widget(token: token).state == .enrolledNotStarted)
        }
    }

    @Test func completionRecordsABadgeAndThePrizeIsClaimedOnceBeforeTheDeadline() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "Europe/Paris")
            try await app.send(.post, "/api/v1/reading/challenge/claim", token: token).expectProblem(.conflict)
            _ = try await app.send(.post, "/api/v1/reading/challenge/join", token: token)
            try await app.readDaily(token: token, from: "2026-05-01", days: 25)
            let done = try await app.widget(token: token)
            #expect(done.state == .completed)
            #expect(done.completedOn == "2026-05-25")
            let badges = try await app.send(.get, "/api/v1/badges", token: token).decode(Badges.self).badges
            #expect(badges.first?.id == "reading-challenge-2026")

            app.clock.set(at("2026-06-20T10:00:00Z"))  // a long gap later: still completed
            #expect(try await app.widget(token: token).state == .completed)
            let claimed = try await app.send(.post, "/api/v1/reading/challenge/claim", token: token)
            #expect(claimed.status == .ok)
            try await app.send(.post, "/api/v1/reading/challenge/claim", token: token).expectProblem(.conflict)
            let share = try await app.send(.get, "/api/v1/reading/share.svg", token: token)
            #expect(share.headers[.contentType] == "image/svg+xml")
            #expect(share.text.contains("Challenge complete: 25 days in a row!"))
        }
    }

    @Test func claimsAfterTheDeadlineAndJoinsAfterTheEndAreRefused() async throws {
        try await Harness.runReading { app in
            let (late, _) = try await app.signUp("late@example.com", timeZone: "UTC")
            app.clock.set(at("2026-06-01T10:00:00Z"))
            try await app.send(.post, "/api/v1/reading/challenge/join", token: late).expectProblem(.conflict)
            #expect(try await app.widget(token: late).state == .concludedNoStreak)

            app.clock.set(at("2026-05-01T08:00:00Z"))
            let (ada, _) = try await app.signUp("ada@example.com", timeZone: "Europe/Paris")
            _ = try await app.send(.post, "/api/v1/reading/challenge/join", token: ada)
            try await app.readDaily(token: ada, from: "2026-05-01", days: 25)
            app.clock.set(at("2026-07-11T10:00:00Z"))
            try await app.send(.post, "/api/v1/reading/challenge/claim", token: ada).expectProblem(.conflict)
            #expect(try await app.widget(token: ada).state == .removed)
            // The badge stays after the widget is gone.
            #expect(try await app.send(.get, "/api/v1/badges", token: ada).decode(Badges.self).badges.count == 1)
        }
    }

    @Test func badReadsAreRefusedNamingTheFieldAndNothingIsRecorded() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "Europe/Paris")
            try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("f", "2026-05-01T09:00:00Z"), token: token
            )
            .expectProblem(.badRequest, field: "at")  // an hour in the future of the server's clock
            try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("z", "2026-05-01T07:00:00Z", zone: "Mars/Base"),
                token: token
            )
            .expectProblem(.badRequest, field: "timeZone")
            let klingon = app.readJSON("k", "2026-05-01T07:00:00Z").replacingOccurrences(
                of: #""language":"en""#, with: #""language":"klingon""#)
            try await app.send(.post, "/api/v1/reading/reads", json: klingon, token: token).expectProblem(
                .badRequest, field: "language")
            // Control characters (PostgreSQL refuses NUL in text outright) are refused, naming the field.
            try await app.send(
                .post, "/api/v1/reading/reads",
                json: app.readJSON("nul", "2026-05-01T07:00:00Z", title: #"Oct\u0000opus"#), token: token
            )
            .expectProblem(.badRequest, field: "articleId")
            let titled = app.readJSON("tab", "2026-05-01T07:00:00Z").replacingOccurrences(
                of: #""title":"Octopus""#, with: #""title":"Oct\topus""#)
            try await app.send(.post, "/api/v1/reading/reads", json: titled, token: token).expectProblem(
                .badRequest, field: "title")
            let id = app.readJSON("line\\nbreak", "2026-05-01T07:00:00Z")
            try await app.send(.post, "/api/v1/reading/reads", json: id, token: token).expectProblem(
                .badRequest, field: "eventId")
            let batch =
                #"{"reads":[\#(app.readJSON("ok", "2026-05-01T07:00:00Z")),\#(app.readJSON("bad", "2026-05-01T07:00:00Z", zone: "GMT+5"))]}"#
            try await app.send(.post, "/api/v1/reading/reads/batch", json: batch, token: token).expectProblem(
                .badRequest, field: "reads[1].timeZone")
            #expect(try await app.widget(token: token).readToday == false)
            try await app.send(.post, "/api/v1/reading/reads", json: app.readJSON("anon", "2026-05-01T07:00:00Z"))
                .expectProblem(.unauthorized)
            try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("d", "2026-05-01T07:00:00Z"),
                headers: [.init("X-Device-Id")!: "x"]
            ).expectProblem(.badRequest, field: "X-Device-Id")
        }
    }

    @Test func batchesRecordEachReadOnce() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "Europe/Paris")
            app.clock.set(at("2026-05-03T12:00:00Z"))
            let reads = (0..<3).map { app.readJSON("b\($0)", "2026-05-0\($0 + 1)T10:00:00Z", title: "Article \($0)") }
            let body = #"{"reads":[\#(reads.joined(separator: ","))]}"#
            let first = try await app.send(.post, "/api/v1/reading/reads/batch", json: body, token: token)
            #expect(try first.decode(Components.Schemas.ReadBatchResult.self).recorded == 3)
            let again = try await app.send(.post, "/api/v1/reading/reads/batch", json: body, token: token)
                .decode(Components.Schemas.ReadBatchResult.self)
            #expect(again.recorded == 0)
            #expect(again.duplicates == 3)
            let widget = try await app.widget(token: token)
            #expect(widget.state == .notEnrolledWithStreak)
            #expect(widget.streak == 3)
            // Without a query: the reader's own articles, newest first.
            let recent = try await app.send(.get, "/api/v1/reading/articles", token: token)
                .decode(Components.Schemas.ArticleList.self)
            #expect(recent.articles.map(\.title) == ["Article 2", "Article 1", "Article 0"])
            #expect(recent.fromHistory && recent.source == .history)
            #expect(try await app.send(.get, "/api/v1/reading/articles/random", token: token).status == .ok)
        }
    }

    @Test func aLoggedOutDeviceJoinsAndItsReadsMoveToTheAccountOnSignUp() async throws {
        try await Harness.runReading { app in
            let device: HTTPFields = [.init("X-Device-Id")!: "phone-abc-123", .init("X-Time-Zone")!: "Europe/Paris"]
            app.clock.set(at("2026-05-02T10:00:00Z"))
            _ = try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("p1", "2026-05-01T10:00:00Z"), headers: device)
            _ = try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("p2", "2026-05-02T10:00:00Z"), headers: device)
            let anonymous = try await app.widget(headers: device)
            #expect(anonymous.state == .notEnrolledWithStreak)
            #expect(anonymous.ctas.first?.kind == .login)
            let pending = try await app.send(.post, "/api/v1/reading/challenge/join", headers: device)
            #expect(pending.status == .accepted)

            let signUp = try await app.send(
                .post, "/api/v1/auth/signup",
                json:
                    #"{"email":"new@example.com","password":"password123","displayName":"New","timeZone":"Europe/Paris","deviceId":"phone-abc-123"}"#
            )
            let token = try signUp.decode(Components.Schemas.Session.self).token
            let widget = try await app.widget(token: token)
            #expect(widget.state == .streakReadToday)
            #expect(widget.streak == 2)
        }
    }

    @Test func theFunnelIsForAdminsOnly() async throws {
        try await Harness.runReading { app in
            let (admin, _) = try await app.signUpAdministrator("admin@example.com", timeZone: "UTC")
            let (reader, _) = try await app.signUp("reader@example.com", timeZone: "UTC")
            _ = try await app.widget(token: reader)
            _ = try await app.send(.post, "/api/v1/reading/challenge/join", token: reader)
            _ = try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("f1", "2026-05-01T07:00:00Z", zone: "UTC"),
                token: reader)
            try await app.send(.get, "/api/v1/admin/reading/funnel?campaign=2026", token: reader).expectProblem(
                .forbidden)
            try await app.send(.get, "/api/v1/admin/reading/funnel?campaign=2026").expectProblem(.unauthorized)
            try await app.send(.get, "/api/v1/admin/reading/funnel?campaign=nope", token: admin).expectProblem(
                .notFound)
            let funnel = try await app.send(.get, "/api/v1/admin/reading/funnel?campaign=2026", token: admin)
            let steps = try funnel.decode(Components.Schemas.Funnel.self).steps
            #expect(
                steps.map(\.event) == [
                    "reading_widget_impression", "reading_challenge_join", "reading_first_read",
                    "reading_streak_7", "reading_challenge_complete", "reading_prize_claim",
                ])
            #expect(steps.map(\.members) == [1, 1, 1, 0, 0, 0])

            let campaign =
                #"{"id":"autumn","startDay":"2026-10-01","endDay":"2026-10-31","goalDays":20,"claimUntilDay":"2026-11-30","removeAfterDay":"2026-11-30","freezes":1}"#
            try await app.send(.put, "/api/v1/admin/campaigns/autumn", json: campaign, token: reader).expectProblem(
                .forbidden)
            #expect(
                try await app.send(.put, "/api/v1/admin/campaigns/autumn", json: campaign, token: admin).status == .ok)
            let bad = campaign.replacingOccurrences(of: #""goalDays":20"#, with: #""goalDays":99"#)
            try await app.send(.put, "/api/v1/admin/campaigns/autumn", json: bad, token: admin).expectProblem(
                .badRequest, field: "goalDays")
            let list = try await app.send(.get, "/api/v1/reading/campaigns").decode(Campaigns.self).campaigns
            #expect(Set(list.map(\.id)) == ["2026", "autumn"])
        }
    }
}
