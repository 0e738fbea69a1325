import Foundation
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

    public static let standard = RateLimits(
        loginsPerAddress: 20, writesPerMember: 600, writesPerAddress: 1200,
        failuresBeforeLock: 5, lockSeconds: 60, maxLockSeconds: 900)
    /// No limits (load tests).
    public static let off = RateLimits(
        loginsPerAddress: 0, writesPerMember: 0, writesPerAddress: 0,
        failuresBeforeLock: 0, lockSeconds: 0, maxLockSeconds: 0)

    public init(
        loginsPerAddress: Int, writesPerMember: Int, writesPerAddress: Int, failuresBeforeLock: Int, lockSeconds: Int,
        maxLockSeconds: Int
    ) {
        self.loginsPerAddress = loginsPerAddress
        self.writesPerMember = writesPerMember
        self.writesPerAddress = writesPerAddress
        self.failuresBeforeLock = failuresBeforeLock
        self.lockSeconds = lockSeconds
        self.maxLockSeconds = maxLockSeconds
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

/// Failed logins per account, with a lock that doubles with each further failure. Kept in the
/// database: every instance sees the same count and lock, and a restart keeps them.
public struct LoginGuard: Sendable {
    private let store: LimitStore
    private let clock: any WallClock
    let limits: RateLimits

    public init(store: LimitStore, clock: any WallClock, limits: RateLimits) {
        self.store = store
        self.clock = clock
        self.limits = limits
    }

    /// The account's key, as the login lookup computes it (`LoginName.key`): every spelling that
    /// reaches an account shares its lock.
    private static func key(_ login: String) -> String { LoginName.key(login) }

    /// Seconds until `login` may try again, or nil.
    public func lockedFor(_ login: String) async throws -> Int? {
        let now = clock.now()
        guard let until = try await store.lockedUntil(Self.key(login), now: now) else { return nil }
        return Int(until.timeIntervalSince(now).rounded(.up))
    }

    public func failed(_ login: String) async throws {
        guard limits.failuresBeforeLock > 0 else { return }
        let limits = limits
        try await store.loginFailed(Self.key(login), failuresBeforeLock: limits.failuresBeforeLock, now: clock.now()) {
            over in min(limits.maxLockSeconds, limits.lockSeconds << min(over, 20))
        }
    }

    public func succeeded(_ login: String) async throws {
        try await store.loginSucceeded(Self.key(login))
    }
}
