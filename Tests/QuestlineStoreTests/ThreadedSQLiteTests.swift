import Foundation
import Logging
import NIOPosix
import QuestlineCore
import SQLKit
import SQLiteKit
import SQLiteNIO
import Testing

@testable import QuestlineStore

/// The SQLite connection layer under SQLKit (`ThreadedSQLiteConnection`): statements bind, run
/// and decode as SQLiteKit's own connection did, a unit of work runs on the connection's thread,
/// and errors keep their meaning.
@Suite struct ThreadedSQLiteTests {
    /// A fresh SQLite database in a directory of its own, removed after `body`.
    private func withDatabase(_ body: (Database) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = try Database(.sqlite(path: dir.appendingPathComponent("t.sqlite").path))
        do {
            try await body(database)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()  // a second shutdown (after a test's own) changes nothing
    }

    /// The direct decodings give what SQLiteKit's decoder gives, and leave every other pairing
    /// to it.
    @Test func directDecodingAgreesWithSQLiteKitsDecoder() throws {
        let decoder = SQLiteDataDecoder()
        let values: [SQLiteData] = [.text("héllo"), .text(""), .integer(42), .integer(-7), .float(2.5), .null]
        for value in values {
            func check<D: Decodable & Equatable>(_ type: D.Type) {
                let direct = SQLiteRowValues.direct(value, as: D.self)
                let kit = try? decoder.decode(D.self, from: value)
                if let direct { #expect(direct == kit, "\(value) as \(D.self)") }
            }
            check(String.self)
            check(String?.self)
            check(Int.self)
            check(Int64.self)
            check(Int?.self)
            check(Int64?.self)
            check(Double.self)
        }
        #expect(SQLiteRowValues.direct(SQLiteData.integer(1), as: Bool.self) == nil)
        #expect(SQLiteRowValues.direct(SQLiteData.text("1"), as: Int.self) == nil)
        #expect(SQLiteRowValues.direct(SQLiteData.null, as: String.self) == nil)
    }

    /// A kept statement runs again with new values without being prepared again, even when
    /// its plan looked at a bound value (with an ORDER BY or a join, the planner asks whether
    /// the value of a term outside the index, here `kind`, is 0 or 1); every parameter must be
    /// bound on every run. With `sqlite3_clear_bindings` after each run it was prepared 4 times.
    @Test func keptStatementsAreNotPreparedAgain() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connection = ThreadedSQLiteConnection(
            path: dir.appendingPathComponent("t.sqlite").path,
            pragmas: SQLiteTuning.pragmas(autocheckpointPages: 1_000),
            on: group.next(), logger: Logger(label: "test"), counter: StatementCounter())
        for sql in [
            "CREATE TABLE t (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, kind TEXT NOT NULL)",
            "CREATE INDEX t_by_owner ON t (owner)",
            "INSERT INTO t (owner, kind) VALUES ('o1', 'a'), ('o2', 'b'), ('o3', 'a')",
        ] {
            try connection.query(sql, []) { _ in }
        }
        let sql = "SELECT id FROM t WHERE owner = ?1 AND kind = ?2 ORDER BY id"
        var found = 0
        for (owner, kind) in [("o1", "a"), ("o2", "b"), ("o3", "b"), ("o1", "a"), ("o3", "a")] {
            try connection.query(sql, [.text(owner), .text(kind)]) { _ in found += 1 }
        }
        #expect(found == 4)
        #expect(connection.repreparations(of: sql) == 0)
        #expect(throws: SQLiteFailure.self) { try connection.query(sql, [.text("o1")]) { _ in } }
        connection.close()
        try await group.shutdownGracefully()
    }

    /// Binds of every kind round-trip (the empty text is not NULL), a statement run again with
    /// other values answers for them, and a unique violation is recognised.
    @Test func statementsRoundTripAndKeepTheirMeaning() async throws {
        try await withDatabase { database in
            try await database.transaction(.system) { db in
                try await db.raw("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)").run()
                for (id, name) in [(1, ""), (2, "zwölf"), (3, String(repeating: "x", count: 5_000))] {
                    try await db.raw(
                        "INSERT INTO t (id, name, score, data) VALUES (\(bind: id), \(bind: name), \(bind: Double(id) / 2), \(bind: Data([1, 2, UInt8(id)])))"
                    ).run()
                }
                try await db.raw("INSERT INTO t (id, name) VALUES (4, NULL)").run()
            }
            try await database.withConnection { db in
                for (id, name) in [(1, ""), (2, "zwölf"), (3, String(repeating: "x", count: 5_000))] {
                    let row = try #require(
                        try await db.raw("SELECT name, score, data FROM t WHERE id = \(bind: id)").first())
                    #expect(try row.decode(column: "name", as: String.self) == name)
                    #expect(try row.decode(column: "name", as: String?.self) == name)
                    #expect(try row.decode(column: "score", as: Double.self) == Double(id) / 2)
                    #expect(try row.decode(column: "data", as: Data.self) == Data([1, 2, UInt8(id)]))
                }
                let null = try #require(try await db.raw("SELECT name FROM t WHERE id = 4").first())
                #expect(try null.decode(column: "name", as: String?.self) == nil)
                #expect(try null.decodeNil(column: "name"))
                #expect(throws: (any Error).self) { try null.decode(column: "missing", as: String.self) }
            }
            await #expect {
                try await database.transaction(.system) { db in try await db.raw("INSERT INTO t (id) VALUES (1)").run()
                }
            } throws: { isUniqueViolation($0) }
        }
    }

    /// A read runs on its connection's own thread, not on the caller's.
    @Test func aUnitOfWorkRunsOnTheConnectionsThread() async throws {
        try await withDatabase { database in
            try await database.withConnection { db in
                let sqlite = try #require(db as? ThreadedSQLiteDatabase)
                #expect(sqlite.connection.executor.loop.inEventLoop)
                _ = try await db.raw("SELECT 1 AS one").first()
                #expect(sqlite.connection.executor.loop.inEventLoop)
            }
        }
    }

    /// After shutdown a unit of work fails at once instead of waiting for a thread that is gone.
    @Test func aClosedDatabaseRefusesWork() async throws {
        try await withDatabase { database in
            _ = try await database.withConnection { db in try await db.raw("SELECT 1 AS one").first() }
            await database.shutdown()
            await #expect(throws: SQLiteFailure.self) {
                _ = try await database.withConnection { db in try await db.raw("SELECT 1 AS one").first() }
            }
            await #expect(throws: SQLiteFailure.self) {
                try await database.transaction(.system) { db in try await db.raw("SELECT 1 AS one").run() }
            }
        }
    }
}
