import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import Testing

private typealias GameDay = Components.Schemas.GameDay
private typealias Session = Components.Schemas.GameSessionView
private typealias Answer = Components.Schemas.GameAnswerResult

/// Feeds for the tests, at the network boundary: the trimmed 30 October feed for most days,
/// a one-event feed for 21 February, and an unreachable feed service for 1 April.
final class FixtureFeeds: FeedFetching {
    private let calls = NIOLockedValueBox(0)
    private let replacement = NIOLockedValueBox<OnThisDayFeed?>(nil)
    let standard: OnThisDayFeed

    init() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../QuestlineCoreTests/Fixtures/onthisday-10-30-trimmed.json")
        standard = try OnThisDayFeed.decode(Data(contentsOf: url))
    }

    var callCount: Int { calls.withLockedValue { $0 } }
    func replaceFeed(with feed: OnThisDayFeed) { replacement.withLockedValue { $0 = feed } }

    func fetch(language: GameLanguage, month: Int, day: Int) async throws -> FeedFetchResult {
        calls.withLockedValue { $0 += 1 }
        switch (month, day) {
        case (2, 21): return .feed(OnThisDayFeed(events: [.init(text: "Verdun begins.", year: 1916)]))
        case (4, 1): throw DomainError.unavailable(Message("game.error.feedUnreachable"))
        case (5, 20): return .noData
        default: return .feed(replacement.withLockedValue { $0 } ?? standard)
        }
    }
}

extension Harness {
    static func runGame(feeds: FixtureFeeds, _ body: @Sendable (Harness) async throws -> Void) async throws {
        try await run(feedFetcher: feeds, sessionLifetime: 30 * 86_400, body)
    }

    func answer(_ session: String, _ index: Int, _ choice: String, token: String) async throws -> Reply {
        try await send(
            .post, "/api/v1/game/sessions/\(session)/answers",
            json: #"{"questionIndex":\#(index),"choice":"\#(choice)"}"#, token: token)
    }

    /// Plays a whole game choosing `first` every time; returns the session id.
    @discardableResult
    func playWholeGame(token: String, date: String? = nil) async throws -> String {
        let start = try await send(
            .post, "/api/v1/game/sessions", json: date.map { #"{"date":"\#($0)"}"# } ?? "{}", token: token)
        #expect(start.status == .created || start.status == .ok, "\(start.text)")
        let id = try start.string("id")
        for index in 0..<5 { _ = try await answer(id, index, "first", token: token) }
        return id
    }
}

@Suite struct GameAPITests {
    @Test func playTodaysGameFromStartToResults() async throws {
        let feeds = try FixtureFeeds()
        try await Harness.runGame(feeds: feeds) { app in
            let fetchedBefore = feeds.callCount  // the fixture is shared by the run on each database
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let today = try await app.send(.get, "/api/v1/game/today", token: token)
            #expect(today.status == .ok)
            let day = try today.decode(GameDay.self)
            #expect(day.date == "2026-05-07")
            #expect(day.status == .available)
            #expect(day.session == nil)

            let start = try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: token)
            #expect(start.status == .created)
            let game = try start.decode(Session.self)
            let id = game.id
            #expect(game.questions.count == 5)
            let firstCard = game.questions[0].first
            #expect(firstCard.year == nil)  // no peeking before answering
            #expect(!firstCard.text.isEmpty)

            // Resuming gives the same game.
            let resumed = try await app.send(.post, "/api/v1/game/sessions", json: #"{"language":"en"}"#, token: token)
            #expect(resumed.status == .ok)
            #expect(try resumed.decode(Session.self).id == id)

            try await app.answer(id, 1, "first", token: token).expectProblem(.conflict, field: "questionIndex")
            let answered = try await app.answer(id, 0, "second", token: token)
            #expect(answered.status == .ok, "\(answered.text)")
            let result = try answered.decode(Answer.self)
            #expect(result.correct == (result.secondYear < result.firstYear))
            #expect(result.correctChoice == (result.firstYear < result.secondYear ? .first : .second))
            // A retry returns the first result; changing the answer is refused.
            let retry = try await app.answer(id, 0, "second", token: token)
            #expect(try retry.decode(Answer.self).correct == result.correct)
            try await app.answer(id, 0, "first", token: token).expectProblem(.conflict, field: "questionIndex")

            // Leave and come back: the game resumes at question 2.
            let view = try await app.send(.get, "/api/v1/game/sessions/\(id)", token: token)
            let viewed = try view.decode(Session.self)
            #expect(viewed.currentQuestion == 1)
            #expect(viewed.questions[0].first.year == result.firstYear)
            let summary = try await app.send(.get, "/api/v1/game/today", token: token).decode(GameDay.self).session
            #expect(summary?.answered == 1)
            #expect(summary?.completed == false)

            var last: Answer?
            for index in 1..<5 { last = try await app.answer(id, index, "first", token: token).decode(Answer.self) }
            let final = try #require(last)
            #expect(final.completed)
            try await app.answer(id, 4, final.choice == .first ? "second" : "first", token: token)
                .expectProblem(.conflict, field: "questionIndex")

            let stats = try await app.send(.get, "/api/v1/game/stats", token: token)
            let figures = try stats.decode(Components.Schemas.GameStats.self)
            #expect(figures.played == 1)
            #expect(figures.averageScore == Double(final.score))
            #expect(figures.currentStreak == 1)
            #expect(feeds.callCount == fetchedBefore + 1)
        }
    }

    @Test func everyoneGetsTheSameQuestionsFixedAtStart() async throws {
        let feeds = try FixtureFeeds()
        try await Harness.runGame(feeds: feeds) { app in
            let fetchedBefore = feeds.callCount  // the fixture is shared by the run on each database
            let (ada, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let (bob, _) = try await app.signUp("bob@example.com", timeZone: "Europe/Berlin")
            let adaGame = try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: ada)
            let bobGame = try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: bob)
            let texts = { (reply: Reply) in try reply.decode(Session.self).questions.map(\.first.text) }
            #expect(try texts(adaGame) == texts(bobGame))
            #expect(feeds.callCount == fetchedBefore + 1)  // one fetch, then the cache

            // A later edit of the feed changes nobody's game in progress.
            feeds.replaceFeed(
                with: OnThisDayFeed(events: [.init(text: "New A.", year: 1500), .init(text: "New B.", year: 1900)]))
            app.clock.advance(by: 21 * 3600)  // past the cache refresh, still 7 May in UTC until 24:00
            let id = try adaGame.string("id")
            let again = try await app.send(.get, "/api/v1/game/sessions/\(id)", token: ada)
            #expect(try texts(again) == texts(adaGame))
        }
    }

    @Test func theDayRollsOverAtEachMembersLocalMidnight() async throws {
        try await Harness.runGame(feeds: try FixtureFeeds()) { app in
            let (kolkata, _) = try await app.signUp("k@example.com", timeZone: "Asia/Kolkata")
            let (losAngeles, _) = try await app.signUp("la@example.com", timeZone: "America/Los_Angeles")
            app.clock.set(try Date("2026-05-07T18:29:00Z", strategy: .iso8601))  // 23:59 in Kolkata, 11:29 in LA
            #expect(
                try await app.send(.get, "/api/v1/game/today", token: kolkata).decode(GameDay.self).date == "2026-05-07"
            )
            #expect(
                try await app.send(.get, "/api/v1/game/today", token: losAngeles).decode(GameDay.self).date
                    == "2026-05-07")
            app.clock.set(try Date("2026-05-07T18:31:00Z", strategy: .iso8601))  // 00:01 on the 8th in Kolkata
            #expect(
                try await app.send(.get, "/api/v1/game/today", token: kolkata).decode(GameDay.self).date == "2026-05-08"
            )
            #expect(
                try await app.send(.get, "/api/v1/game/today", token: losAngeles).decode(GameDay.self).date
                    == "2026-05-07")
            app.clock.set(try Date("2026-05-08T07:00:00Z", strategy: .iso8601))  // 00:00 on the 8th in LA (PDT, UTC-7)
            #expect(
                try await app.send(.get, "/api/v1/game/today", token: losAngeles).decode(GameDay.self).date
                    == "2026-05-08")
            // The 8th is a new game: different seed, so a different first question.
            let eighth = try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: losAngeles)
            #expect(try eighth.decode(Session.self).date == "2026-05-08")
        }
    }

    @Test func archiveDatesArePlayableOnceAndStatsDoNotLetThemFillGaps() async throws {
        try await Harness.runGame(feeds: try FixtureFeeds()) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            try await app.playWholeGame(token: token)  // 7 May, on its day
            app.clock.advance(by: 2 * 86_400)  // 9 May: the 8th was missed
            try await app.playWholeGame(token: token)  // 9 May, on its day
            let archived = try await app.playWholeGame(token: token, date: "2026-05-08")  // the gap, from the archive
            let view = try await app.send(.get, "/api/v1/game/sessions/\(archived)", token: token)
            #expect(try view.decode(Session.self).fromArchive)
            // Played once: starting it again resumes the finished game.
            let again = try await app.send(
                .post, "/api/v1/game/sessions", json: #"{"date":"2026-05-08"}"#, token: token)
            #expect(again.status == .ok)
            #expect(try again.decode(Session.self).completed)

            let stats = try await app.send(.get, "/api/v1/game/stats", token: token)
                .decode(Components.Schemas.GameStats.self)
            #expect(stats.played == 3)
            #expect(stats.currentStreak == 1)
            #expect(stats.bestStreak == 1)

            let archive = try await app.send(.get, "/api/v1/game/archive?month=2026-05", token: token)
            let days = try archive.decode(Components.Schemas.GameArchive.self).days
            #expect(days.count == 31)
            let status = { (date: String) in days.first { $0.date == date }?.status }
            #expect(status("2026-05-07") == .played)
            #expect(status("2026-05-08") == .played)
            #expect(status("2026-05-09") == .played)
            #expect(status("2026-05-06") == .open)
            #expect(status("2026-05-10") == .future)
            #expect(days.first { $0.date == "2026-05-07" }?.score != nil)
        }
    }

    @Test func badDatesLanguagesAndForeignSessionsAreRefused() async throws {
        try await Harness.runGame(feeds: try FixtureFeeds()) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let (other, _) = try await app.signUp("eve@example.com", timeZone: "UTC")
            try await app.send(.post, "/api/v1/game/sessions", json: #"{"date":"2026-05-08"}"#, token: token)
                .expectProblem(.badRequest, field: "date")
            try await app.send(.post, "/api/v1/game/sessions", json: #"{"date":"2025-01-01"}"#, token: token)
                .expectProblem(.badRequest, field: "date")
            try await app.send(.post, "/api/v1/game/sessions", json: #"{"date":"07/05/2026"}"#, token: token)
                .expectProblem(.badRequest, field: "date")
            try await app.send(.post, "/api/v1/game/sessions", json: #"{"language":"xx"}"#, token: token).expectProblem(
                .badRequest, field: "language")
            try await app.send(.get, "/api/v1/game/today?language=klingon", token: token).expectProblem(
                .badRequest, field: "language")
            try await app.send(.get, "/api/v1/game/archive?month=2026-13", token: token).expectProblem(
                .badRequest, field: "month")
            try await app.send(.get, "/api/v1/game/today").expectProblem(.unauthorized)

            let id = try await app.playWholeGame(token: token)
            try await app.send(.get, "/api/v1/game/sessions/\(id)", token: other).expectProblem(.notFound)
            try await app.answer(id, 0, "first", token: other).expectProblem(.notFound)
            try await app.send(.get, "/api/v1/game/sessions/\(UUID().uuidString)", token: token).expectProblem(
                .notFound)
            try await app.answer(id, 0, "neither", token: token).expectProblem(.badRequest, field: "choice")
            try await app.answer(id, 9, "first", token: token).expectProblem(.badRequest, field: "questionIndex")
        }
    }

    @Test func daysWithoutAGameSaySoClearly() async throws {
        try await Harness.runGame(feeds: try FixtureFeeds()) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            app.clock.set(try Date("2026-02-21T12:00:00Z", strategy: .iso8601))  // a one-event feed
            let few = try await app.send(.get, "/api/v1/game/today", token: token)
            let fewDay = try few.decode(GameDay.self)
            #expect(fewDay.status == .notEnoughEvents)
            #expect(fewDay.message?.contains("isn't available") == true)
            try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: token).expectProblem(.notFound)

            app.clock.set(try Date("2026-04-01T12:00:00Z", strategy: .iso8601))  // feed unreachable, nothing cached
            let down = try await app.send(.get, "/api/v1/game/today", token: token)
            #expect(down.status == .ok)
            #expect(try down.decode(GameDay.self).status == .feedUnavailable)
            let refused = try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: token)
            refused.expectProblem(.serviceUnavailable)
            #expect(refused.headers[.retryAfter] != nil)

            app.clock.set(try Date("2026-05-20T12:00:00Z", strategy: .iso8601))  // 404 from the wiki: no data
            #expect(
                try await app.send(.get, "/api/v1/game/today", token: token).decode(GameDay.self).status
                    == .notEnoughEvents)
        }
    }
}

@Suite struct WikimediaFeedClientTests {
    /// A stand-in for the Wikimedia REST API on a local port: real HTTP, real client.
    @Test func fetchesParsesAndMapsStatuses() async throws {
        let seen = NIOLockedValueBox<[String: String]>([:])
        let router = Router()
        router.get("/api/rest_v1/feed/onthisday/events/:month/:day") { request, context -> Response in
            seen.withLockedValue {
                $0["ua"] = request.headers[.userAgent]
                $0["lang"] = request.headers[.acceptLanguage] ?? ""
            }
            switch (context.parameters.get("month"), context.parameters.get("day")) {
            case ("2", "21"):
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(
                        byteBuffer: ByteBuffer(
                            string:
                                #"{"events":[{"text":"Verdun begins.","year":1916,"pages":[{"titles":{"normalized":"Battle of Verdun"},"thumbnail":{"source":"https://img/v.jpg"}}]}]}"#
                        )))
            case ("2", "22"): return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "{not json")))
            case ("2", "23"): return Response(status: .notImplemented)
            case ("2", "24"): return Response(status: .internalServerError)
            default: return Response(status: .notFound)
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let feeds = WikimediaFeedClient(
                template: "http://127.0.0.1:\(port)/api/rest_v1/feed/onthisday/events/{month}/{day}",
                timeout: .seconds(5))
            let result = try await feeds.fetch(language: .english, month: 2, day: 21)
            guard case .feed(let feed) = result else {
                Issue.record("expected a feed, got \(result)")
                return
            }
            #expect(feed.events.first?.pages.first?.title == "Battle of Verdun")
            #expect(feed.events.first?.imageURL == "https://img/v.jpg")
            #expect(seen.withLockedValue { $0["ua"] }?.hasPrefix("Questline/") == true)

            _ = try await feeds.fetch(language: try GameLanguage("zh-hant"), month: 2, day: 21)
            #expect(seen.withLockedValue { $0["lang"] } == "zh-hant")

            #expect(try await feeds.fetch(language: .english, month: 3, day: 3) == .noData)
            for day in [22, 23, 24] {
                await #expect(throws: DomainError.self) {
                    try await feeds.fetch(language: .english, month: 2, day: day)
                }
            }
            let unreachable = WikimediaFeedClient(template: "http://127.0.0.1:1/{month}/{day}", timeout: .seconds(2))
            await #expect(throws: DomainError.self) {
                try await unreachable.fetch(language: .english, month: 2, day: 21)
            }
        }
    }
}
