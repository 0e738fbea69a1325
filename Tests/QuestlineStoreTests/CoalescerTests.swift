import Foundation
import QuestlineCore
import QuestlineTestSupport
import SQLKit
import Testing

@testable import QuestlineStore

private let t0 = Date(timeIntervalSince1970: 1_778_400_000)  // 2026-05-10

/// Reads sent at the same time share transactions (`Coalescer.groupCommit`); each caller must still get
/// exactly its own outcome, as if the requests had been written one after the other.
@Suite struct CoalescerTests {
    @Test(arguments: TestDatabase.available)
    func concurrentReadsEachGetTheirOwnOutcomeAndTheSummaryAddsUp(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let owners = (0..<8).map { ReadOwner.device("group-device-\($0)") }
            // 200 requests over 8 owners; every event id is sent twice, by two requests racing.
            let requests: [(ReadOwner, [NewRead])] = (0..<200).map { n in
                let owner = owners[n % owners.count]
                let reads = (0..<3).map { r in
                    NewRead(
                        eventID: "e\(n / 16)-\(r)", articleID: "A_\(r)", title: "A \(r)", language: "en", at: t0,
                        timeZone: "UTC",
                        localDay: LocalDay(iso: "2026-05-\(10 + r)")!, thumbnailURL: nil)
                }
                return (owner, reads)
            }
            let outcomes = try await withThrowingTaskGroup(of: (Int, Set<String>).self) { group in
                for (index, (owner, reads)) in requests.enumerated() {
                    group.addTask {
                        (index, try await store.reading.record(reads, owner: owner, now: t0, scope: .system).eventIDs)
                    }
                }
                return try await group.reduce(into: [Int: Set<String>]()) { $0[$1.0] = $1.1 }
            }
            // Each (owner, event id) was recorded by exactly one request.
            var recordedBy: [String: Int] = [:]
            for (index, recorded) in outcomes {
                for id in recorded { recordedBy["\(requests[index].0.key)|\(id)", default: 0] += 1 }
            }
            let distinct = Set(requests.flatMap { owner, reads in reads.map { "\(owner.key)|\($0.eventID)" } })
            #expect(recordedBy.count == distinct.count && recordedBy.values.allSatisfy { $0 == 1 })
            // The per-day summary counts every recorded read once.
            let (events, summed) = try await store.database.withConnection { db in
                (
                    try await db.raw("SELECT COUNT(*) AS n FROM reading_events").first()!.decode(
                        column: "n", as: Int.self),
                    try await db.raw("SELECT CAST(SUM(reads) AS BIGINT) AS n FROM reading_days").first()!.decode(
                        column: "n", as: Int.self)
                )
            }
            #expect(events == distinct.count && summed == distinct.count)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aFailingItemFailsOnlyItsOwnCaller(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            try await store.database.withConnection { db in
                try await db.raw("CREATE TABLE group_items (n BIGINT PRIMARY KEY)").run()
            }
            let commit = Coalescer<Int, Int>.groupCommit(store.database, maxItems: 16) { db, items in
                for item in items {
                    guard item != 13 else { throw CancellationError() }  // one bad item
                    try await db.raw("INSERT INTO group_items (n) VALUES (\(bind: item))").run()
                }
                return items
            }
            let results = await withTaskGroup(of: (Int, Bool).self) { group in
                for n in 0..<50 { group.addTask { (n, (try? await commit.submit(n)) != nil) } }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results.filter { !$0.value }.map(\.key) == [13])
            let stored = try await store.database.withConnection { db in
                try await db.raw("SELECT n FROM group_items ORDER BY n").all().map {
                    try $0.decode(column: "n", as: Int.self)
                }
            }
            #expect(stored == (0..<50).filter { $0 != 13 })
        }
    }
}
