import Foundation
import Logging
import NIOConcurrencyHelpers
import QuestlineStore
import ServiceLifecycle

/// Analytics events on their way to the store. Buffered, they are written in one statement
/// every second (or every 500 events) instead of one write transaction per widget view; a
/// crash loses at most that second of events, which analytics can afford and reads and points
/// never do (those are written before the response). Unbuffered (tests, tools), each event is
/// written at once. A lock, not an actor: adding is an append, and every widget view adds.
final class AnalyticsBuffer: Sendable {
    typealias Event = (id: String, subject: String, name: String, campaign: String?, properties: String, at: Date)
    private let pending = NIOLockedValueBox<[Event]>([])
    private let store: ReadingStore
    let buffered: Bool
    private let logger = Logger(label: "questline.analytics")
    static let flushSize = 500

    init(store: ReadingStore, buffered: Bool) {
        self.store = store
        self.buffered = buffered
    }

    func add(_ event: Event) async throws {
        guard buffered else { return try await store.trackBatch([event]) }
        pending.withLockedValue { $0.append(event) }
        if let full = take(atLeast: Self.flushSize) { await write(full) }
    }

    func flush() async {
        if let batch = take(atLeast: 1) { await write(batch) }
    }

    /// Everything pending, emptying the buffer, when at least `count` events are.
    private func take(atLeast count: Int) -> [Event]? {
        pending.withLockedValue { pending in
            guard pending.count >= count else { return nil }
            defer { pending = [] }
            return pending
        }
    }

    private func write(_ batch: [Event]) async {
        do { try await store.trackBatch(batch) } catch {
            logger.error("Analytics events lost", metadata: ["count": "\(batch.count)", "error": "\(error)"])
        }
    }
}

/// Flushes the analytics buffer every second, and once more when the server stops.
struct AnalyticsFlushService: Service {
    let buffer: AnalyticsBuffer

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .seconds(1))
            await buffer.flush()
        }
        await buffer.flush()
    }
}

/// Milestones (first read, 7-day streak) this process has seen recorded, so a read does not
/// query for them again. A miss falls back to the database; the set is bounded.
final class MilestoneMemo: Sendable {
    private let seen = NIOLockedValueBox<Set<String>>([])

    func contains(_ key: String) -> Bool { seen.withLockedValue { $0.contains(key) } }

    func insert(_ key: String) {
        seen.withLockedValue { seen in
            if seen.count > 200_000 { seen.removeAll(keepingCapacity: true) }
            seen.insert(key)
        }
    }
}
