import Foundation
import HTTPTypes
import QuestlineCore
import QuestlineTestSupport
import SnapshotTesting
import Testing

/// Whole-response snapshots (status, content type, the HTML) of the screens most likely to
/// regress: the quest board, the device page, the reading page with its widget, a game
/// question and the Activity tab, each on a pinned clock with fixed data. What differs from
/// run to run (generated ids, form tokens, the machine's list of time zones) is replaced by a
/// placeholder; everything else must match `__Snapshots__/PageSnapshotTests/` byte for byte.
/// A deliberate change of a screen is recorded again with `SNAPSHOT_TESTING_RECORD=failed`.
@Suite struct PageSnapshotTests {
    private func page(_ app: Harness, _ path: String, token: String) async throws -> String {
        let reply = try await app.send(.get, path, headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
        return Self.normalized(
            "\(reply.status.code) \(reply.headers[.contentType] ?? "")\n\n\(reply.text)")
    }

    /// The response with what changes between runs replaced by placeholders.
    static func normalized(_ text: String) -> String {
        var text = text
        let rules: [(String, String)] = [
            (#"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#, "<uuid>"),
            (#"name="_csrf" value="[^"]*""#, #"name="_csrf" value="<token>""#),
            (#"<meta name="csrf-token" content="[^"]*""#, #"<meta name="csrf-token" content="<token>""#),
            (#"<datalist id="time-zones">.*?</datalist>"#, #"<datalist id="time-zones"><zones></datalist>"#),
        ]
        for (pattern, replacement) in rules {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    @Test func theQuestBoardAndTheDevicePage() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400, on: [.sqlite]) { app in
            let quests = QuestAPITests()
            let f = try await quests.familyWithDailyQuest(app)
            let rules = try await app.send(
                .put, "/api/v1/children/\(f.childID)/shield-rules",
                json: #"{"rewardDays":[1,2,3,4,5,6,7],"downtime":{"start":21,"end":7}}"#, token: f.guardian)
            #expect(rules.status == .ok)
            let usage = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("u1", "khan", "2026-05-07T08:00:00Z", 600)]), token: f.child)
            #expect(usage.status == .ok, "\(usage.text)")

            let board = try await page(app, "/quests", token: f.child)
            assertSnapshot(of: board, as: .lines, named: "board")
            let device = try await page(app, "/quests/children/\(f.childID)/device", token: f.guardian)
            assertSnapshot(of: device, as: .lines, named: "device")
        }
    }

    @Test func theReadingPageWithItsWidget() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("ada@example.com", name: "Ada", timeZone: "Europe/Paris")
            #expect(try await app.send(.post, "/api/v1/reading/challenge/join", token: token).status == .ok)
            try await app.readDaily(token: token, from: "2026-05-01", days: 3)
            let reading = try await page(app, "/reading", token: token)
            assertSnapshot(of: reading, as: .lines, named: "reading")
        }
    }

    @Test func aGameQuestion() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 86_400, on: [.sqlite]) { app in
            let (token, _) = try await app.signUp("ada@example.com", name: "Ada", timeZone: "UTC")
            let started = try await app.send(
                .post, "/game/start",
                headers: [.cookie: "ql_session=\(token)", .contentType: "application/x-www-form-urlencoded"],
                bodyText: "language=en")
            let play = try #require(started.headers[.location])
            let question = try await page(app, play, token: token)
            assertSnapshot(of: question, as: .lines, named: "question")
        }
    }

    @Test func theActivityTab() async throws {
        try await Harness.run(sessionLifetime: 90 * 86_400, on: [.sqlite]) { app in
            let (token, _) = try await app.signUp("ada@example.com", name: "Ada", timeZone: "UTC")
            let intervals =
                #"{"intervals":[{"eventId":"t1","start":"2026-05-07T08:00:00Z","end":"2026-05-07T08:10:00Z","timeZone":"UTC"},{"eventId":"t2","start":"2026-05-06T08:00:00Z","end":"2026-05-06T08:25:00Z","timeZone":"UTC"}]}"#
            #expect(
                try await app.send(.post, "/api/v1/activity/reading-time", json: intervals, token: token).status == .ok)
            for title in ["Octopus", "Lighthouse"] {
                let saved = try await app.send(
                    .post, "/api/v1/saved", json: #"{"language":"en","title":"\#(title)"}"#, token: token)
                #expect(saved.status.code < 300, "\(saved.text)")
            }
            let activity = try await page(app, "/activity", token: token)
            assertSnapshot(of: activity, as: .lines, named: "activity")
        }
    }
}
