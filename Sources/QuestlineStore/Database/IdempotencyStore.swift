public import Foundation
import SQLKit

enum IdempotencySchema {
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
            ])
    ]
}

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
    /// First time: run it, then `complete` (or `release` if it failed).
    case proceed
    /// Seen and finished with the same body: send the stored response again.
    case replay(StoredResponse)
    /// Seen with a different body: refuse.
    case mismatch
    /// Seen and still running: ask the client to retry shortly.
    case inProgress
}

/// Idempotency keys, scoped per member (or per anonymous caller). A key is claimed with a
/// pending row before the work runs, so two concurrent retries never both run it.
public struct IdempotencyStore: Sendable {
    let database: Database
    /// A pending claim older than this is treated as abandoned (the server died mid-request).
    public let staleAfter: TimeInterval

    public init(_ database: Database, staleAfter: TimeInterval = 120) {
        self.database = database
        self.staleAfter = staleAfter
    }

    public func begin(scope: String, key: String, requestHash: String, now: Date) async throws -> IdempotencyDecision {
        try await database.transaction { db in
            let claimed = try await db.raw(
                """
                INSERT INTO idempotency_keys (scope, idem_key, request_hash, state, created_at)
                VALUES (\(bind: scope), \(bind: key), \(bind: requestHash), 'pending', \(bind: now.storedMillis))
                ON CONFLICT (scope, idem_key) DO NOTHING
                RETURNING idem_key
                """
            ).first()
            if claimed != nil { return .proceed }
            guard
                let row = try await db.raw(
                    """
                    SELECT request_hash, state, status, content_type, body, created_at FROM idempotency_keys
                    WHERE scope = \(bind: scope) AND idem_key = \(bind: key)
                    """
                ).first()
            else { return .inProgress }
            guard try row.decode(column: "request_hash", as: String.self) == requestHash else { return .mismatch }
            if try row.decode(column: "state", as: String.self) == "done" {
                let body =
                    try row.decode(column: "body", as: String?.self).flatMap { Data(base64Encoded: $0) } ?? Data()
                return .replay(
                    StoredResponse(
                        status: try row.decode(column: "status", as: Int.self),
                        contentType: try row.decode(column: "content_type", as: String?.self),
                        body: [UInt8](body)))
            }
            let created = Date(storedMillis: try row.decode(column: "created_at", as: Int64.self))
            if now.timeIntervalSince(created) > staleAfter {
                try await db.raw(
                    """
                    UPDATE idempotency_keys SET created_at = \(bind: now.storedMillis)
                    WHERE scope = \(bind: scope) AND idem_key = \(bind: key) AND state = 'pending'
                    """
                ).run()
                return .proceed
            }
            return .inProgress
        }
    }

    public func complete(scope: String, key: String, response: StoredResponse) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE idempotency_keys SET state = 'done', status = \(bind: response.status),
                    content_type = \(bind: response.contentType), body = \(bind: Data(response.body).base64EncodedString())
                WHERE scope = \(bind: scope) AND idem_key = \(bind: key)
                """
            ).run()
        }
    }

    /// Forgets a claim whose work failed, so a retry can run it.
    public func release(scope: String, key: String) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                DELETE FROM idempotency_keys WHERE scope = \(bind: scope) AND idem_key = \(bind: key) AND state = 'pending'
                """
            ).run()
        }
    }

    /// Deletes keys older than `cutoff`; returns nothing (housekeeping).
    public func purge(olderThan cutoff: Date) async throws {
        try await database.transaction { db in
            try await db.raw("DELETE FROM idempotency_keys WHERE created_at < \(bind: cutoff.storedMillis)").run()
        }
    }
}
