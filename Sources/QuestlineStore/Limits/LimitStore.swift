public import Foundation
import SQLKit

enum LimitSchema {
    static let migrations: [Migration] = [
        Migration(version: 710, name: "shared_limits") { flavor in
            let real = flavor == .postgres ? "DOUBLE PRECISION" : "REAL"
            return [
                """
                CREATE TABLE rate_buckets (
                    bucket TEXT PRIMARY KEY,
                    tokens \(real) NOT NULL,
                    taken INTEGER NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX rate_buckets_by_age ON rate_buckets (updated_at)",
                """
                CREATE TABLE login_failures (
                    login TEXT PRIMARY KEY,
                    failures INTEGER NOT NULL,
                    locked_until BIGINT,
                    updated_at BIGINT NOT NULL
                )
                """,
            ]
        }
    ]
}

/// Request limits and login locks kept in the database, so that every instance on it counts
/// against the same budget and a restart forgets nothing.
public struct LimitStore: Sendable {
    let database: Database

    init(_ database: Database) { self.database = database }

    /// Takes one token from each of `buckets` (each `limit` tokens, refilled evenly over
    /// `window`), all in one statement that commits by itself. Returns, in the order given, nil
    /// for a bucket that allowed it, else the seconds until its token is back.
    ///
    /// A bucket's limit travels in its row (`excluded.tokens` is the limit less one), so one
    /// statement serves buckets of different limits; rows go in key order, so two requests that
    /// take the same buckets never wait for each other's rows crosswise.
    public func take(_ buckets: [(key: String, limit: Int)], window: TimeInterval, now: Date) async throws -> [Int?] {
        guard !buckets.isEmpty else { return [] }
        let now = now.storedMillis
        let postgres = database.flavor == .postgres
        let limit: SQLQueryString = "(excluded.tokens + 1)"
        let refill: SQLQueryString =
            "\(unsafeRaw: postgres ? "LEAST" : "MIN")(\(limit), rate_buckets.tokens + \(unsafeRaw: postgres ? "GREATEST" : "MAX")(0, \(bind: now) - rate_buckets.updated_at) * \(limit) / \(bind: window * 1000))"
        var rows = SQLQueryString("")
        for (index, bucket) in buckets.sorted(by: { $0.key < $1.key }).enumerated() {
            rows +=
                "\(unsafeRaw: index == 0 ? "" : ", ")(\(bind: bucket.key), \(bind: Double(bucket.limit - 1)), 1, \(bind: now))"
        }
        let taken = try await database.autocommit { db in
            try await db.raw(
                """
                INSERT INTO rate_buckets (bucket, tokens, taken, updated_at) VALUES \(rows)
                ON CONFLICT (bucket) DO UPDATE SET
                    tokens = CASE WHEN \(refill) >= 1 THEN \(refill) - 1 ELSE \(refill) END,
                    taken = CASE WHEN \(refill) >= 1 THEN 1 ELSE 0 END,
                    updated_at = \(bind: now)
                RETURNING bucket, tokens, taken
                """
            ).all()
        }
        var refused: [String: Double] = [:]
        for row in taken where try row.decode(column: "taken", as: Int.self) == 0 {
            refused[try row.decode(column: "bucket", as: String.self)] = try row.decode(
                column: "tokens", as: Double.self)
        }
        return buckets.map { bucket in
            refused[bucket.key].map { tokens in
                let rate = Double(bucket.limit) / (window * 1000)  // tokens per millisecond
                return max(1, Int(((1 - tokens) / rate / 1000).rounded(.up)))
            }
        }
    }

    /// Until when `login` is locked, if it is.
    public func lockedUntil(_ login: String, now: Date) async throws -> Date? {
        try await database.withConnection { db in
            let until = try await db.raw("SELECT locked_until FROM login_failures WHERE login = \(bind: login)")
                .first()?
                .decode(column: "locked_until", as: Int64?.self)
            return until.map { Date(storedMillis: $0) }.flatMap { $0 > now ? $0 : nil }
        }
    }

    /// Counts a failed login; from `failuresBeforeLock` failures on, each further failure locks
    /// the login for `lock(failuresOver)` seconds. Atomic across instances.
    public func loginFailed(
        _ login: String, failuresBeforeLock: Int, now: Date, lock: @Sendable (_ over: Int) -> Int
    ) async throws {
        try await database.transaction { db in
            guard
                let failures = try await db.raw(
                    """
                    INSERT INTO login_failures (login, failures, updated_at) VALUES (\(bind: login), 1, \(bind: now.storedMillis))
                    ON CONFLICT (login) DO UPDATE SET failures = login_failures.failures + 1,
                        updated_at = \(bind: now.storedMillis)
                    RETURNING failures
                    """
                ).first()?.decode(column: "failures", as: Int.self)
            else { return }
            let over = failures - failuresBeforeLock
            guard over >= 0 else { return }
            let until = now.addingTimeInterval(TimeInterval(lock(over)))
            try await db.raw(
                "UPDATE login_failures SET locked_until = \(bind: until.storedMillis) WHERE login = \(bind: login)"
            ).run()
        }
    }

    public func loginSucceeded(_ login: String) async throws {
        try await database.transaction { db in
            try await db.raw("DELETE FROM login_failures WHERE login = \(bind: login)").run()
        }
    }

    /// Forgets buckets full again (untouched for `window`) and failures older than `cutoff`
    /// that no longer lock.
    public func purge(bucketsIdleFor window: TimeInterval, failuresBefore cutoff: Date, now: Date) async throws {
        try await database.transaction { db in
            try await db.raw(
                "DELETE FROM rate_buckets WHERE updated_at < \(bind: now.addingTimeInterval(-window).storedMillis)"
            ).run()
            try await db.raw(
                """
                DELETE FROM login_failures WHERE updated_at < \(bind: cutoff.storedMillis)
                    AND (locked_until IS NULL OR locked_until < \(bind: now.storedMillis))
                """
            ).run()
        }
    }
}
