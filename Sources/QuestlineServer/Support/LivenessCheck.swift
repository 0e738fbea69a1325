import NIOConcurrencyHelpers
import QuestlineStore

/// `/health`'s database check. A success counts for `maxAge` (one second): probes within it
/// answer from it, so a load balancer polling every instance many times a second costs the
/// database one `SELECT 1` a second, not one per probe. Probes after it ask again (concurrent
/// ones share the question: `Store.ping`); a failure is not kept, so every probe sees an outage
/// at once and the first success after it.
public final class LivenessCheck: Sendable {
    private let store: Store
    private let maxAge: Duration
    private let lastSuccess = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    public init(store: Store, maxAge: Duration = .seconds(1)) {
        self.store = store
        self.maxAge = maxAge
    }

    /// Returns when the database answered within `maxAge`, or now; throws its error otherwise.
    public func check() async throws {
        let now = ContinuousClock.now
        if let last = lastSuccess.withLockedValue({ $0 }), now - last < maxAge { return }
        try await store.ping()
        lastSuccess.withLockedValue { $0 = now }
    }
}
