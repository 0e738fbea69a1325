import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import QuestlineAPI
import QuestlineClient
import QuestlineCore
import QuestlineFeatures
import QuestlineKit
import QuestlineL10n
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// QuestlineKit against the real server on a port, through AsyncHTTPClient's transport (what a
/// device on Linux uses), on SQLite and PostgreSQL.
@Suite struct KitServerTests {
    struct Family {
        let url: URL
        let guardian: QuestlineSession
        let child: QuestlineSession
        let childID: String
        let householdID: String
        let directory: URL
    }

    /// A server with the demo reading campaign, a guardian and a child with a learning app, a
    /// reward app and a daily quest that unlocks it.
    static func withFamily(_ body: @Sendable (Family) async throws -> Void) async throws {
        for database in TestDatabase.available {
            try await database.withStore { store in
                var logger = Logger(label: "kit-test")
                logger.logLevel = .warning
                let configuration = AppConfiguration(
                    hostname: "127.0.0.1", port: 0, store: .sqlite(path: ":unused:"), bcryptCost: 4, logLevel: .warning,
                    feedFetcher: nil, demoCampaign: true, rateLimits: .off)
                let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
                try await app.test(.live) { testClient in
                    let url = URL(string: "http://127.0.0.1:\(try #require(testClient.port))")!
                    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                        "questline-kit-\(UUID().uuidString)")
                    defer { try? FileManager.default.removeItem(at: directory) }
                    let transport = AsyncHTTPClientTransport()
                    let guardian = try await QuestlineSession(
                        serverURL: url, transport: transport, tokens: MemoryTokenStore())
                    try await guardian.signUp(
                        email: "kit-guardian@example.com", password: "password123", displayName: "Guardian",
                        timeZone: Self.zone)
                    let household = try await guardian.client.createHousehold(body: .json(.init(name: "Kit")))
                        .created.body.json
                    let child = try await guardian.client.createChild(
                        path: .init(householdId: household.id),
                        body: .json(.init(username: "kitkid", password: "password123", displayName: "Kid"))
                    ).created.body.json
                    let path = Operations.putQuestApp.Input.Path.self
                    _ = try await guardian.client.putQuestApp(
                        path: path.init(childId: child.id, appToken: "learn"),
                        body: .json(.init(name: "Learn", role: .learning, pointsPerMinute: 2)))
                    _ = try await guardian.client.putQuestApp(
                        path: path.init(childId: child.id, appToken: "game"),
                        body: .json(.init(name: "Game", role: .reward)))
                    _ = try await guardian.client.createQuest(
                        path: .init(childId: child.id),
                        body: .json(
                            .init(
                                title: "Five a day", goalType: "dailyMinutes", target: 5,
                                rewardApps: [.init(appToken: "game", minutes: 15)])))
                    let childSession = try await QuestlineSession(
                        serverURL: url, transport: transport,
                        tokens: FileTokenStore(url: directory.appendingPathComponent("token")))
                    try await childSession.logIn(login: "kitkid", password: "password123")
                    // Shut down as the server does on SIGTERM: draining ends the live streams first.
                    defer { configuration.readiness.startDraining() }
                    try await body(
                        Family(
                            url: url, guardian: guardian, child: childSession, childID: child.id,
                            householdID: household.id, directory: directory))
                }
            }
        }
    }

    /// A fixed-offset zone where it is about midday now. These tests run against the real
    /// clock (the device's side has no injected one), so reports made "minutes ago" must not
    /// straddle a local midnight, whenever the suite runs (they did in Berlin's first 20
    /// minutes of the day).
    static let zone: String = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let offset = max(-12, min(14, 12 - calendar.component(.hour, from: Date())))
        return offset == 0 ? "UTC" : "Etc/GMT" + (offset > 0 ? "-" : "+") + String(abs(offset))
    }()

    static func report(_ id: String, app: String = "learn", endingAgo seconds: Double, duration: Int)
        -> OutboxItem
    {
        .usage(
            childID: "",
            report: .init(
                id: id, appToken: app, startedAt: Date().addingTimeInterval(-seconds - Double(duration)),
                durationSeconds: duration, timeZone: Self.zone))
    }

    @Test func theOutboxSendsInBatchesDropsOnlyTheRefusedReportAndSendsNothingTwice() async throws {
        try await Self.withFamily { family in
            let outbox = try Outbox(directory: family.directory.appendingPathComponent("outbox"))
            func usage(_ id: String, _ duration: Int, ago: Double) -> OutboxItem {
                guard case .usage(_, let report) = Self.report(id, endingAgo: ago, duration: duration) else {
                    fatalError()
                }
                return .usage(childID: family.childID, report: report)
            }
            try await outbox.enqueue(contentsOf: [
                (usage("a", 240, ago: 900), nil), (usage("bad", -5, ago: 600), nil), (usage("b", 180, ago: 300), nil),
            ])
            try await outbox.enqueue(
                .timeRequest(childID: family.childID, appToken: "game", minutes: 10, note: "Please"), key: "ask-1")
            let sender = OutboxSender(outbox: outbox, session: family.child)
            #expect(await sender.sendPass() == .drained)
            let tally = await outbox.counts()
            #expect(tally.sent == 3)
            #expect(tally.dropped == 1)
            #expect(tally.drops.first?.key == "bad")
            #expect(tally.drops.first?.reason.hasPrefix("400") == true)

            // The same items again (an app that lost its outbox's done records): nothing doubles.
            let board = try await family.child.client.getQuestBoard(path: .init(childId: family.childID)).ok.body.json
            try await outbox.enqueue(contentsOf: [(usage("a", 240, ago: 900), nil), (usage("b", 180, ago: 300), nil)])
            try await outbox.enqueue(
                .timeRequest(childID: family.childID, appToken: "game", minutes: 10, note: "Please"), key: "ask-1")
            #expect(await sender.sendPass() == .drained)
            let again = try await family.child.client.getQuestBoard(path: .init(childId: family.childID)).ok.body.json
            #expect(again.balance == board.balance)
            #expect(again.learningMinutes == board.learningMinutes)
            #expect(board.learningMinutes == 7)
            let asks = try await family.child.client.listTimeRequests(path: .init(childId: family.childID)).ok.body
                .json
            #expect(asks.count == 1)
        }
    }

    @Test func readsReadingTimeAndSavesGoThroughTheOutboxOnce() async throws {
        try await Self.withFamily { family in
            let outbox = try Outbox(directory: family.directory.appendingPathComponent("reader"))
            let now = Date()
            let items: [(item: OutboxItem, key: String?)] = [
                (
                    .read(
                        .init(
                            eventId: "read-1", articleId: "Octopus", title: "Octopus", language: "en",
                            at: now.addingTimeInterval(-600), timeZone: Self.zone)), nil
                ),
                (
                    .read(
                        .init(
                            eventId: "read-2", articleId: "Squid", title: "Squid", language: "en",
                            at: now.addingTimeInterval(-300), timeZone: Self.zone)), nil
                ),
                (
                    .readingTime(
                        eventID: "time-1", start: now.addingTimeInterval(-600), end: now.addingTimeInterval(-300),
                        timeZone: Self.zone), nil
                ),
                (.save(.init(language: "en", title: "Octopus")), "save-1"),
            ]
            try await outbox.enqueue(contentsOf: items)
            let sender = OutboxSender(outbox: outbox, session: family.guardian)
            #expect(await sender.sendPass() == .drained)
            #expect(await outbox.counts().sent == 4)
            let activity = try await family.guardian.client.getActivity().ok.body.json
            #expect(activity.articlesRead30Days == 2)
            #expect(activity.secondsRead7Days == 300)
            #expect(activity.saved.count == 1)

            // Sent again (the done records lost): the server counts each once.
            try await outbox.enqueue(contentsOf: items)
            #expect(await sender.sendPass() == .drained)
            let again = try await family.guardian.client.getActivity().ok.body.json
            #expect(again.articlesRead30Days == 2)
            #expect(again.secondsRead7Days == 300)
            #expect(again.saved.count == 1)
        }
    }

    /// Four requests for time then some use: the fourth request is refused for a while (429),
    /// and the use still reaches the server in the same pass; the request waits in its own lane.
    @Test func aRefusedRequestHoldsBackNothingElse() async throws {
        try await Self.withFamily { family in
            let outbox = try Outbox(directory: family.directory.appendingPathComponent("lanes"))
            var items: [(item: OutboxItem, key: String?)] = (0..<4).map {
                (.timeRequest(childID: family.childID, appToken: "game", minutes: 10, note: nil), "ask-\($0)")
            }
            guard case .usage(_, let report) = Self.report("after-asks", endingAgo: 120, duration: 300) else { return }
            items.append((.usage(childID: family.childID, report: report), nil))
            try await outbox.enqueue(contentsOf: items)
            let sender = OutboxSender(outbox: outbox, session: family.child)
            let pass = await sender.sendPass()
            guard case .wait(let seconds, let reason) = pass else {
                Issue.record("expected a wait for the held request, got \(pass)")
                return
            }
            #expect(seconds >= 290 && reason.hasPrefix("429"), "\(seconds) \(reason)")
            #expect(await outbox.waiting().map(\.key) == ["ask-3"])
            let board = try await family.child.client.getQuestBoard(path: .init(childId: family.childID)).ok.body.json
            #expect(board.learningMinutes == 5, "the use arrived while the request waits")
        }
    }

    /// Two devices of one child send the same report stamped in different zones: the second is
    /// refused for that report only (409 naming it), which is dropped; the rest of its batch goes.
    @Test func aConflictingReportIsDroppedAloneAndTheRestArrives() async throws {
        try await Self.withFamily { family in
            guard case .usage(_, let first) = Self.report("same-line", endingAgo: 600, duration: 120),
                case .usage(_, let other) = Self.report("other-line", endingAgo: 300, duration: 180)
            else { return }
            let phone = try Outbox(directory: family.directory.appendingPathComponent("phone"))
            try await phone.enqueue(.usage(childID: family.childID, report: first))
            #expect(await OutboxSender(outbox: phone, session: family.child).sendPass() == .drained)

            let tablet = try Outbox(directory: family.directory.appendingPathComponent("tablet"))
            let restamped = Components.Schemas.UsageReport(
                id: first.id, appToken: first.appToken, startedAt: first.startedAt,
                durationSeconds: first.durationSeconds, timeZone: first.timeZone == "UTC" ? "Etc/GMT-1" : "UTC")
            try await tablet.enqueue(contentsOf: [
                (.usage(childID: family.childID, report: restamped), nil),
                (.usage(childID: family.childID, report: other), nil),
            ])
            #expect(await OutboxSender(outbox: tablet, session: family.child).sendPass() == .drained)
            let tally = await tablet.counts()
            #expect(tally.sent == 1 && tally.dropped == 1, "\(tally)")
            #expect(tally.drops.first?.key == "same-line" && tally.drops.first?.reason.hasPrefix("409") == true)
            let board = try await family.child.client.getQuestBoard(path: .init(childId: family.childID)).ok.body.json
            #expect(board.learningMinutes == 5, "2 minutes from the phone and 3 from the tablet")
        }
    }

    /// A damaged token file: the session forgets it and signs in again rather than being
    /// refused forever; the server answers an oversized header with a problem document.
    @Test func aDamagedTokenIsForgottenAndAnOversizedHeaderGetsAProblem() async throws {
        try await Self.withFamily { family in
            let file = family.directory.appendingPathComponent("damaged-token")
            let huge = String(repeating: "x", count: 100_000)
            try FileTokenStore(url: file).save(huge)
            let session = try await QuestlineSession(
                serverURL: family.url, transport: AsyncHTTPClientTransport(), tokens: FileTokenStore(url: file))
            #expect(await session.isSignedIn == false)
            #expect(await session.forgotDamagedToken)
            #expect(try FileTokenStore(url: file).load() == nil)
            try await session.logIn(login: "kitkid", password: "password123")
            #expect(await session.isSignedIn)

            let (response, body) = try await AsyncHTTPClientTransport().send(
                HTTPRequest(
                    method: .get, scheme: nil, authority: nil, path: "/api/v1/me",
                    headerFields: [
                        .authorization: "Bearer \(huge)"
                    ]), body: nil, baseURL: family.url, operationID: "getMe")
            #expect(response.status.code == 431)
            #expect(response.headerFields[.contentType] == "application/problem+json")
            let text = try await String(collecting: try #require(body), upTo: 10_000)
            #expect(text.contains("headers-too-large"), "\(text)")
        }
    }

    @Test func a401StopsTheQueueAndSignsOut() async throws {
        try await Self.withFamily { family in
            let outbox = try Outbox(directory: family.directory.appendingPathComponent("outbox"))
            guard case .usage(_, let report) = Self.report("late", endingAgo: 60, duration: 60) else { return }
            try await outbox.enqueue(.usage(childID: family.childID, report: report))
            // The session ends on the server (another device logged it out).
            let token = try #require(try FileTokenStore(url: family.directory.appendingPathComponent("token")).load())
            let other = try await QuestlineSession(
                serverURL: family.url, transport: AsyncHTTPClientTransport(), tokens: MemoryTokenStore(token: token))
            try await other.logOut()

            let sender = OutboxSender(outbox: outbox, session: family.child)
            #expect(await sender.sendPass() == .signedOut)
            #expect(await family.child.isSignedIn == false)
            #expect(try FileTokenStore(url: family.directory.appendingPathComponent("token")).load() == nil)
            #expect(await outbox.waiting().count == 1)  // kept for after the next sign-in

            try await family.child.logIn(login: "kitkid", password: "password123")
            #expect(await sender.sendPass() == .drained)
            #expect(await outbox.counts().sent == 1)
        }
    }

    @Test func theShieldIsComputedOnTheDeviceAsTheServerComputesIt() async throws {
        try await Self.withFamily { family in
            let keeper = try ShieldKeeper(
                session: family.child, childID: family.childID, directory: family.directory)
            #expect(try await keeper.refresh())
            let before = try #require(await keeper.policy(at: Date()))
            #expect(before.apps.map(\.blocked) == [true])
            #expect(before.apps.first?.reason == .noGrant)
            #expect(try await keeper.refresh() == false)  // 304: unchanged

            // Six learning minutes complete the quest: the reward app unlocks for 15 minutes.
            let outbox = try Outbox(directory: family.directory.appendingPathComponent("outbox"))
            guard case .usage(_, let report) = Self.report("learn-1", endingAgo: 30, duration: 360) else { return }
            try await outbox.enqueue(.usage(childID: family.childID, report: report))
            #expect(await OutboxSender(outbox: outbox, session: family.child).sendPass() == .drained)
            #expect(try await keeper.refresh())

            let now = Date()
            let server = try await family.child.client.getShieldPolicy(path: .init(childId: family.childID)).ok.body
                .json
            let local = try #require(await keeper.policy(at: now))
            #expect(local.apps.map(\.blocked) == server.apps.map(\.blocked))
            #expect(local.apps.map(\.minutesLeft) == server.apps.map(\.minutesLeft))
            #expect(local.apps.first?.unlockedUntil == server.apps.first?.unlockedUntil)
            #expect(local.nextChange == server.nextChange)
            #expect(local.apps.first?.blocked == false)

            // Offline: ten minutes of the game used on the device leave five; twenty leave none.
            let game = { (minutes: Int) in
                UsageRecord(
                    token: "game", start: now.addingTimeInterval(-Double(minutes * 60) + 1), seconds: minutes * 60,
                    zone: TimeZoneID(Self.zone)!)
            }
            let later = now.addingTimeInterval(2)
            #expect(await keeper.policy(at: later, localUse: [game(10)])?.apps.first?.minutesLeft == 5)
            #expect(await keeper.policy(at: later, localUse: [game(20)])?.apps.first?.blocked == true)
            // After the grant's expiry, blocked again without asking the server.
            let expiry = try #require(local.apps.first?.unlockedUntil)
            #expect(await keeper.policy(at: expiry.addingTimeInterval(1))?.apps.first?.blocked == true)

            // The snapshot is kept on disk for the next launch.
            let reopened = try ShieldKeeper(
                session: family.child, childID: family.childID, directory: family.directory)
            #expect(await reopened.snapshot == (await keeper.snapshot))
        }
    }

    @Test func theWidgetTimelineIsTheServersWidgetForEachComingDay() async throws {
        try await Self.withFamily { family in
            let reader = try await QuestlineSession(
                serverURL: family.url, transport: AsyncHTTPClientTransport(), tokens: MemoryTokenStore())
            try await reader.signUp(
                email: "kit-reader@example.com", password: "password123", displayName: "Reader",
                timeZone: "America/New_York")
            _ = try await reader.client.joinChallenge(headers: .init())
            let keeper = try WidgetKeeper(session: reader, directory: family.directory)
            let snapshot = try await keeper.refresh()
            let now = Date()
            let entries = try snapshot.timeline(from: now, days: 3)
            #expect(entries.count == 4)
            let server = try await reader.client.getReadingWidget(headers: .init()).ok.body.json
            #expect(entries[0].model.state.rawValue == server.state.rawValue)
            #expect(entries[0].title == server.copy.title && entries[0].body == server.copy.body)
            #expect(entries[0].model.streak == server.streak)
            // Each later entry starts at a local midnight in the reader's zone.
            let zone = TimeZone(identifier: "America/New_York")!
            for entry in entries.dropFirst() {
                #expect(LocalDay(entry.date, in: zone).start(in: zone) == entry.date)
            }
            // A read made offline today shows as read today, without the server.
            let offline = try snapshot.timeline(from: now, days: 1, localReads: [now.addingTimeInterval(-60)])
            #expect(offline[0].model.readToday)
            #expect(offline[0].model.streak == 1)
            // The widget extension reads the snapshot without a session.
            #expect(WidgetKeeper.saved(in: family.directory) == snapshot)

            // In the reader's language: the server names it, and the timeline the device
            // renders offline says what the server says, in German.
            _ = try await reader.client.updateMe(body: .json(.init(language: "de"))).ok
            let german = try await keeper.refresh()
            #expect(german.language == Language("de"))
            let germanEntries = try german.timeline(from: now, days: 2)
            let serverInGerman = try await reader.client.getReadingWidget(headers: .init()).ok.body.json
            #expect(germanEntries[0].title == serverInGerman.copy.title)
            #expect(germanEntries[0].body == serverInGerman.copy.body)
            #expect(germanEntries[0].title != entries[0].title, "\(germanEntries[0].title)")
        }
    }

    @Test func liveUpdatesArriveAndResumeAfterTheLastEventID() async throws {
        try await Self.withFamily { family in
            let outbox = try Outbox(directory: family.directory.appendingPathComponent("outbox"))
            let sender = OutboxSender(outbox: outbox, session: family.child)
            let live = LiveUpdates(session: family.guardian, householdID: family.householdID)
            var iterator = live.makeAsyncIterator()
            guard case .usage(_, let report) = Self.report("live-1", endingAgo: 30, duration: 120) else { return }
            try await outbox.enqueue(.usage(childID: family.childID, report: report))
            #expect(await sender.sendPass() == .drained)
            let first = try #require(try await iterator.next())
            #expect(first.childId == family.childID)
            let firstID = try #require(first.id)

            // A new sequence from the last id handled gets what came after it, in order.
            guard case .usage(_, let second) = Self.report("live-2", endingAgo: 10, duration: 60) else { return }
            try await outbox.enqueue(.usage(childID: family.childID, report: second))
            #expect(await sender.sendPass() == .drained)
            var resumed = LiveUpdates(
                session: family.guardian, householdID: family.householdID, lastEventID: String(firstID)
            ).makeAsyncIterator()
            let next = try #require(try await resumed.next())
            #expect(try #require(next.id) > firstID)
        }
    }
}
