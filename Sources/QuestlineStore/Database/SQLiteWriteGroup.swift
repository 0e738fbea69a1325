import Logging
import NIOConcurrencyHelpers
import SQLKit

/// SQLite's write transactions, one at a time on the writer connection, committed in groups
/// (concurrent reports of the same household settle in one group commit): a
/// transaction that ends while others wait for the writer leaves the transaction open for them
/// and waits; the next one in line runs inside it, under a savepoint of its own, and the last
/// one (no one waiting, or `maxMembers` in the group) commits for all of them. A request is
/// answered only after the commit that holds its write.
///
/// - Alone (nobody waiting), a transaction is exactly BEGIN IMMEDIATE, its statements, COMMIT,
///   in one hop to the writer's thread.
/// - A member after the first runs between `SAVEPOINT` and `RELEASE`; when it fails, `ROLLBACK
///   TO` undoes its writes only, and it gets its error at once. A failure of the group's own
///   statements (BEGIN, a savepoint, COMMIT) rolls everything back and every member waiting for
///   that commit gets the error: none of them was answered, so none of their writes is lost
///   silently (a retry with its idempotency key runs again).
/// - `exclusively` (the checkpoint's last pass) commits an open group before it runs.
///
/// `@unchecked Sendable`: the mutable fields are touched only by the holder of `lock`.
final class SQLiteWriteGroup: @unchecked Sendable {
    static let maxMembers = 32

    private let lock = AsyncLock()
    private let writer: ThreadedSQLiteConnection
    private let logger: Logger
    private var open = false
    private var members = 0
    /// Members whose writes are in the open transaction, waiting for its commit.
    private var waiting: [CheckedContinuation<Void, any Error>] = []
    /// How many transactions committed, and how many members they held (`SQLiteWriteGroupTests`
    /// checks that concurrent writes share commits).
    private let counts = NIOLockedValueBox((commits: 0, members: 0))
    var committed: (commits: Int, members: Int) { counts.withLockedValue { $0 } }

    init(writer: ThreadedSQLiteConnection, logger: Logger) {
        self.writer = writer
        self.logger = logger
    }

    private enum Outcome<T: Sendable>: Sendable {
        case done(T)
        case failed(any Error)
    }

    /// Runs `body` as a member of a write group; returns once its write is committed.
    func transaction<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        await lock.lock()
        let outcome: Outcome<T>
        let closed: Bool
        do {
            (outcome, closed) = try await writer.run { db in
                let first = !open
                if first {
                    try await db.raw("BEGIN IMMEDIATE").run()
                    open = true
                    members = 0
                }
                members += 1
                let outcome: Outcome<T>
                if first {
                    do {
                        outcome = .done(try await body(db))
                    } catch {
                        // Alone in the transaction so far: all of it goes.
                        try await db.raw("ROLLBACK").run()
                        open = false
                        return (.failed(error), false)
                    }
                } else {
                    try await db.raw("SAVEPOINT member").run()
                    do {
                        let value = try await body(db)
                        try await db.raw("RELEASE member").run()
                        outcome = .done(value)
                    } catch {
                        try await db.raw("ROLLBACK TO member").run()
                        try await db.raw("RELEASE member").run()
                        outcome = .failed(error)
                    }
                }
                guard lock.hasWaiters, members < Self.maxMembers else {
                    try await db.raw("COMMIT").run()
                    open = false
                    return (outcome, true)
                }
                return (outcome, false)
            }
        } catch {
            await abandon(error)
            throw error
        }
        if closed {
            committed()
        } else if open, case .done = outcome {
            // Someone waits for the writer: they run in this transaction, and the last of the
            // group commits it.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiting.append(continuation)
                lock.unlock()
            }
        } else {
            lock.unlock()
        }
        switch outcome {
        case .done(let value): return value
        case .failed(let error): throw error
        }
    }

    /// Runs `body` while no write transaction is open or can start (the writer's turn held).
    func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await lock.lock()
        if open {
            do {
                try await writer.run { db in try await db.raw("COMMIT").run() }
                open = false
            } catch {
                await abandon(error)
                throw error
            }
            committed(unlocking: false)
        }
        do {
            let result = try await body()
            lock.unlock()
            return result
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// After a commit: the waiting members are answered and the writer passes on.
    private func committed(unlocking: Bool = true) {
        let woken = waiting
        waiting = []
        counts.withLockedValue {
            $0.commits += 1
            $0.members += members
        }
        members = 0
        if unlocking { lock.unlock() }
        for member in woken { member.resume() }
    }

    /// The group's own statements failed: none of it commits, every waiting member hears why.
    private func abandon(_ error: any Error) async {
        if open {
            do { try await writer.run { db in try await db.raw("ROLLBACK").run() } } catch {
                logger.error("Rollback failed", metadata: ["error": "\(error)"])
            }
        }
        open = false
        members = 0
        let woken = waiting
        waiting = []
        lock.unlock()
        for member in woken { member.resume(throwing: error) }
    }
}
