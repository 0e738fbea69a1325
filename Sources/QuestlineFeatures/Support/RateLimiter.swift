public import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore
public import QuestlineStore

/// Request limits: how many requests a key (a client address, a member) may make per minute,
/// and the login backoff. Shared by every instance on one database (see `RateLimiter`).
public struct RateLimits: Sendable, Equatable {
    /// Login attempts per client address per minute (0: no limit).
    public var loginsPerAddress: Int
    /// Writes (POST, PUT, PATCH, DELETE) per signed-in member per minute (0: no limit).
    public var writesPerMember: Int
    /// Writes per client address per minute, signed in or not (0: no limit).
    public var writesPerAddress: Int
    /// Failed logins for one account before it is locked; each further failure doubles the lock.
    public var failuresBeforeLock: Int
    /// The first lock, in seconds (then doubled, up to `maxLockSeconds`).
    public var lockSeconds: Int
    public var maxLockSeconds: Int
    /// Wrong friend-group codes a member or a household may type before joining is locked
    /// (`friendCodes`): the code is all that keeps a stranger from a household's children.
    public var friendCodeFailuresBeforeLock: Int

    /// Failed logins of one account.
    public var logins: AttemptPolicy {
        AttemptPolicy(failuresBeforeLock: failuresBeforeLock, lockSeconds: lockSeconds, maxLockSeconds: maxLockSeconds)
    }

    /// Wrong friend-group codes of one member, or of one household's guardians together: after
    /// `friendCodeFailuresBeforeLock`, each further one locks joining for 5 minutes, doubling,
    /// at most a day.
    public var friendCodes: AttemptPolicy {
        AttemptPolicy(failuresBeforeLock: friendCodeFailuresBeforeLock, lockSeconds: 300, maxLockSeconds: 86_400)
    }

    public static let standard = RateLimits(
        loginsPerAddress: 20, writesPerMember: 600, writesPerAddress: 1200,
        failuresBeforeLock: 5, lockSeconds: 60, maxLockSeconds: 900, friendCodeFailuresBeforeLock: 5)
    /// No limits (load tests).
    public static let off = RateLimits(
        loginsPerAddress: 0, writesPerMember: 0, writesPerAddress: 0,
        failuresBeforeLock: 0, lockSeconds: 0, maxLockSeconds: 0, friendCodeFailuresBeforeLock: 0)

    public init(
        loginsPerAddress: Int, writesPerMember: Int, writesPerAddress: Int, failuresBeforeLock: Int, lockSeconds: Int,
        maxLockSeconds: Int, friendCodeFailuresBeforeLock: Int = 5
    ) {
        self.loginsPerAddress = loginsPerAddress
        self.writesPerMember = writesPerMember
        self.writesPerAddress = writesPerAddress
        self.failuresBeforeLock = failuresBeforeLock
        self.lockSeconds = lockSeconds
        self.maxLockSeconds = maxLockSeconds
        self.friendCodeFailuresBeforeLock = friendCodeFailuresBeforeLock
    }
}

/// Token buckets keyed by a string (one per client address or member and purpose): `limit`
/// tokens, refilled evenly over a minute.
///
/// Where the buckets live: with a `shared` store (PostgreSQL, which several instances may
/// serve), in the database, so that all instances count against one budget (one upsert for
/// all of a request's buckets); without one (SQLite, which one instance serves), in memory, where a check costs
/// no write. Thread-safe; stale in-memory buckets are dropped as the table grows.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])
    private let clock: any WallClock
    private let shared: LimitStore?
    static let window: TimeInterval = 60
    static let maxKeys = 100_000

    public init(clock: any WallClock, shared: LimitStore? = nil) {
        self.clock = clock
        self.shared = shared
    }

    /// Takes one token from each of `buckets` (key and limit a minute; a limit of 0 is no
    /// limit). Returns nil when every bucket allowed it, else the first bucket in the given
    /// order that refused and the seconds to wait for it. With a shared store, all of them are
    /// taken in one statement.
    public func take(_ buckets: [(key: String, limit: Int)]) async throws -> (index: Int, wait: Int)? {
        let limited = buckets.enumerated().filter { $0.element.limit > 0 }
        guard !limited.isEmpty else { return nil }
        let now = clock.now()
        let waits: [Int?]
        if let shared {
            waits = try await shared.take(limited.map(\.element), window: Self.window, now: now)
        } else {
            waits = limited.map { take($0.element.key, limit: $0.element.limit, now: now) }
        }
        return zip(limited, waits).lazy.compactMap { bucket, wait in wait.map { (bucket.offset, $0) } }.first
    }

    private func take(_ key: String, limit: Int, now: Date) -> Int? {
        let rate = Double(limit) / Self.window
        return buckets.withLockedValue { table in
            if table.count > Self.maxKeys {
                table = table.filter { now.timeIntervalSince($0.value.updated) < Self.window }
            }
            var bucket = table[key] ?? Bucket(tokens: Double(limit), updated: now)
            bucket.tokens = min(Double(limit), bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * rate)
            bucket.updated = now
            defer { table[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }
}

/// How many failed attempts of one kind a subject may make before it is locked, and for how
/// long: from `failuresBeforeLock` failures on, each further failure locks it for `lockSeconds`,
/// doubled with each failure, at most `maxLockSeconds`. A `failuresBeforeLock` of 0 locks nothing.
public struct AttemptPolicy: Sendable, Equatable {
    public var failuresBeforeLock: Int
    public var lockSeconds: Int
    public var maxLockSeconds: Int

    public init(failuresBeforeLock: Int, lockSeconds: Int, maxLockSeconds: Int) {
        self.failuresBeforeLock = failuresBeforeLock
        self.lockSeconds = lockSeconds
        self.maxLockSeconds = maxLockSeconds
    }

    func lock(over: Int) -> Int { min(maxLockSeconds, lockSeconds << min(over, 20)) }
}

/// Failed attempts (a login, a friend group's code) with a lock that doubles with each further
/// failure. Kept in the database: every instance sees the same count and lock, and a restart
/// keeps them. One guard per kind of attempt, with its policy.
public struct AttemptGuard: Sendable {
    private let store: LimitStore
    private let clock: any WallClock
    let policy: AttemptPolicy

    public init(store: LimitStore, clock: any WallClock, policy: AttemptPolicy) {
        self.store = store
        self.clock = clock
        self.policy = policy
    }

    /// Until when the latest lock of `subjects` holds, or nil.
    public func lockedUntil(_ subjects: [AttemptSubject]) async throws -> Date? {
        try await store.lockedUntil(subjects, now: clock.now())
    }

    /// Seconds until every one of `subjects` may try again, or nil.
    public func lockedFor(_ subjects: [AttemptSubject]) async throws -> Int? {
        guard let until = try await lockedUntil(subjects) else { return nil }
        return max(1, Int(until.timeIntervalSince(clock.now()).rounded(.up)))
    }

    public func failed(_ subjects: [AttemptSubject]) async throws {
        guard policy.failuresBeforeLock > 0 else { return }
        let policy = policy
        try await store.failed(subjects, failuresBeforeLock: policy.failuresBeforeLock, now: clock.now()) {
            policy.lock(over: $0)
        }
    }

    public func succeeded(_ subjects: [AttemptSubject]) async throws {
        try await store.succeeded(subjects)
    }
}
