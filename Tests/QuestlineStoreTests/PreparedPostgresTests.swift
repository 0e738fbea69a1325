import Foundation
import PostgresKit
import QuestlineCore
import QuestlineTestSupport
import SQLKit
import Testing

@testable import QuestlineStore

/// PostgreSQL's statements kept prepared per connection (`PreparedPostgresDatabase`, #37): the
/// data path's statements are prepared once a connection and answer as the unnamed ones do;
/// DDL, transaction control and what PostgresKit must encode itself stay unnamed; a statement
/// that failed to prepare on a connection does not keep failing there.
@Suite struct PreparedPostgresTests {
    @Test func onlyTheDataPathsStatementsAreKeptPrepared() {
        for sql in [
            "SELECT 1", "  select x FROM t", "\nINSERT INTO t VALUES ($1)", "update t SET a = 1",
            "DELETE FROM t", "WITH a AS (SELECT 1) SELECT * FROM a", "SELECT(1)",
        ] {
            #expect(PreparedPostgresDatabase.isDataStatement(sql), "\(sql)")
        }
        for sql in [
            "BEGIN", "COMMIT", "ROLLBACK", "CREATE TABLE t (a INT)", "ALTER TABLE t ADD b INT", "SET x = 1",
            "SELECTED", "", "DROP SCHEMA s CASCADE",
        ] {
            #expect(!PreparedPostgresDatabase.isDataStatement(sql), "\(sql)")
        }
    }

    struct Wrapped: Codable, Sendable { var value: String }

    /// Binds get the types PostgresKit gives them (a nil is an untyped NULL); a value that only
    /// PostgresKit's `Codable` path can encode sends the statement unnamed.
    @Test func bindsAreTypedAsPostgresKitTypesThem() throws {
        let binds: [any Encodable & Sendable] = [5, Int?.none, "x", 2.5, true, Int64(9), String?.some("y")]
        let (bindings, types) = try #require(PreparedPostgresDatabase.bindings(binds))
        #expect(bindings.count == binds.count)
        #expect(
            types
                == [
                    PostgresDataType.int8, .null, .text, .float8, .bool, .int8, .text,
                ].map(\.rawValue))
        #expect(PreparedPostgresDatabase.bindings([1, Wrapped(value: "a")]) == nil)
    }

    @Test func aBadStatementsOptionIsRefused() async throws {
        #expect(throws: StoreError.self) {
            _ = try Database(.postgres(url: "postgres://u:p@127.0.0.1:1/db?sslmode=disable&statements=sometimes"))
        }
        let unnamed = try Database(.postgres(url: "postgres://u:p@127.0.0.1:1/db?statements=unnamed"))
        await unnamed.shutdown()
    }

    /// Runs `body` with a fresh PostgreSQL schema's database, and a second one on the same schema
    /// that sends every statement unnamed; skipped without PostgreSQL (unless it is required).
    private func withPostgres(_ body: (Database, Database) async throws -> Void) async throws {
        guard TestDatabase.postgresURL != nil || TestDatabase.postgresRequired else { return }
        try await TestDatabase.postgres.withStore(migrate: false) { store in
            guard case .postgres(let url) = store.database.location else { return }
            let unnamed = try Database(.postgres(url: url + "&statements=unnamed"))
            do {
                try await body(store.database, unnamed)
            } catch {
                await unnamed.shutdown()
                throw error
            }
            await unnamed.shutdown()
        }
    }

    @Test func preparedStatementsAnswerAsUnnamedOnesDo() async throws {
        try await withPostgres { prepared, unnamed in
            try await prepared.transaction(.system) { db in
                try await db.raw(
                    "CREATE TABLE scores (id BIGINT PRIMARY KEY, name TEXT NOT NULL, score DOUBLE PRECISION, note TEXT)"
                ).run()
                for id in 1...20 {
                    let note: String? = id.isMultiple(of: 3) ? nil : "n\(id)"
                    try await db.raw(
                        "INSERT INTO scores (id, name, score, note) VALUES (\(bind: id), \(bind: "p\(id)"), \(bind: Double(id) / 4), \(bind: note))"
                    ).run()
                }
            }
            struct Score: Decodable, Equatable { var id: Int, name: String, score: Double?, note: String? }
            func read(_ database: Database, above: Int) async throws -> [Score] {
                try await database.withConnection { db in
                    try await db.raw(
                        "SELECT id, name, score, note FROM scores WHERE id > \(bind: above) AND (note IS NOT NULL OR \(bind: true)) ORDER BY id"
                    ).all(decoding: Score.self)
                }
            }
            // More runs than PostgreSQL's five custom plans, so a generic plan answers too.
            for above in [0, 5, 10, 15, 2, 7, 19, 20] {
                let kept = try await read(prepared, above: above)
                #expect(kept == (try await read(unnamed, above: above)))
                #expect(kept.count == 20 - above)
            }
            #expect((prepared.postgresNames?.count ?? 0) >= 2)  // the insert and the read
            #expect(unnamed.postgresNames == nil)
            // On one connection the read is prepared once, under one name, however often it runs.
            let kept = try await prepared.withConnection { db in
                for above in [1, 2, 3] {
                    _ = try await db.raw(
                        "SELECT id, name, score, note FROM scores WHERE id > \(bind: above) AND (note IS NOT NULL OR \(bind: true)) ORDER BY id"
                    ).all()
                }
                return try await db.raw(
                    "SELECT name FROM pg_prepared_statements WHERE statement LIKE \(bind: "SELECT id, name, score, note FROM scores%")"
                ).all().map { try $0.decode(column: "name", as: String.self) }
            }
            #expect(kept.count == 1 && kept[0].hasPrefix("ql"), "\(kept)")
            let none = try await unnamed.withConnection { db in
                try await db.raw("SELECT count(*) AS n FROM pg_prepared_statements").first()?.decode(
                    column: "n", as: Int.self)
            }
            #expect(none == 0)
        }
    }

    /// A row's direct decodings answer as PostgresKit's row does, for every hot type against
    /// every column type (values, NULLs, and mismatches, which both refuse).
    @Test func directRowsDecodeAsPostgresKitsRowsDo() async throws {
        try await withPostgres { prepared, _ in
            let row = try await prepared.withConnection { db in
                try await db.raw(
                    """
                    SELECT 'héllo'::text AS t, ''::varchar AS v, 42::bigint AS b, -7::integer AS i, 2::smallint AS s,
                        2.5::double precision AS d, 1.25::real AS r, true AS yes, 3.5::numeric AS n,
                        NULL::text AS nt, NULL::bigint AS nb, NULL::double precision AS nd, NULL::boolean AS nyes
                    WHERE 1 = \(bind: 1)
                    """
                ).first()
            }
            let direct = try #require(row as? DirectPostgresRow)
            let kit = direct.row.sql()
            #expect(direct.allColumns == kit.allColumns)
            for column in direct.allColumns {
                #expect(try direct.decodeNil(column: column) == kit.decodeNil(column: column), "\(column)")
                func same<D: Decodable & Equatable>(_: D.Type) {
                    let mine = try? direct.decode(column: column, as: D.self)
                    let theirs = try? kit.decode(column: column, as: D.self)
                    #expect(
                        mine == theirs,
                        "\(column) as \(D.self): \(String(describing: mine)) against \(String(describing: theirs))")
                }
                same(String.self)
                same(String?.self)
                same(Int.self)
                same(Int?.self)
                same(Int64.self)
                same(Int64?.self)
                same(Double.self)
                same(Double?.self)
                same(Bool.self)
                same(Bool?.self)
            }
            // The hot types (NULLs included) take the direct way; a mismatch does not.
            #expect(DirectPostgresRow.direct(direct.cells["t"], as: String.self) == "héllo")
            #expect(DirectPostgresRow.direct(direct.cells["nb"], as: Int64?.self) == .some(nil))
            #expect(DirectPostgresRow.direct(direct.cells["i"], as: Int.self) == -7)
            #expect(DirectPostgresRow.direct(direct.cells["t"], as: Int.self) == nil)
            #expect(try direct.decode(column: "t", as: String.self) == "héllo")
            #expect(try direct.decode(column: "nb", as: Int64?.self) == nil)
            #expect(try direct.decode(column: "n", as: Double.self) == 3.5)  // PostgresKit's numeric workaround
            #expect(throws: (any Error).self) { try direct.decode(column: "missing", as: String.self) }
        }
    }

    /// PostgresNIO keeps a failed preparation for the statement's name on its connection; the
    /// connection then runs that statement unnamed, so it works once it can.
    @Test func aStatementThatFailedToPrepareWorksLaterOnTheSameConnection() async throws {
        try await withPostgres { prepared, _ in
            let found = try await prepared.withConnection { db in
                await #expect(throws: (any Error).self) {
                    try await db.raw("SELECT n FROM later WHERE n > \(bind: 0)").all()
                }
                try await db.raw("CREATE TABLE later (n BIGINT)").run()
                try await db.raw("INSERT INTO later (n) VALUES (\(bind: 4))").run()
                return try await db.raw("SELECT n FROM later WHERE n > \(bind: 0)").first()?.decode(
                    column: "n", as: Int.self)
            }
            #expect(found == 4)
        }
    }
}
