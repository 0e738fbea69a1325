import Foundation
import HTTPTypes
import Logging
import QuestlineAPI
import QuestlineCore
import QuestlineL10n
import QuestlineStore
import QuestlineTestSupport
import Testing

@testable import QuestlineFeatures
@testable import QuestlineServer

/// The rules a kept answer rests on (`KeptAnswers`), each alone.
@Suite struct KeptAnswersRulesTests {
    @Test func anAnswerComputedBeforeAForgettingIsNotKept() {
        let kept = KeptAnswers<String, Int>(capacity: 10)
        let early = kept.ticket()
        kept.forget(["ada"])
        kept.keep(1, for: "ada", ticket: early)
        #expect(kept.answer("ada") == nil)
        // Another key's forgetting does not refuse it; a ticket taken after does not either.
        kept.keep(2, for: "grace", ticket: early)
        #expect(kept.answer("grace") == 2)
        kept.keep(3, for: "ada", ticket: kept.ticket())
        #expect(kept.answer("ada") == 3)
        kept.forget(["ada"])
        #expect(kept.answer("ada") == nil)
    }

    @Test func forgettingEverythingRefusesWhatWasUnderWay() {
        let kept = KeptAnswers<String, Int>(capacity: 10)
        kept.keep(1, for: "ada", ticket: kept.ticket())
        let early = kept.ticket()
        kept.forgetAll()
        #expect(kept.answer("ada") == nil)
        kept.keep(2, for: "grace", ticket: early)
        #expect(kept.answer("grace") == nil)
    }

    @Test func itKeepsAtMostItsCapacity() {
        let kept = KeptAnswers<Int, Int>(capacity: 64)
        for key in 0..<1_000 { kept.keep(key, for: key, ticket: kept.ticket()) }
        #expect(kept.count <= 64)
        #expect(kept.answer(999) == 999)
        let none = KeptAnswers<Int, Int>(capacity: 0)
        none.keep(1, for: 1, ticket: none.ticket())
        #expect(none.answer(1) == nil)
    }
}

/// A kept widget is always the one computed fresh: random reads, joins, claims, rest days,
/// pauses, zone changes and clock moves (across midnights and the DST change of 2026-10-25 in
/// Europe), sent to either of two instances (PostgreSQL; SQLite is served by one); after every
/// step each member's widget, asked of each instance, equals the one a cold feature computes
/// from the database.
@Suite struct KeptWidgetPropertyTests {
    private static func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    @Test func aKeptWidgetIsAlwaysTheFreshOne() async throws {
        try await Harness.run(sessionLifetime: 400 * 86_400) { app in
            app.clock.set(Self.at("2026-10-20T08:00:00Z"))
            let autumn =
                #"{"id":"kept","startDay":"2026-10-21","endDay":"2026-11-06","goalDays":5,"claimUntilDay":"2026-11-20","removeAfterDay":"2026-11-30","freezes":1}"#
            let (admin, _) = try await app.signUpAdministrator("admin@example.com")
            let saved = try await app.send(.put, "/api/v1/admin/campaigns/kept", json: autumn, token: admin)
            #expect(saved.status == .ok, "\(saved.text)")
            var members: [(token: String, id: MemberID)] = []
            for (index, zone) in ["Europe/Berlin", "America/New_York", "Pacific/Auckland"].enumerated() {
                let (token, id) = try await app.signUp("kept\(index)@example.com", timeZone: zone)
                members.append((token, MemberID(id)!))
            }
            let everyone = members
            try await Self.onTwoInstances(app) { other in try await Self.steps(everyone, app: app, other: other) }
        }
    }

    /// Runs `body` with the instance that is `app`'s other: on PostgreSQL a second one on the same
    /// database, both listening to the notification channel; on SQLite, which one instance
    /// serves, `app` itself.
    static func onTwoInstances(_ app: Harness, _ body: @Sendable (Harness) async throws -> Void) async throws {
        guard app.database == .postgres else { return try await body(app) }
        try await SharedLimitTests().withSecondInstance(app, rateLimits: .off) { other in
            let listeners = [app, other].map { instance in
                Task {
                    await instance.store.live.listen(logger: Logger(label: "test"), reconnected: {}, deliver: { _ in })
                }
            }
            defer { for listener in listeners { listener.cancel() } }
            try await untilListening([app, other])
            try await body(other)
        }
    }

    private static func steps(_ members: [(token: String, id: MemberID)], app: Harness, other: Harness) async throws {
        var random = SeededGenerator(seed: 51)
        let zones = ["Europe/Berlin", "America/New_York", "Pacific/Auckland", "Europe/Lisbon", "Asia/Tokyo"]
        for step in 0..<70 {
            let instance = Bool.random(using: &random) ? app : other
            let member = members[Int.random(in: 0..<members.count, using: &random)]
            let now = app.clock.now()
            var action = ""
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                let instant = ISO8601DateFormatter().string(from: now.addingTimeInterval(-60))
                let title = ["Octopus", "Moon", "Tea"][Int.random(in: 0..<3, using: &random)]
                action = "read \(title)"
                _ = try await instance.send(
                    .post, "/api/v1/reading/reads",
                    json:
                        #"{"eventId":"e\#(step)","articleId":"\#(title)","title":"\#(title)","language":"en","at":"\#(instant)","timeZone":"UTC"}"#,
                    token: member.token)
            case 3:
                action = "join"
                _ = try await instance.send(.post, "/api/v1/reading/challenge/join", token: member.token)
            case 4:
                action = "claim"
                _ = try await instance.send(.post, "/api/v1/reading/challenge/claim", token: member.token)
            case 5:
                let weekdays = (1...7).filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
                action = "rest days \(weekdays)"
                _ = try await instance.send(
                    .put, "/api/v1/me/streak/rest-days", json: #"{"weekdays":\#(weekdays)}"#,
                    token: member.token)
            case 6:
                let start = LocalDay(now, in: TimeZone(identifier: "UTC")!).adding(days: 1)
                action = "pause"
                _ = try await instance.send(
                    .post, "/api/v1/me/streak/pause",
                    json: #"{"start":"\#(start.iso)","end":"\#(start.adding(days: 2).iso)"}"#,
                    token: member.token)
            case 7:
                let zone = zones[Int.random(in: 0..<zones.count, using: &random)]
                action = "zone \(zone)"
                _ = try await instance.send(
                    .patch, "/api/v1/me", json: #"{"timeZone":"\#(zone)"}"#, token: member.token)
            default:
                let hours = Int.random(in: 1...14, using: &random)
                action = "clock +\(hours) h"
                app.clock.set(now.addingTimeInterval(TimeInterval(hours * 3600)))
            }
            for (index, each) in members.enumerated() {
                for (name, asked) in [("first", app), ("second", other)] {
                    try await Self.expectFresh(
                        asked, each, app: app, "step \(step) (\(action)), member \(index), \(name) instance")
                }
            }
        }
    }

    /// The member's widget asked of `asked` equals the one a cold feature computes. Another
    /// instance hears of a write once its notification arrives (PostgreSQL, a few milliseconds
    /// after the commit): it is asked again for up to two seconds before that counts as a
    /// difference.
    private static func expectFresh(
        _ asked: Harness, _ member: (token: String, id: MemberID), app: Harness, _ label: String
    ) async throws {
        var configuration = FeatureConfiguration(clock: app.clock)
        configuration.keptWidgets = 0
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            let record = try #require(try await app.store.accounts.member(member.id))
            let fresh = try await ReadingFeature(store: app.store, configuration: configuration).widget(
                for: ReaderIdentity(record), impression: false)
            let reply = try await asked.send(.get, "/api/v1/reading/widget", token: member.token)
            let answered = reply.status == .ok ? try reply.decode(Components.Schemas.Widget.self) : nil
            let expected = fresh.map { Components.Schemas.Widget($0, localizer: Localizer(.english)) }
            if answered == expected { return }
            if ContinuousClock.now > deadline {
                Issue.record("\(label): answered \(reply.text), fresh \(String(describing: expected))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until both instances listen (PostgreSQL), so that none keeps an answer unheard.
    private static func untilListening(_ instances: [Harness]) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !instances.allSatisfy({ $0.store.live.mayKeepAnswers }) {
            guard ContinuousClock.now < deadline else {
                Issue.record("the instances never listened")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
