import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineServer
import QuestlineStore
import SQLKit
import Testing

@testable import QuestlineFeatures

/// Buffered analytics (what `serve` uses): recording an event is an append; a background
/// flusher writes whole batches, a flush writes the rest, every event once; a backlog past
/// `maxPending` holds the recording request back. Unbuffered, each event is written at once.
@Suite struct AnalyticsBufferTests {
    private func withStore(_ body: (Store) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "questline-analytics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: dir.appendingPathComponent("t.sqlite").path))
        do { try await body(store) } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    private func buffer(_ store: Store, batchSize: Int = 500, maxPending: Int = 20_000) -> AnalyticsBuffer {
        AnalyticsBuffer(
            store: store.reading, executor: store.database.writerExecutor, buffered: true,
            batchSize: batchSize, maxPending: maxPending)
    }

    private func event(_ n: Int) -> AnalyticsEvent {
        AnalyticsEvent(
            id: "event-\(n)", subject: "subject-\(n)", name: "reading_widget_impression", campaign: "c",
            properties: ["state": "notEnrolled"], at: Date(timeIntervalSince1970: 1_778_400_000))
    }

    /// Rows written, and distinct ids among them (a double write must show).
    private func stored(_ store: Store) async throws -> (rows: Int, ids: Int) {
        try await store.database.withConnection { db in
            let row = try await db.raw("SELECT COUNT(*) AS n, COUNT(DISTINCT id) AS d FROM analytics_events").first()!
            return (try row.decode(column: "n", as: Int.self), try row.decode(column: "d", as: Int.self))
        }
    }

    @Test func theFlusherWritesWholeBatchesAndAFlushTheRestEachOnce() async throws {
        try await withStore { store in
            let buffer = buffer(store)
            for n in 0..<499 { try await buffer.add(event(n)) }
            await buffer.untilIdle()
            #expect(try await stored(store).rows == 0)
            #expect(buffer.pendingCount == 499)
            try await buffer.add(event(499))  // a whole batch: the flusher starts, the add does not wait for it
            await buffer.untilIdle()
            #expect(try await stored(store).rows == 500)
            for n in 500..<503 { try await buffer.add(event(n)) }
            await buffer.flush()
            await buffer.flush()  // nothing left: writes nothing again
            let written = try await stored(store)
            #expect(written.rows == 503 && written.ids == 503)
            #expect(buffer.pendingCount == 0)
        }
    }

    @Test func eventsAddedConcurrentlyWithRunningFlushesAreEachWrittenOnce() async throws {
        try await withStore { store in
            let buffer = buffer(store, batchSize: 64, maxPending: 256)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<40 {
                    group.addTask { for n in 0..<50 { try await buffer.add(event(task * 50 + n)) } }
                }
                group.addTask { for _ in 0..<5 { await buffer.flush() } }
                try await group.waitForAll()
            }
            await buffer.flush()
            let written = try await stored(store)
            #expect(written.rows == 2_000 && written.ids == 2_000)
        }
    }

    /// With the writer held up (a transaction holds SQLite's write lock), the flusher takes one
    /// batch and waits; recording goes on until `maxPending` events wait, and the next one is
    /// held back until the writer moves again. Nothing is lost.
    @Test func aBacklogPastTheLimitHoldsTheRecordingRequestBack() async throws {
        try await withStore { store in
            let buffer = buffer(store, batchSize: 10, maxPending: 30)
            let (holding, holdingContinuation) = AsyncStream<Void>.makeStream()
            let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
            let writer = Task {
                try await store.database.transaction(.system) { _ in
                    holdingContinuation.yield()
                    for await _ in release { break }
                }
            }
            for await _ in holding { break }
            let added = NIOLockedValueBox(0)
            let adder = Task {
                for n in 0..<100 {
                    try await buffer.add(event(n))
                    added.withLockedValue { $0 += 1 }
                }
            }
            // The flusher holds 10 events; 31 wait, the 31st over the limit: 40 adds returned.
            for _ in 0..<1_000 where buffer.pendingCount < 31 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(buffer.pendingCount == 31)
            try await Task.sleep(for: .milliseconds(200))
            #expect(added.withLockedValue { $0 } == 40)
            releaseContinuation.yield()
            try await writer.value
            try await adder.value
            await buffer.flush()
            let written = try await stored(store)
            #expect(written.rows == 100 && written.ids == 100)
        }
    }

    @Test func unbufferedEventsAreWrittenAtOnce() async throws {
        try await withStore { store in
            let buffer = AnalyticsBuffer(store: store.reading, executor: nil, buffered: false)
            try await buffer.add(event(1))
            #expect(try await stored(store).rows == 1)
        }
    }

    /// A server that opened its own store closes it after the last flush: events recorded just
    /// before it stops are in the database afterwards.
    @Test func eventsWaitingWhenTheServerStopsAreWrittenBeforeTheStoreCloses() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.sqlite").path
        var configuration = Harness.configuration(clock: ManualClock(Harness.start))
        configuration.store = .sqlite(path: path)
        configuration.port = 0
        configuration.features.bufferAnalytics = true
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = try await buildApplication(configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            for n in 0..<3 {
                let response = try await client.execute(
                    uri: "/api/v1/reading/events", method: .post,
                    headers: [.contentType: "application/json", .init("X-Device-Id")!: "device-stop-\(n)"],
                    body: ByteBuffer(string: #"{"name":"reading_share"}"#))
                #expect(response.status == .noContent)
            }
        }
        let store = try await Store.open(.sqlite(path: path))
        let written = try await stored(store)
        await store.shutdown()
        #expect(written.rows == 3)
    }
}
