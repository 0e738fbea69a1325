import Foundation
import NIOConcurrencyHelpers
import QuestlineStore
import ServiceLifecycle

/// Whether this instance should get new traffic: what `/ready` answers. `/health` is liveness
/// only (the process answers); `/ready` also says no while the server drains for a shutdown,
/// while the database lacks migrations this binary needs, or while the database is unreachable.
public final class Readiness: Sendable {
    private let draining = NIOLockedValueBox(false)
    private let drainActions = NIOLockedValueBox<[@Sendable () -> Void]>([])

    public init() {}

    public var isDraining: Bool { draining.withLockedValue { $0 } }

    /// Runs `action` when draining starts (ending the live streams, whose devices then
    /// reconnect to another instance).
    func whenDraining(_ action: @escaping @Sendable () -> Void) {
        drainActions.withLockedValue { $0.append(action) }
    }

    /// From now on `/ready` answers 503: a load balancer stops sending new requests here.
    public func startDraining() {
        draining.withLockedValue { $0 = true }
        for action in drainActions.withLockedValue({ $0 }) { action() }
    }

    /// Why this instance is not ready, or nil when it is.
    func problem(_ store: Store) async -> String? {
        if isDraining { return "draining" }
        do {
            let applied = Set(try await Migrator().appliedVersions(store.database))
            if Migrations.all.contains(where: { !applied.contains($0.version) }) { return "migrations pending" }
        } catch {
            return "database unreachable"
        }
        return nil
    }
}

/// Runs until the graceful shutdown (SIGTERM, SIGINT), then marks the instance as draining and
/// waits `delay` before letting the HTTP server stop: load balancers polling `/ready` see 503
/// and move traffic away while requests in flight still finish. Run it after the application
/// in one service group, so that it is told to shut down first.
public struct DrainService: Service {
    let readiness: Readiness
    let delay: Duration

    public init(readiness: Readiness, delay: Duration) {
        self.readiness = readiness
        self.delay = delay
    }

    public func run() async throws {
        try? await gracefulShutdown()
        readiness.startDraining()
        try? await Task.sleep(for: delay)
    }
}
