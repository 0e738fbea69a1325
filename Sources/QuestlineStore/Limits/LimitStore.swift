public import Foundation
public import QuestlineCore
import SQLKit

enum LimitSchema: StoreModule {
    /// A deleted member's buckets and the failures counted against their logins.
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM rate_buckets WHERE bucket LIKE \(bind: "%|" + member.id.rawValue)").run()
        try await LimitStore.forget(
            member.logins.map { AttemptSubject.login(LoginName.key($0)) } + [.friendCodeMember(member.id)], on: db)
    }

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
        },
        // Failed attempts of every kind (a login, a friend group's code), each under a subject
        // key that names its kind (`login|…`, `friend-code|member|…`).
        Migration(
            version: 910, name: "failed_attempts",
            [
                "DELETE FROM login_failures",
                "ALTER TABLE login_failures RENAME TO failed_attempts",
                "ALTER TABLE failed_attempts RENAME COLUMN login TO subject",
            ]),
    ]
}

/// What a failed attempt is counted against: its row's key names its kind, so that no typed
/// login can reach another kind's lock.
public enum AttemptSubject: Sendable, Hashable {
    /// An account, by its login key (`LoginName.key`).
    case login(String)
    /// A member typing friend-group codes.
    case friendCodeMember(MemberID)
    /// A household whose guardians type friend-group codes.
    case friendCodeHousehold(HouseholdID)

    var key: String {
        switch self {
        case .login(let key): "login|" + key
        case .friendCodeMember(let member): "friend-code|member|" + member.rawValue
        case .friendCodeHousehold(let household): "friend-code|household|" + household.rawValue
        }
    }
}

/// Request limits and the locks of failed attempts (logins, friend-group codes) kept in the database, so that every instance on it counts
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

    /// Until when the latest lock of `subjects` holds, if one does.
    public func lockedUntil(_ subjects: [AttemptSubject], now: Date) async throws -> Date? {
        guard !subjects.isEmpty else { return nil }
        return try await database.withConnection { db in
            let list = SQLList(subjects.map { SQLBind($0.key) })
            let until = try await db.raw(
                "SELECT MAX(locked_until) AS until FROM failed_attempts WHERE subject IN (\(list))"
            ).first()?.decode(column: "until", as: Int64?.self)
            return until.map { Date(storedMillis: $0) }.flatMap { $0 > now ? $0 : nil }
        }
    }

    /// Counts a failed attempt against each of `subjects`; from `failuresBeforeLock` failures on,
    /// each further failure locks that subject for `lock(failuresOver)` seconds. Atomic across
    /// instances.
    public func failed(
        _ subjects: [AttemptSubject], failuresBeforeLock: Int, now: Date, lock: @Sendable (_ over: Int) -> Int
    ) async throws {
        try await database.transaction(.system) { db in
            for subject in subjects.map(\.key).sorted() {
                guard
                    let failures = try await db.raw(
                        """
                        INSERT INTO failed_attempts (subject, failures, updated_at) VALUES (\(bind: subject), 1, \(bind: now.storedMillis))
                        ON CONFLICT (subject) DO UPDATE SET failures = failed_attempts.failures + 1,
                            updated_at = \(bind: now.storedMillis)
                        RETURNING failures
                        """
                    ).first()?.decode(column: "failures", as: Int.self)
                else { continue }
                let over = failures - failuresBeforeLock
                guard over >= 0 else { continue }
                let until = now.addingTimeInterval(TimeInterval(lock(over)))
                try await db.raw(
                    "UPDATE failed_attempts SET locked_until = \(bind: until.storedMillis) WHERE subject = \(bind: subject)"
                ).run()
            }
        }
    }

    /// Forgets the failures of `subjects` (a login that succeeded).
    public func succeeded(_ subjects: [AttemptSubject]) async throws {
        guard !subjects.isEmpty else { return }
        try await database.transaction(.system) { db in try await Self.forget(subjects, on: db) }
    }

    static func forget(_ subjects: [AttemptSubject], on db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM failed_attempts WHERE subject IN (\(SQLList(subjects.map { SQLBind($0.key) })))")
            .run()
    }

    /// Forgets buckets full again (untouched for `window`) and failures older than `cutoff`
    /// that no longer lock.
    public func purge(bucketsIdleFor window: TimeInterval, failuresBefore cutoff: Date, now: Date) async throws {
        try await database.transaction(.system) { db in
            try await db.raw(
                "DELETE FROM rate_buckets WHERE updated_at < \(bind: now.addingTimeInterval(-window).storedMillis)"
            ).run()
            try await db.raw(
                """
                DELETE FROM failed_attempts WHERE updated_at < \(bind: cutoff.storedMillis)
                    AND (locked_until IS NULL OR locked_until < \(bind: now.storedMillis))
                """
            ).run()
        }
    }
}
