import Foundation
import QuestlineCore
import QuestlineTestSupport
import SQLKit
import Testing

@testable import QuestlineStore

private let t0 = Date(timeIntervalSince1970: 1_778_400_000)  // 2026-05-10
private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
extension Date { fileprivate var storedMillisForTests: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) } }

private func read(_ id: String, _ localDay: String, title: String = "Octopus") -> NewRead {
    NewRead(
        eventID: id, articleID: title.replacingOccurrences(of: " ", with: "_"), title: title, language: "en", at: t0,
        timeZone: "UTC", localDay: day(localDay), thumbnailURL: nil)
}

private func member(_ store: Store) async throws -> MemberID {
    let id = MemberID(UUID())
    _ = try await store.accounts.createMember(
        NewMember(
            id: id, email: "\(id.rawValue)@example.com", username: nil, passwordHash: "h",
            displayName: "R", timeZone: TimeZoneID("UTC")!), now: t0, scope: .system)
    return id
}

@Suite struct ReadingStoreTests {
    @Test(arguments: TestDatabase.available)
    func aReadThatCompletesTheCampaignRecordsTheCompletionInItsTransaction(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let campaign = Campaign(
                id: "may", startDay: day("2026-05-01"), endDay: day("2026-05-31"), goalDays: 3,
                claimUntilDay: day("2026-06-30"), removeAfterDay: day("2026-06-30"), title: "May")
            try await store.reading.saveCampaign(campaign, replace: true, now: t0, scope: .system)
            let ada = try await member(store)
            let check = CompletionCheck(
                member: ada, campaign: campaign, today: day("2026-05-10"), badge: .verbatim("Completed: May"))
            // Not enrolled: reads count, nothing completes.
            let before = try await store.reading.record(
                [read("a", "2026-05-07"), read("b", "2026-05-08")], owner: .member(ada), now: t0, completion: check,
                scope: .system)
            #expect(before.completedOn == nil)
            _ = try await store.reading.join(ada, campaign: "may", day: day("2026-05-08"), now: t0, scope: .system)
            // The third day in a row reaches the goal: completion and badge come with the read.
            let third = try await store.reading.record(
                [read("c", "2026-05-09")], owner: .member(ada), now: t0, completion: check, scope: .system)
            #expect(third.completedOn == day("2026-05-09"))
            #expect(try await store.reading.enrollment(ada, campaign: "may")?.completedOn == day("2026-05-09"))
            #expect(try await store.reading.badges(ada).map(\.title) == [Message.verbatim("Completed: May").stored])
            // A retry, and a later day, complete nothing again.
            let retry = try await store.reading.record(
                [read("c", "2026-05-09"), read("d", "2026-05-10")], owner: .member(ada), now: t0, completion: check,
                scope: .system)
            #expect(retry.completedOn == nil && retry.eventIDs == ["d"])
            #expect(try await store.reading.badges(ada).count == 1)
        }
    }

    @Test(arguments: TestDatabase.available)
    func readsAreRecordedOnceAndSummarisedPerDay(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            let first = try await store.reading.record(
                [read("a", "2026-05-08"), read("b", "2026-05-08"), read("c", "2026-05-09")],
                owner: .member(ada), now: t0, scope: .system)
            #expect(
                first
                    == RecordedReads(
                        eventIDs: ["a", "b", "c"], newDays: [day("2026-05-08"), day("2026-05-09")], changedFacts: true))
            let retry = try await store.reading.record(
                [read("a", "2026-05-08"), read("d", "2026-05-10")], owner: .member(ada), now: t0, scope: .system)
            #expect(retry == RecordedReads(eventIDs: ["d"], newDays: [day("2026-05-10")], changedFacts: true))
            let sameDay = try await store.reading.record(
                [read("e", "2026-05-10")], owner: .member(ada), now: t0, scope: .system)
            // A second read on a day already read changes no widget fact; the third makes it a
            // repair day (`StreakAllowances.repairReads`), which does; a fourth, nothing again.
            #expect(sameDay == RecordedReads(eventIDs: ["e"], newDays: []))
            let third = try await store.reading.record(
                [read("f", "2026-05-10")], owner: .member(ada), now: t0, scope: .system)
            #expect(third == RecordedReads(eventIDs: ["f"], newDays: [], changedFacts: true))
            let fourth = try await store.reading.record(
                [read("g", "2026-05-10")], owner: .member(ada), now: t0, scope: .system)
            #expect(fourth == RecordedReads(eventIDs: ["g"], newDays: []))
            #expect(
                try await store.reading.readDays(.member(ada), from: day("2026-05-01"), through: day("2026-05-31"))
                    == [day("2026-05-08"), day("2026-05-09"), day("2026-05-10")])
            #expect(
                try await store.reading.readDays(.member(ada), from: day("2026-05-09"), through: day("2026-05-09")) == [
                    day("2026-05-09")
                ])
            // Event ids are per owner: another reader's "a" is another read.
            #expect(
                try await store.reading.record(
                    [read("a", "2026-05-08")], owner: .device("device-123"), now: t0, scope: .system
                )
                .eventIDs == ["a"])
        }
    }

    /// A large batch with a duplicate of an earlier read and one of its own: the returned rows
    /// are read back only then, and say exactly which reads were new.
    @Test(arguments: TestDatabase.available)
    func aLargeBatchWithDuplicatesRecordsEachNewReadOnce(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            _ = try await store.reading.record(
                [read("old-1", "2026-05-01"), read("old-2", "2026-05-02")], owner: .member(ada), now: t0, scope: .system
            )
            var reads = (0..<3_400).map { read("new-\($0)", "2026-05-\(String(format: "%02d", 3 + $0 % 5))") }
            reads.insert(read("old-2", "2026-05-02"), at: 3_100)  // recorded before
            reads.insert(read("new-7", "2026-05-05"), at: 3_200)  // sent twice in this very batch
            let recorded = try await store.reading.record(reads, owner: .member(ada), now: t0, scope: .system)
            #expect(recorded.eventIDs == Set((0..<3_400).map { "new-\($0)" }))
            #expect(recorded.newDays == Set((3...7).map { day("2026-05-0\($0)") }))
            let (events, summed) = try await store.database.withConnection { db in
                (
                    try await db.raw("SELECT COUNT(*) AS n FROM reading_events").first()!.decode(
                        column: "n", as: Int.self),
                    try await db.raw("SELECT CAST(SUM(reads) AS BIGINT) AS n FROM reading_days").first()!.decode(
                        column: "n", as: Int.self)
                )
            }
            #expect(events == 3_402 && summed == 3_402)
        }
    }

    /// Reads reach the table as JSON rows: text that JSON escapes, a missing thumbnail and the
    /// instants come back exactly as sent.
    @Test(arguments: TestDatabase.available)
    func readsWithAnyTextAreStoredExactly(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            let title = "Ünïcödé \"quoted\" back\\slash\nline 🐙 \u{1}\u{7f} end"
            let at = Date(timeIntervalSince1970: 1_778_400_123.456)
            let reads = [
                NewRead(
                    eventID: "odd \"id\"", articleID: "Octo/pus?x=1&y='2'", title: title, language: "de", at: at,
                    timeZone: "Europe/Berlin", localDay: day("2026-05-10"),
                    thumbnailURL: "https://example.com/a b\"c.jpg"),
                NewRead(
                    eventID: "plain", articleID: "Plain", title: "Plain", language: "en", at: t0, timeZone: "UTC",
                    localDay: day("2026-05-09"), thumbnailURL: nil),
            ]
            #expect(
                try await store.reading.record(reads, owner: .member(ada), now: t0, scope: .system).eventIDs == [
                    "odd \"id\"", "plain",
                ])
            let stored = try await store.database.withConnection { db in
                try await db.raw(
                    """
                    SELECT event_id, article_id, title, language, read_at, time_zone, local_day, thumbnail_url, recorded_at
                    FROM reading_events ORDER BY event_id
                    """
                ).all()
            }
            #expect(stored.count == 2)
            let odd = try #require(stored.first)
            #expect(try odd.decode(column: "event_id", as: String.self) == "odd \"id\"")
            #expect(try odd.decode(column: "article_id", as: String.self) == "Octo/pus?x=1&y='2'")
            #expect(try odd.decode(column: "title", as: String.self) == title)
            #expect(try odd.decode(column: "language", as: String.self) == "de")
            #expect(try odd.decode(column: "read_at", as: Int64.self) == 1_778_400_123_456)
            #expect(try odd.decode(column: "time_zone", as: String.self) == "Europe/Berlin")
            #expect(try odd.decode(column: "local_day", as: String.self) == "2026-05-10")
            #expect(try odd.decode(column: "thumbnail_url", as: String?.self) == "https://example.com/a b\"c.jpg")
            #expect(try odd.decode(column: "recorded_at", as: Int64.self) == t0.storedMillisForTests)
            #expect(try stored[1].decode(column: "thumbnail_url", as: String?.self) == nil)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aDevicesReadsAndPendingJoinMoveToTheMember(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            _ = try await store.reading.record(
                [read("x", "2026-05-08"), read("shared", "2026-05-09")], owner: .device("phone-0001"), now: t0,
                scope: .system)
            _ = try await store.reading.record(
                [read("shared", "2026-05-09"), read("y", "2026-05-10")], owner: .member(ada), now: t0, scope: .system)
            try await store.reading.addPendingJoin(device: "phone-0001", campaign: "2026", now: t0, scope: .system)
            #expect(try await store.reading.hasPendingJoin(device: "phone-0001", campaign: "2026"))
            #expect(try await store.reading.adoptDevice("phone-0001", member: ada, scope: .system) == ["2026"])
            #expect(
                try await store.reading.readDays(.member(ada), from: day("2026-05-01"), through: day("2026-05-31"))
                    == [day("2026-05-08"), day("2026-05-09"), day("2026-05-10")])
            #expect(
                try await store.reading.readDays(
                    .device("phone-0001"), from: day("2026-05-01"), through: day("2026-05-31")
                ).isEmpty)
            #expect(try await store.reading.adoptDevice("phone-0001", member: ada, scope: .system).isEmpty)
            #expect(try await store.reading.seenArticles(.member(ada), matching: "OCTO", limit: 10).count == 1)
        }
    }

    @Test(arguments: TestDatabase.available)
    func joinCompletionBadgeAndClaimHappenOnce(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            let (joined, created) = try await store.reading.join(
                ada, campaign: "2026", day: day("2026-05-02"), now: t0, scope: .system)
            #expect(created)
            let (again, createdAgain) = try await store.reading.join(
                ada, campaign: "2026", day: day("2026-05-05"), now: t0 + 60, scope: .system)
            #expect(!createdAgain)
            #expect(again.joinDay == joined.joinDay)
            #expect(try await !store.reading.claim(ada, campaign: "2026", now: t0, scope: .system))  // not completed
            #expect(
                try await store.reading.recordCompletion(
                    ada, campaign: "2026", day: day("2026-05-26"), badgeTitle: "Completed", now: t0, scope: .system))
            #expect(
                try await !store.reading.recordCompletion(
                    ada, campaign: "2026", day: day("2026-05-28"), badgeTitle: "Completed", now: t0, scope: .system))
            #expect(try await store.reading.enrollment(ada, campaign: "2026")?.completedOn == day("2026-05-26"))
            #expect(try await store.reading.badges(ada).map(\.id) == ["reading-challenge-2026"])
            #expect(try await store.reading.claim(ada, campaign: "2026", now: t0 + 10, scope: .system))
            #expect(try await !store.reading.claim(ada, campaign: "2026", now: t0 + 20, scope: .system))
            #expect(try await store.reading.enrollment(ada, campaign: "2026")?.claimedAt == t0 + 10)
        }
    }

    @Test(arguments: TestDatabase.available)
    func campaignsAndFunnelCounts(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let may = Campaign(
                id: "2026", startDay: day("2026-05-01"), endDay: day("2026-05-31"), goalDays: 25,
                claimUntilDay: day("2026-07-10"), removeAfterDay: day("2026-07-10"))
            try await store.reading.saveCampaign(may, replace: false, now: t0, scope: .system)
            var changed = may
            changed.goalDays = 20
            try await store.reading.saveCampaign(changed, replace: false, now: t0, scope: .system)
            #expect(try await store.reading.campaigns() == [may])
            try await store.reading.saveCampaign(changed, replace: true, now: t0, scope: .system)
            #expect(try await store.reading.campaigns() == [changed])
            try await store.reading.trackBatch(
                ["a", "a", "b", "c"].enumerated().map { index, subject in
                    AnalyticsEvent(
                        id: "i\(index)", subject: subject, name: "reading_widget_impression", campaign: "2026",
                        properties: ["surface": "api", "state": "notEnrolled"], at: t0)
                } + [
                    AnalyticsEvent(
                        id: "j1", subject: "a", name: "reading_challenge_join", campaign: "2026", properties: [:],
                        at: t0)
                ])
            let counts = try await store.reading.distinctSubjects(campaign: "2026")
            #expect(counts["reading_widget_impression"] == 3)
            #expect(counts["reading_challenge_join"] == 1)
            #expect(try await store.reading.hasEvent(subject: "a", name: "reading_challenge_join", campaign: "2026"))
            // Properties are stored as JSON with sorted keys (the measurement plan's schema).
            let stored = try await store.database.withConnection { db in
                try await db.raw("SELECT id, properties FROM analytics_events WHERE id IN ('i0', 'j1') ORDER BY id")
                    .all()
                    .map { try $0.decode(column: "properties", as: String.self) }
            }
            #expect(stored == [#"{"state":"notEnrolled","surface":"api"}"#, "{}"])
            // More than one statement's worth (500 rows) in one call: every event once.
            try await store.reading.trackBatch(
                (0..<1_201).map {
                    AnalyticsEvent(
                        id: "many-\($0)", subject: "s\($0 % 7)", name: "reading_share", campaign: "2026",
                        properties: [:], at: t0)
                })
            #expect(try await store.reading.distinctSubjects(campaign: "2026")["reading_share"] == 7)
            let shares = try await store.database.withConnection { db in
                try await db.raw("SELECT COUNT(*) AS n FROM analytics_events WHERE name = 'reading_share'").first()!
                    .decode(column: "n", as: Int.self)
            }
            #expect(shares == 1_201)
        }
    }

    /// Widgets asked for at the same time are looked up together (`Coalescer`): each caller must
    /// get exactly what a lookup of its own would return (its member, campaign and range only).
    @Test(arguments: TestDatabase.available)
    func widgetFactsAskedTogetherEachGetTheirOwn(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            var members: [MemberID] = []
            for n in 0..<6 {
                let id = try await member(store)
                members.append(id)
                let reads = (0..<(n * 3)).map {
                    read("r\($0)", "2026-05-\(String(format: "%02d", 1 + ($0 * 7 + n) % 28))")
                }
                _ = try await store.reading.record(reads, owner: .member(id), now: t0, scope: .system)
                if n % 2 == 0 {
                    _ = try await store.reading.join(
                        id, campaign: "A", day: day("2026-05-0\(n + 1)"), now: t0, scope: .system)
                }
                if n % 3 == 0 {
                    _ = try await store.reading.join(
                        id, campaign: "B", day: day("2026-05-1\(n)"), now: t0 + 5, scope: .system)
                }
            }
            let asks = (0..<120).map { k in
                (
                    members[k % 6], k % 4 == 0 ? "B" : "A", day("2026-05-\(String(format: "%02d", 1 + k % 9))"),
                    day("2026-05-\(10 + k % 19)")
                )
            }
            let answers = try await withThrowingTaskGroup(of: (Int, Enrollment?, Set<LocalDay>).self) { group in
                for (index, ask) in asks.enumerated() {
                    group.addTask {
                        let facts = try await store.reading.widgetFacts(
                            ask.0, campaign: ask.1, from: ask.2, through: ask.3)
                        return (index, facts.enrollment, facts.days)
                    }
                }
                return try await group.reduce(into: [Int: (Enrollment?, Set<LocalDay>)]()) { $0[$1.0] = ($1.1, $1.2) }
            }
            for (index, ask) in asks.enumerated() {
                let enrollment = try await store.reading.enrollment(ask.0, campaign: ask.1)
                let days = try await store.reading.readDays(.member(ask.0), from: ask.2, through: ask.3)
                #expect(answers[index]?.0 == enrollment, "ask \(index)")
                #expect(answers[index]?.1 == days, "ask \(index)")
            }
            #expect(answers.values.contains { !$0.1.isEmpty } && answers.values.contains { $0.0 != nil })
        }
    }
}
