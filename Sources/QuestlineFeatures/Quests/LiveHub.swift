import Foundation
public import Logging
import NIOConcurrencyHelpers
public import QuestlineCore
public import QuestlineStore

/// What a listening device is told.
public enum LiveUpdate: Sendable, Equatable {
    /// Something changed: re-read what the event's kind names.
    case event(LiveEvent)
    /// Events may have been missed (the client resumed from an id older than the log keeps):
    /// re-read everything.
    case refetch
    /// Nothing happened: the stream is still there (keeps proxies from closing an idle one).
    case keepAlive
}

/// Fans household events out to the pages and devices of that household that listen on this
/// instance (server-sent events).
///
/// Events come from the event log (`LiveEventLog`): on PostgreSQL through the one LISTEN
/// connection of this instance (`run`), which hears the writes of every instance; on SQLite
/// straight after each commit. A device that reconnects with the last id it saw gets what it
/// missed from the log, then the live events, in order and without repeats.
public final class LiveHub: Sendable {
    /// Events waiting for a slow device; past this its stream ends, and it resumes from the log.
    static let buffer = 1_024

    private final class Subscriber: Sendable {
        struct State {
            var catchingUp: Bool
            var pending: [LiveEvent] = []
            var last: Int64
        }

        let household: HouseholdID
        let continuation: AsyncStream<LiveUpdate>.Continuation
        let state: NIOLockedValueBox<State>

        init(household: HouseholdID, continuation: AsyncStream<LiveUpdate>.Continuation, after: Int64?) {
            self.household = household
            self.continuation = continuation
            state = NIOLockedValueBox(State(catchingUp: after != nil, last: after ?? 0))
        }

        /// Sends `update`; a device too slow to keep `buffer` updates is disconnected.
        func send(_ update: LiveUpdate) {
            if case .dropped = continuation.yield(update) { continuation.finish() }
        }

        func offer(_ event: LiveEvent) {
            state.withLockedValue { state in
                if state.catchingUp {
                    state.pending.append(event)
                } else if event.id > state.last {
                    state.last = event.id
                    send(.event(event))
                }
            }
        }

        /// Starts a catch-up: live events wait until `caughtUp`. Returns the last id sent.
        func startCatchUp() -> Int64 {
            state.withLockedValue { state in
                state.catchingUp = true
                return state.last
            }
        }

        func caughtUp(_ missed: [LiveEvent], gap: Bool) {
            state.withLockedValue { state in
                if gap { send(.refetch) }
                for event in (missed + state.pending).sorted(by: { $0.id < $1.id }) where event.id > state.last {
                    state.last = event.id
                    send(.event(event))
                }
                state.pending = []
                state.catchingUp = false
            }
        }
    }

    private let log: LiveEventLog
    /// This instance's listeners by household, so an event reaches its household's streams
    /// without looking at the others' (10,000 streams on one instance: docs/performance.md).
    private let subscribers = NIOLockedValueBox<[String: [UUID: Subscriber]]>([:])
    private let closed = NIOLockedValueBox(false)

    public init(log: LiveEventLog) {
        self.log = log
        if !log.relaysThroughDatabase {
            log.deliverLocally { [weak self] events in
                for event in events { self?.deliver(event) }
            }
        }
    }

    /// The household's updates until the caller stops listening or the server shuts down;
    /// with `after`, the events since that id first.
    public func subscribe(_ household: HouseholdID, after: Int64? = nil) -> AsyncStream<LiveUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: LiveUpdate.self, bufferingPolicy: .bufferingOldest(Self.buffer))
        guard !closed.withLockedValue({ $0 }) else {
            continuation.finish()
            return stream
        }
        let id = UUID()
        let subscriber = Subscriber(household: household, continuation: continuation, after: after)
        let key = household.rawValue
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLockedValue { table in
                table[key]?.removeValue(forKey: id)
                if table[key]?.isEmpty == true { table[key] = nil }
            }
        }
        subscribers.withLockedValue { $0[key, default: [:]][id] = subscriber }
        if let after { catchUp(subscriber, after: after) }
        return stream
    }

    private func catchUp(_ subscriber: Subscriber, after: Int64) {
        let log = log
        Task {
            do {
                let (missed, gap) = try await log.events(of: subscriber.household, after: after)
                subscriber.caughtUp(missed, gap: gap)
            } catch {
                subscriber.caughtUp([], gap: true)
            }
        }
    }

    /// Devices listening now (`questline_live_subscribers`).
    public var subscriberCount: Int { subscribers.withLockedValue { $0.values.reduce(0) { $0 + $1.count } } }

    /// Tells every stream of this instance that it is still open (`LiveUpdate.keepAlive`): one
    /// timer for all of them, not one a stream.
    public func keepAlive() {
        for subscriber in subscribers.withLockedValue({ $0.values.flatMap(\.values) }) { subscriber.send(.keepAlive) }
    }

    /// Hands a committed event to the household's listeners on this instance.
    public func deliver(_ event: LiveEvent) {
        let targets = subscribers.withLockedValue { $0[event.household].map { Array($0.values) } ?? [] }
        for subscriber in targets { subscriber.offer(event) }
    }

    /// Ends every stream and refuses new ones: the server is shutting down, and devices
    /// reconnect to another instance (and resume from the last id they saw).
    public func close() {
        closed.withLockedValue { $0 = true }
        let all = subscribers.withLockedValue { table in
            defer { table = [:] }
            return table.values.flatMap(\.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }

    /// PostgreSQL: listens for every instance's events until cancelled; after a lost listening
    /// connection, each device catches up from the log. Returns at once on SQLite.
    public func run(logger: Logger) async {
        await log.listen(
            logger: logger,
            reconnected: { [weak self] in self?.resync() },
            deliver: { [weak self] event in self?.deliver(event) })
    }

    private func resync() {
        for subscriber in subscribers.withLockedValue({ $0.values.flatMap(\.values) }) {
            catchUp(subscriber, after: subscriber.startCatchUp())
        }
    }
}
