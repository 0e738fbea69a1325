import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore

/// Request limits: how many requests a key (an IP address, a member) may make per minute, and
/// the login backoff. All in memory, per server instance.
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

/// Token buckets keyed by a string (one per IP address or member and purpose): `limit` tokens,
/// refilled evenly over a minute. Thread-safe; stale buckets are dropped as the table grows.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])
    private let clock: any WallClock
    static let window: TimeInterval = 60
    static let maxKeys = 100_000

    public init(clock: any WallClock) { self.clock = clock }

    /// Takes one token for `key`. Returns nil when allowed, else the seconds to wait.
    public func take(_ key: String, limit: Int) -> Int? {
        guard limit > 0 else { return nil }
        let now = clock.now()
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

/// Failed logins per account, with a lock that doubles with each further failure.
public final class LoginGuard: Sendable {
    private struct Record {
        var failures: Int
        var lockedUntil: Date?
    }

    private let records = NIOLockedValueBox<[String: Record]>([:])
    private let clock: any WallClock
    let limits: RateLimits

    public init(clock: any WallClock, limits: RateLimits) {
        self.clock = clock
        self.limits = limits
    }

    private static func key(_ login: String) -> String { login.trimmed(newlines: false).lowercased() }

    /// Seconds until `login` may try again, or nil.
    public func lockedFor(_ login: String) -> Int? {
        let now = clock.now()
        guard let until = records.withLockedValue({ $0[Self.key(login)]?.lockedUntil }), until > now else { return nil }
        return Int(until.timeIntervalSince(now).rounded(.up))
    }

    public func failed(_ login: String) {
        guard limits.failuresBeforeLock > 0 else { return }
        let now = clock.now()
        records.withLockedValue { table in
            if table.count > RateLimiter.maxKeys {
                table = table.filter { ($0.value.lockedUntil ?? .distantPast) > now }
            }
            var record = table[Self.key(login)] ?? Record(failures: 0, lockedUntil: nil)
            record.failures += 1
            let over = record.failures - limits.failuresBeforeLock
            if over >= 0 {
                let seconds = min(limits.maxLockSeconds, limits.lockSeconds << min(over, 20))
                record.lockedUntil = now.addingTimeInterval(TimeInterval(seconds))
            }
            table[Self.key(login)] = record
        }
    }

    public func succeeded(_ login: String) {
        _ = records.withLockedValue { $0.removeValue(forKey: Self.key(login)) }
    }
}
