import AsyncKit
public import Foundation
public import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresKit
public import QuestlineCore
public import SQLKit
import Tracing

/// Where the data lives.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file (created when missing), in WAL mode. The embedded default.
    case sqlite(path: String)
    /// A PostgreSQL database, as a `postgres://user:pass@host:port/db?sslmode=disable` URL.
    case postgres(url: String)

    /// `DATABASE_URL` selects PostgreSQL; otherwise the SQLite file at `defaultSQLitePath`.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        defaultSQLitePath: String
    ) -> StoreLocation {
        if let url = environment["DATABASE_URL"], !url.isEmpty {
            return url.hasPrefix("sqlite:")
                ? .sqlite(path: String(url.dropFirst("sqlite:".count))) : .postgres(url: url)
        }
        return .sqlite(path: defaultSQLitePath)
    }

    /// Where it is, with any password hidden.
    public var description: String {
        switch self {
        case .sqlite(let path): return "SQLite at \(path)"
        case .postgres(let url):
            guard var parts = URLComponents(string: url) else { return "PostgreSQL" }
            if parts.password != nil { parts.password = "***" }
            return "PostgreSQL at \(parts.string ?? "?")"
        }
    }
}

public enum SQLFlavor: Sendable {
    case sqlite
    case postgres
}

/// Who checkpoints SQLite's write-ahead log (copies it back into the database file).
public enum WALCheckpoints: Sendable {
    /// SQLite itself, inside the commit that takes the log past 1,000 pages: that commit (and
    /// every writer queued behind it) waits for the copy and its fsync. Right for short-lived
    /// processes (the CLI, tests).
    case automatic
    /// The owner calls `Database.checkpoint()` every second or so (the server's
    /// `CheckpointService`), on a connection of its own: the copy runs beside the writers, who
    /// wait only for its short last pass. Commits still checkpoint past 10,000 pages (about
    /// 40 MB), should the owner fall behind.
    case background

    /// `PRAGMA wal_autocheckpoint` for this mode (SQLite's default is 1,000 pages).
    var autocheckpointPages: Int { self == .automatic ? 1_000 : 10_000 }
}

public enum StoreError: Error, CustomStringConvertible {
    case invalidDatabaseURL(String)
    case migrationFailed(version: Int, name: String, underlying: String)
    case noRowReturned(String)
    /// A stored row that does not decode as what the code expects: the store's fault, never the
    /// request's (a `DecodingError` would read as a refused request body).
    case unreadableRow(String)

    public var description: String {
        switch self {
        case .invalidDatabaseURL(let reason): return "Invalid DATABASE_URL: \(reason)"
        case .migrationFailed(let version, let name, let underlying):
            return "Migration \(version) (\(name)) failed: \(underlying)"
        case .noRowReturned(let statement): return "No row returned by \(statement)"
        case .unreadableRow(let reason): return "A stored row does not decode: \(reason)"
        }
    }
}

/// The one SQL layer for both databases (SQLKit), with a connection pool, plain reads and
/// serializable-enough write transactions.
///
/// `@unchecked Sendable` is safe: the stored properties are immutable after `init`, and each
/// backend's connections are thread-safe (SQLite's each on a thread of its own behind a lock;
/// `EventLoopGroupConnectionPool` is documented thread-safe: its state is lock-protected and
/// each per-loop pool hops onto its own event loop).
public final class Database: @unchecked Sendable {
    public let location: StoreLocation
    /// Who checkpoints SQLite's log; with `.background`, the owner calls `checkpoint()`.
    public let checkpoints: WALCheckpoints
    let logger: Logger
    /// The connections, one backend or the other; what differs between the two databases'
    /// SQL is the dialect's (`SQLFlavor`), decided where each statement is written.
    private let backend: Backend

    private enum Backend {
        /// A writer, readers and a checkpoint connection, each on a thread of its own (not the
        /// shared `NIOThreadPool.singleton`, which also hashes passwords); the write
        /// transactions, one at a time on the writer, concurrent ones committed together
        /// (`SQLiteWriteGroup`).
        case sqlite(SQLiteConnections, writes: SQLiteWriteGroup)
        case postgres(PostgresBackend)
    }

    /// PostgreSQL: the pool, the statements kept prepared on its connections
    /// (`PreparedPostgresDatabase`; nil with `statements=unnamed` in the URL), how many
    /// statements they ran, and how to reach the server outside the pool.
    private struct PostgresBackend {
        let pool: EventLoopGroupConnectionPool<PostgresConnectionSource>
        let names: PreparedStatementNames?
        let statements = StatementCounter()
        let configuration: SQLPostgresConfiguration
    }
    /// Which database this is (its SQL dialect), as the backend says.
    public var flavor: SQLFlavor {
        switch backend {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }
    /// SQLite reader connections per core.
    static let sqliteReadersPerCore = 2
    /// PostgreSQL connections per event loop when no pool size is given.
    public static let defaultPostgresConnectionsPerLoop = 8
    /// PostgreSQL: the statements kept prepared on the pool's connections; nil otherwise.
    var postgresNames: PreparedStatementNames? {
        guard case .postgres(let postgres) = backend else { return nil }
        return postgres.names
    }

    /// How PostgreSQL is reached (for connections outside the pool: the live-event listener).
    var postgresConfiguration: SQLPostgresConfiguration? {
        guard case .postgres(let postgres) = backend else { return nil }
        return postgres.configuration
    }
    /// The most pooled connections this instance opens (PostgreSQL: per event loop × loops).
    public let poolSize: Int

    /// Where batched writers run their transactions: on SQLite, the writer connection's own
    /// thread (see `ThreadedSQLiteConnection`); on PostgreSQL, anywhere (each statement goes through a socket
    /// served by an event loop anyway, and a thread of its own measured slower for single reads
    /// and hardly faster for batches, docs/performance.md).
    public var writerExecutor: (any TaskExecutor)? {
        guard case .sqlite(let connections, _) = backend else { return nil }
        return connections.writer.executor
    }

    /// The statements this database's connections have run since it opened (SQLite's pragmas
    /// included), so that a test can hold a request to its budget.
    public var statementsRun: Int {
        switch backend {
        case .sqlite(let connections, _): connections.statements.total
        case .postgres(let postgres): postgres.statements.total
        }
    }

    /// `poolSize` caps PostgreSQL's pooled connections for the whole instance (spread over the
    /// event loops, at least one each); nil keeps `defaultPostgresConnectionsPerLoop` a loop.
    public init(
        _ location: StoreLocation, checkpoints: WALCheckpoints = .automatic, poolSize: Int? = nil,
        logger: Logger = Logger(label: "questline.store")
    ) throws {
        self.location = location
        self.checkpoints = checkpoints
        self.logger = logger
        let group = MultiThreadedEventLoopGroup.singleton
        switch location {
        case .sqlite(let path):
            let readers = Self.sqliteReadersPerCore * System.coreCount
            let connections = SQLiteConnections(
                path: path, pragmas: SQLiteTuning.pragmas(autocheckpointPages: checkpoints.autocheckpointPages),
                readers: readers, logger: logger)
            backend = .sqlite(connections, writes: SQLiteWriteGroup(writer: connections.writer, logger: logger))
            self.poolSize = readers + 1
        case .postgres(let url):
            var configuration: SQLPostgresConfiguration
            do { configuration = try SQLPostgresConfiguration(url: url) } catch {
                throw StoreError.invalidDatabaseURL(
                    "expected postgres://user:password@host:port/database[?sslmode=disable][&schema=name][&statements=unnamed]"
                )
            }
            let options = URLComponents(string: url)?.queryItems ?? []
            // `schema=name` puts Questline's tables in that schema (used by the tests to isolate runs).
            if let schema = options.first(where: { $0.name == "schema" })?.value, !schema.isEmpty {
                configuration.searchPath = [schema]
            }
            // `statements=unnamed` sends every statement unnamed, as PostgresKit does: for a pooler
            // that hands a session's statements to different server connections (PgBouncer in
            // transaction mode before 1.21), where a named statement would not be found.
            let names: PreparedStatementNames?
            switch options.first(where: { $0.name == "statements" })?.value {
            case nil, "prepared": names = PreparedStatementNames()
            case "unnamed": names = nil
            case let other?:
                throw StoreError.invalidDatabaseURL(
                    "statements=\(other): expected statements=prepared or statements=unnamed")
            }
            let loops = NIOSingletons.groupLoopCountSuggestion
            let perLoop = poolSize.map { max(1, $0 / loops) } ?? Self.defaultPostgresConnectionsPerLoop
            self.poolSize = perLoop * loops
            let pool = EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration),
                maxConnectionsPerEventLoop: perLoop, requestTimeout: .seconds(30), logger: logger, on: group)
            backend = .postgres(PostgresBackend(pool: pool, names: names, configuration: configuration))
        }
    }

    /// `questline_db_pool_wait_seconds`: how long a request waited for a pooled connection (the
    /// metric is looked up at each use, so that it reaches the metrics system however early the
    /// database is opened).
    private func recordPoolWait(since asked: UInt64) {
        Timer(
            label: "questline_db_pool_wait_seconds",
            dimensions: [("database", flavor == .sqlite ? "sqlite" : "postgres")]
        )
        .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - asked))
    }

    /// Runs `body` on one pooled connection, without a transaction: for reads. Every write goes
    /// through `transaction`, even a single statement, so SQLite writers queue in order.
    public func withConnection<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        let asked = DispatchTime.now().uptimeNanoseconds
        switch backend {
        case .sqlite(let connections, _):
            let connection = await connections.checkOut()
            defer { connections.checkIn(connection) }
            recordPoolWait(since: asked)
            return try await Self.readingRows { try await connection.run { db in try await body(db) } }
        case .postgres(let postgres):
            let connection = try await postgres.pool.requestConnection(logger: logger).get()
            defer { postgres.pool.releaseConnection(connection, logger: logger) }
            recordPoolWait(since: asked)
            return try await Self.readingRows {
                try await body(
                    PreparedPostgresDatabase(
                        connection: connection, unnamed: connection.sql(queryLogLevel: .trace),
                        names: postgres.names, counter: postgres.statements))
            }
        }
    }

    /// Runs `body`, turning a row that does not decode into `StoreError.unreadableRow`.
    private static func readingRows<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as DecodingError {
            throw StoreError.unreadableRow(String(describing: error))
        }
    }

    /// Runs one statement that is atomic by itself (an upsert) as its own transaction: on
    /// PostgreSQL without BEGIN, COMMIT or the acting members' check (a round trip each); on
    /// SQLite in the writer's turn, as every write.
    public func autocommit<T: Sendable>(_ statement: (any SQLDatabase) async throws -> T) async throws -> T {
        guard flavor == .postgres else { return try await transaction(.system, statement) }
        return try await withConnection(statement)
    }

    /// Runs `body` in one transaction: all of it commits, or none of it does.
    ///
    /// SQLite uses `BEGIN IMMEDIATE`, so a writer takes the write lock up front and never
    /// deadlocks upgrading a read; other writers wait (busy timeout) rather than fail.
    ///
    /// The caller's `scope` says whom it acts for (they must still exist when it commits) and
    /// which requests' idempotency claims it marks applied in the same transaction, so that a
    /// retry finds the write and its key together, or neither (see `WriteScope`).
    ///
    /// `lastly` runs after those checks, as the transaction's last statements before COMMIT:
    /// what takes a lock that others queue on (the household's live-event lock) holds it for as
    /// few round trips as possible.
    public func transaction<T: Sendable>(
        _ scope: WriteScope, lastly: ((any SQLDatabase) async throws -> Void)? = nil,
        _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let steps = TransactionSteps(scope: scope, lastly: lastly)
        return try await withSpan("db.transaction", ofKind: .client) { span in
            span.attributes["db.system"] = flavor == .sqlite ? "sqlite" : "postgresql"
            // SQLite: the whole transaction on the writer connection's thread, one hop, in a
            // write group that BEGIN and COMMIT frame.
            if case .sqlite(_, let writes) = backend {
                return try await writes.transaction { db in try await runSteps(db, steps, body) }
            }
            return try await withConnection { db in
                try await db.raw("BEGIN").run()
                do {
                    let result = try await runSteps(db, steps, body)
                    try await db.raw("COMMIT").run()
                    return result
                } catch {
                    do { try await db.raw("ROLLBACK").run() } catch {
                        logger.error("Rollback failed", metadata: ["error": "\(error)"])
                    }
                    throw error
                }
            }
        }
    }

    /// How many SQLite write transactions committed, and how many transactions they held
    /// (`SQLiteWriteGroup`); nil on PostgreSQL.
    var sqliteGroupCommits: (commits: Int, members: Int)? {
        guard case .sqlite(_, let writes) = backend else { return nil }
        return writes.committed
    }

    /// What a transaction does after its body: the checks, then `lastly`, then COMMIT.
    private struct TransactionSteps {
        let scope: WriteScope
        let lastly: ((any SQLDatabase) async throws -> Void)?
    }

    /// A transaction's body and what follows it before COMMIT.
    private func runSteps<T: Sendable>(
        _ db: any SQLDatabase, _ steps: TransactionSteps, _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let result = try await Self.readingRows { try await body(db) }
        // The acting members' rows are held (`FOR KEY SHARE`) from here to the commit, so
        // the check need not be the very last statement.
        try await steps.scope.finish(flavor: flavor, on: db)
        try await steps.lastly?(db)
        return result
    }

    /// Runs `body` while no other instance on this database runs its own `exclusively` block
    /// with the same `lock`: on PostgreSQL, a session advisory lock held on one pooled
    /// connection meanwhile (`body` uses others); on SQLite, which one instance serves, at once.
    /// For start-up work that must happen once (demo data, bundled content) when several
    /// instances start together.
    public func exclusively<T: Sendable>(lock: Int64, _ body: () async throws -> T) async throws -> T {
        guard flavor == .postgres else { return try await body() }
        return try await withConnection { db in
            try await db.raw("SELECT pg_advisory_lock(\(bind: lock))").run()
            do {
                let result = try await body()
                try await db.raw("SELECT pg_advisory_unlock(\(bind: lock))").run()
                return result
            } catch {
                try? await db.raw("SELECT pg_advisory_unlock(\(bind: lock))").run()
                throw error
            }
        }
    }

    /// Copies SQLite's write-ahead log into the database file (`PRAGMA wal_checkpoint(PASSIVE)`,
    /// which never waits for readers), on a connection of its own, so that the next commit can
    /// start the log over. Returns the log's size and how much of it is copied, in pages, as of
    /// the last pass; nil on PostgreSQL.
    @discardableResult
    public func checkpoint() async throws -> (logPages: Int, copiedPages: Int)? {
        guard case .sqlite(let connections, let writes) = backend else { return nil }
        let connection = connections.checkpointer
        // busy, log, checkpointed: the log's pages and how many of them are copied.
        func pass() async throws -> (logPages: Int, copiedPages: Int) {
            let row = try await connection.run { db in try await db.raw("PRAGMA wal_checkpoint(PASSIVE)").first() }
            guard let row, let log = try? row.decode(column: "log", as: Int.self),
                let copied = try? row.decode(column: "checkpointed", as: Int.self)
            else { return (0, 0) }
            return (log, copied)
        }
        // The bulk is copied while writers go on. But under a steady stream of commits the log
        // has grown by the time a pass ends (what it reports is as of its start), and SQLite
        // starts the log over only when a write begins after a pass that copied all of it. So
        // passes repeat while the log grew by more than 1,000 pages during the last one (under
        // batch load a pass takes a good part of a second), and a last pass, with writers
        // held back, copies the few pages committed meanwhile; the next commit starts the log over.
        let started = ContinuousClock.now
        var last = try await pass()
        var passes = 1
        for _ in 0..<4 {
            let next = try await pass()
            passes += 1
            defer { last = next }
            if next.logPages - last.logPages < 1_000 { break }
        }
        let unlocked = ContinuousClock.now
        var held = unlocked
        let final = try await writes.exclusively {
            held = ContinuousClock.now
            return try await pass()
        }
        let done = ContinuousClock.now
        func ms(_ duration: Duration) -> Logger.MetadataValue {
            .string(String((duration / .milliseconds(1) * 100).rounded() / 100))
        }
        logger.debug(
            "Checkpoint",
            metadata: [
                "passes": "\(passes + 1)", "log_pages": "\(final.logPages)", "unlocked_ms": ms(unlocked - started),
                "lock_wait_ms": ms(held - unlocked), "writers_held_ms": ms(done - held),
            ])
        return final
    }

    public func shutdown() async {
        switch backend {
        case .sqlite(let connections, _): await connections.shutdown()
        case .postgres(let postgres):
            do {
                try await postgres.pool.shutdownAsync()
            } catch {
                logger.warning("Database pool shutdown", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// How Questline opens SQLite for a server: WAL journal, NORMAL sync (durable in WAL across
/// process crashes), a busy timeout instead of "database is locked", foreign keys on. The log
/// is checkpointed as `WALCheckpoints` says, and cut back to 64 MB when it restarts (a burst of
/// writes would otherwise leave a file as large as the burst).
enum SQLiteTuning {
    static func pragmas(autocheckpointPages: Int) -> [String] {
        [
            "PRAGMA busy_timeout = 10000",
            "PRAGMA journal_mode = WAL",
            "PRAGMA synchronous = NORMAL",
            "PRAGMA foreign_keys = ON",
            "PRAGMA wal_autocheckpoint = \(autocheckpointPages)",
            "PRAGMA journal_size_limit = \(64 << 20)",
        ]
    }
}

/// Whether `error` is a unique-constraint violation, on either database.
public func isUniqueViolation(_ error: any Error) -> Bool {
    if let sqlite = error as? SQLiteFailure { return sqlite.isUniqueViolation }
    if let postgres = error as? PSQLError {
        return postgres.serverInfo?[.sqlState] == "23505"
    }
    return false
}

extension Date {
    /// Milliseconds since 1970, the storage form of every instant.
    var storedMillis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(storedMillis: Int64) { self.init(timeIntervalSince1970: Double(storedMillis) / 1000) }
}
