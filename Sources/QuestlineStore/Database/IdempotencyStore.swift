public import Foundation
public import QuestlineCore
import SQLKit

enum IdempotencySchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        // Bookkeeping: deleted with the member, not exported (what a retry needed).
        PersonalData.Holding(table: "idempotency_claims", column: "scope", withoutForeignKey: true)
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 2, name: "idempotency_keys",
            [
                """
                CREATE TABLE idempotency_keys (
                    scope TEXT NOT NULL,
                    idem_key TEXT NOT NULL,
                    request_hash TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
                    status BIGINT,
                    content_type TEXT,
                    body TEXT,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (scope, idem_key)
                )
                """,
                "CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)",
            ]),
        // Claims: a token per claim (a stale claim is taken over by compare-and-swap), the
        // `applied` state written in the write's own transaction, and sealed responses. Keys
        // live a day; the table is rebuilt (SQLite cannot change a CHECK), keeping its rows.
        Migration(
            version: 720, name: "idempotency_claims",
            [
                """
                CREATE TABLE idempotency_claims (
                    scope TEXT NOT NULL,
                    idem_key TEXT NOT NULL,
                    request_hash TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'applied', 'done')),
                    claim TEXT NOT NULL,
                    status BIGINT,
                    content_type TEXT,
                    body TEXT,
                    sealed INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (scope, idem_key)
                )
                """,
                """
                INSERT INTO idempotency_claims (scope, idem_key, request_hash, state, claim, status, content_type, body, created_at)
                SELECT scope, idem_key, request_hash, state, 'migrated', status, content_type, body, created_at
                FROM idempotency_keys
                """,
                "DROP TABLE idempotency_keys",
                "CREATE INDEX idempotency_claims_by_age ON idempotency_claims (created_at)",
            ]),
    ]
}

/// A write ran past its claim's lifetime and another request took the key over: this one must
/// not commit.
public struct IdempotencyClaimLost: Error {}

/// A response kept for replay.
public struct StoredResponse: Sendable, Equatable {
    public let status: Int
    public let contentType: String?
    public let body: [UInt8]

    public init(status: Int, contentType: String?, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// What to do with a request that carries an idempotency key.
public enum IdempotencyDecision: Sendable, Equatable {
    /// First time (or a stale claim taken over): run it under this claim, then `complete` (or
    /// `release` if it failed).
    case proceed(IdempotencyClaim)
    /// Seen and finished with the same request: send the stored response again (`sealed`: the
    /// body is encrypted for the request that made it; see `IdempotencySeal`).
    case replay(StoredResponse, sealed: Bool)
    /// Seen with a different request: refuse.
    case mismatch
    /// Seen and still running: ask the client to retry shortly.
    case inProgress
    /// The write committed but its response was never stored (the server stopped in between):
    /// it must not run again.
    case appliedWithoutResponse
}

/// Idempotency keys, scoped per member (or per anonymous device). A key is claimed with a
/// pending row before the work runs, so two concurrent retries never both run it.
public struct IdempotencyStore: Sendable {
    let database: Database
    /// A pending claim older than this is treated as abandoned (the server died mid-request).
    public let staleAfter: TimeInterval
    /// How long a finished key replays.
    public static let lifetime: TimeInterval = 24 * 3600

    public init(_ database: Database, staleAfter: TimeInterval = 120) {
        self.database = database
        self.staleAfter = staleAfter
    }

    public func begin(scope: String, key: String, requestHashes: [String], now: Date) async throws
        -> IdempotencyDecision
    {
        let requestHash = requestHashes.first ?? ""
        let token = UUID().uuidString
        return try await database.transaction(.system) { db in
            let claimed = try await db.raw(
                """
                INSERT INTO idempotency_claims (scope, idem_key, request_hash, state, claim, created_at)
                VALUES (\(bind: scope), \(bind: key), \(bind: requestHash), 'pending', \(bind: token), \(bind: now.storedMillis))
                ON CONFLICT (scope, idem_key) DO NOTHING
                RETURNING idem_key
                """
            ).first()
            if claimed != nil { return .proceed(IdempotencyClaim(scope: scope, key: key, token: token)) }
            guard
                let row = try await db.raw(
                    """
                    SELECT request_hash, state, claim, status, content_type, body, sealed, created_at
                    FROM idempotency_claims WHERE scope = \(bind: scope) AND idem_key = \(bind: key)
                    """
                ).first()
            else { return .inProgress }
            let created = Date(storedMillis: try row.decode(column: "created_at", as: Int64.self))
            // Past its lifetime a key is forgotten, purged or not: this is a new request.
            if now.timeIntervalSince(created) > Self.lifetime {
                try await db.raw(
                    """
                    UPDATE idempotency_claims SET request_hash = \(bind: requestHash), state = 'pending',
                        claim = \(bind: token), status = NULL, content_type = NULL, body = NULL, sealed = 0,
                        created_at = \(bind: now.storedMillis)
                    WHERE scope = \(bind: scope) AND idem_key = \(bind: key) AND created_at = \(bind: created.storedMillis)
                    """
                ).run()
                return .proceed(IdempotencyClaim(scope: scope, key: key, token: token))
            }
            guard requestHashes.contains(try row.decode(column: "request_hash", as: String.self)) else {
                return .mismatch
            }
            switch try row.decode(column: "state", as: String.self) {
            case "done":
                let body =
                    try row.decode(column: "body", as: String?.self).flatMap { Data(base64Encoded: $0) } ?? Data()
                return .replay(
                    StoredResponse(
                        status: try row.decode(column: "status", as: Int.self),
                        contentType: try row.decode(column: "content_type", as: String?.self),
                        body: [UInt8](body)),
                    sealed: try row.decode(column: "sealed", as: Int.self) != 0)
            case "applied":
                return .appliedWithoutResponse
            default:
                guard now.timeIntervalSince(created) > staleAfter else { return .inProgress }
                // Take the abandoned claim over, only if it is still the one read: of two
                // retries, one wins; and the first request, should it be alive after all, can
                // no longer commit (its mark fails).
                let old = try row.decode(column: "claim", as: String.self)
                let taken = try await db.raw(
                    """
                    UPDATE idempotency_claims SET claim = \(bind: token), created_at = \(bind: now.storedMillis)
                    WHERE scope = \(bind: scope) AND idem_key = \(bind: key) AND state = 'pending' AND claim = \(bind: old)
                    RETURNING idem_key
                    """
                ).first()
                return taken == nil ? .inProgress : .proceed(IdempotencyClaim(scope: scope, key: key, token: token))
            }
        }
    }

    /// Stores the response of the claim's request.
    public func complete(_ claim: IdempotencyClaim, response: StoredResponse, sealed: Bool) async throws {
        try await database.transaction(.system) { db in
            try await db.raw(
                """
                UPDATE idempotency_claims SET state = 'done', status = \(bind: response.status),
                    content_type = \(bind: response.contentType), body = \(bind: Data(response.body).base64EncodedString()),
                    sealed = \(bind: sealed ? 1 : 0)
                WHERE scope = \(bind: claim.scope) AND idem_key = \(bind: claim.key) AND claim = \(bind: claim.token)
                """
            ).run()
        }
    }

    /// Forgets a claim whose work failed before anything committed, so a retry can run it.
    /// Returns false when something did commit (the key is `applied`): then the response must
    /// be stored instead, whatever it is.
    public func release(_ claim: IdempotencyClaim) async throws -> Bool {
        try await database.transaction(.system) { db in
            let state = try await db.raw(
                """
                SELECT state FROM idempotency_claims
                WHERE scope = \(bind: claim.scope) AND idem_key = \(bind: claim.key) AND claim = \(bind: claim.token)
                """
            ).first()?.decode(column: "state", as: String.self)
            guard state == "pending" else { return state == nil }
            try await db.raw(
                """
                DELETE FROM idempotency_claims
                WHERE scope = \(bind: claim.scope) AND idem_key = \(bind: claim.key) AND claim = \(bind: claim.token)
                    AND state = 'pending'
                """
            ).run()
            return true
        }
    }

    /// Deletes keys older than `cutoff`; returns how many.
    @discardableResult
    public func purge(olderThan cutoff: Date) async throws -> Int {
        try await database.transaction(.system) { db in
            let count =
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM idempotency_claims WHERE created_at < \(bind: cutoff.storedMillis)"
                ).first()?.decode(column: "n", as: Int64.self) ?? 0
            try await db.raw("DELETE FROM idempotency_claims WHERE created_at < \(bind: cutoff.storedMillis)").run()
            return Int(count)
        }
    }
}
