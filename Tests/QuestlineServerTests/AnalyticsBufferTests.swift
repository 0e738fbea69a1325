import Foundation
import QuestlineStore
import SQLKit
@testable import QuestlineServer
import Testing

/// Buffered analytics (what `serve` uses): nothing is written until 500 events wait or a flush
/// comes; then every event is written once. Unbuffered, each event is written at once.
@Suite struct AnalyticsBufferTests {
    private func withStore(_ body: (Store) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-analytics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: dir.appendingPathComponent("t.sqlite").path))
        do { try await body(store) } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    private func event(_ n: Int) -> AnalyticsBuffer.Event {
        (id: "event-\(n)", subject: "subject-\(n)", name: "reading_widget_impression", campaign: "c", properties: "{}",
         at: Date(timeIntervalSince1970: 1_778_400_000))
    }

    /// Rows written (not distinct subjects: a double write must show).
    private func stored(_ store: Store) async throws -> Int {
        try await store.database.withConnection { db in
            try await db.raw("SELECT COUNT(*) AS n FROM analytics_events").first()!.decode(column: "n", as: Int.self)
        }
    }

    @Test func bufferedEventsAreWrittenAtFiveHundredOrOnFlushEachOnce() async throws {
        try await withStore { store in
            let buffer = AnalyticsBuffer(store: store.reading, buffered: true)
            for n in 0..<(AnalyticsBuffer.flushSize - 1) { try await buffer.add(event(n)) }
            #expect(try await stored(store) == 0)
            try await buffer.add(event(AnalyticsBuffer.flushSize - 1))
            #expect(try await stored(store) == AnalyticsBuffer.flushSize)
            for n in AnalyticsBuffer.flushSize..<(AnalyticsBuffer.flushSize + 3) { try await buffer.add(event(n)) }
            await buffer.flush()
            await buffer.flush() // nothing left: writes nothing again
            #expect(try await stored(store) == AnalyticsBuffer.flushSize + 3)
        }
    }

    @Test func unbufferedEventsAreWrittenAtOnce() async throws {
        try await withStore { store in
            let buffer = AnalyticsBuffer(store: store.reading, buffered: false)
            try await buffer.add(event(1))
            #expect(try await stored(store) == 1)
        }
    }
}
