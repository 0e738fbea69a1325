import Foundation
import Logging
import NIOConcurrencyHelpers
import QuestlineStore
public import ServiceLifecycle

/// Analytics events on their way to the store.
///
/// Buffered (what `serve` uses), recording an event is an append: no request waits for
/// analytics to be written. One flusher at a time writes them, 500 to a transaction, on the
/// store's writer executor (SQLite's writer thread): it starts when 500 events wait, and
/// `AnalyticsFlushService` writes the rest every second and once more when the server stops.
/// A crash loses at most the events not yet written (about a second's worth), which analytics
/// can afford and reads and points never do (those are written before the response).
///
/// Why not in the request: a widget view that found 500 events waiting used to write them
/// itself, and its neighbours on the event loop waited for the statement to be built, which
/// made the widget's slowest answers many times its usual ones (docs/performance.md).
///
/// The backlog is bounded: past `maxPending` events (the writer far behind), a request that
/// records one more waits until the flusher has caught up, rather than memory growing.
///
/// Unbuffered (tests, tools), each event is written at once. A lock, not an actor: adding is
/// an append, and every widget view adds.
final class AnalyticsBuffer: Sendable {
    private struct State {
        var pending: [AnalyticsEvent] = []
        var flushing = false
        /// `flush()` callers waiting for the flusher under way to stop.
        var waitingForIdle: [CheckedContinuation<Void, Never>] = []
        /// `add` callers waiting for the backlog to fall to `maxPending`.
        var waitingForRoom: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())
    private let store: ReadingStore
    private let executor: (any TaskExecutor)?
    let buffered: Bool
    let batchSize: Int
    let maxPending: Int
    private let logger = Logger(label: "questline.analytics")

    /// `executor`: where the flusher runs (the store's writer executor).
    init(
        store: ReadingStore, executor: (any TaskExecutor)?, buffered: Bool, batchSize: Int = 500,
        maxPending: Int = 20_000
    ) {
        precondition(batchSize > 0 && maxPending >= batchSize)
        self.store = store
        self.executor = executor
        self.buffered = buffered
        self.batchSize = batchSize
        self.maxPending = maxPending
    }

    func add(_ event: AnalyticsEvent) async throws {
        guard buffered else { return try await store.trackBatch([event]) }
        let (startFlusher, overfull) = state.withLockedValue { state -> (Bool, Bool) in
            state.pending.append(event)
            let start = !state.flushing && state.pending.count >= batchSize
            if start { state.flushing = true }
            return (start, state.pending.count > maxPending)
        }
        if startFlusher {
            Task(executorPreference: executor) { await self.drain(everything: false) }
        }
        if overfull {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let room = state.withLockedValue { state -> Bool in
                    guard state.pending.count > maxPending else { return true }
                    state.waitingForRoom.append(continuation)
                    return false
                }
                if room { continuation.resume() }
            }
        }
    }

    /// Writes everything pending (after any flush under way), and returns when it is written.
    func flush() async {
        while true {
            let mine = state.withLockedValue { state -> Bool in
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            if mine {
                await withTaskExecutorPreference(executor) { await drain(everything: true) }
                return
            }
            await untilIdle()
        }
    }

    /// Returns when no flush is under way (at once if none is).
    func untilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLockedValue { state -> Bool in
                guard state.flushing else { return true }
                state.waitingForIdle.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    var pendingCount: Int { state.withLockedValue { $0.pending.count } }

    /// The flusher (its caller set `flushing`): writes a batch at a time while a whole batch
    /// waits, or while anything does when `everything`. It stops in the same critical section
    /// that finds too little to write, so an event added meanwhile either is taken by this
    /// flusher or sees it stopped and starts the next.
    private func drain(everything: Bool) async {
        while true {
            let (batch, wake) = state.withLockedValue { state in
                var batch: [AnalyticsEvent] = []
                var wake: [CheckedContinuation<Void, Never>] = []
                if state.pending.count >= (everything ? 1 : batchSize) {
                    batch = Array(state.pending.prefix(batchSize))
                    state.pending.removeFirst(batch.count)
                } else {
                    state.flushing = false
                    swap(&wake, &state.waitingForIdle)
                }
                if state.pending.count <= maxPending {
                    wake += state.waitingForRoom
                    state.waitingForRoom = []
                }
                return (batch, wake)
            }
            for continuation in wake { continuation.resume() }
            if batch.isEmpty { return }
            do { try await store.trackBatch(batch) } catch {
                logger.error("Analytics events lost", metadata: ["count": "\(batch.count)", "error": "\(error)"])
            }
        }
    }
}

/// Flushes the analytics buffer every second, and once more when the server stops.
public struct AnalyticsFlushService: Service {
    let buffer: AnalyticsBuffer

    public func run() async throws {
        while Task.serviceGoesOn {
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
