import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO
import Synchronization
// The SQLite library SQLiteNIO builds and links (its C target). Using the same copy matters: two
// copies of SQLite in one process would not see each other's POSIX locks on the same file.
import VaporCSQLite

/// Why a SQLite statement failed: SQLite's extended result code and its message.
public struct SQLiteFailure: Error, CustomStringConvertible, Sendable {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067, for example).
    public let code: Int32
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }

    /// A unique or primary-key constraint refused the write.
    var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE (19 | 8 << 8) and SQLITE_CONSTRAINT_PRIMARYKEY (19 | 6 << 8):
        // macros Swift does not import.
        code == 2067 || code == 1555 || (code & 0xff == SQLITE_CONSTRAINT && message.contains("UNIQUE"))
    }
}

/// One SQLite connection with a thread of its own, on which whole units of work run.
///
/// SQLiteNIO sends every statement from the event loop to a thread pool and back: two thread
/// switches a statement, and a usage report's transaction has a dozen. Here a unit of work (a
/// read, a transaction) moves onto the connection's thread once (`run`, through a task executor
/// preference) and each statement is a plain call into SQLite on that thread, so a transaction
/// costs one hop there and one back whatever its length. The connection also keeps its prepared
/// statements (keyed by their SQL), instead of preparing each statement again.
///
/// Written here because no library on this machine kind offers it: SQLiteNIO's statements are
/// internal and always hop. It uses SQLiteKit's dialect, encoder and decoder, so every
/// statement the repositories write is serialized, bound and decoded as before.
///
/// `@unchecked Sendable`: the handle and the statement cache are touched only under `lock`, and
/// the pool gives a connection to one unit of work at a time.
final class ThreadedSQLiteConnection: @unchecked Sendable {
    /// Where units of work on this connection run.
    let executor: DedicatedExecutor
    private let path: String
    private let pragmas: [String]
    private let logger: Logger
    /// Statements run on every connection of the database (see `Database.statementsRun`).
    private let counter: StatementCounter
    private let lock = NIOLock()
    /// Opened on first use, on the connection's thread.
    private var handle: OpaquePointer?
    private var statements: [String: Prepared] = [:]
    /// Set by `shutDown`: the thread is gone, so no unit of work may start.
    private let shutDown = NIOLockedValueBox(false)
    /// Statements kept at most; past it the cache starts again (a statement with a list of binds
    /// of varying length makes a new text each time).
    static let maxStatements = 256

    /// A prepared statement and its columns' names (fixed for the statement).
    private struct Prepared {
        let statement: OpaquePointer
        let columns: SQLiteColumns
        /// How many values each execution binds (all of them: bindings are not cleared).
        let parameters: Int
    }

    /// Bound text or blobs longer than this are released after the statement runs, so that a
    /// kept statement does not hold a copy of a large value (a photo) until its next run.
    static let largeBind = 4_096

    init(path: String, pragmas: [String], on loop: any EventLoop, logger: Logger, counter: StatementCounter) {
        self.counter = counter
        self.path = path
        self.pragmas = pragmas
        self.logger = logger
        executor = DedicatedExecutor(loop: loop)
    }

    /// Runs `body` on this connection's thread (one hop there, one back).
    func run<T: Sendable>(_ body: (ThreadedSQLiteDatabase) async throws -> T) async throws -> T {
        guard !shutDown.withLockedValue({ $0 }) else {
            throw SQLiteFailure(code: SQLITE_MISUSE, message: "The database is closed")
        }
        return try await withTaskExecutorPreference(executor) {
            try await body(ThreadedSQLiteDatabase(connection: self, logger: logger))
        }
    }

    private static let initialized: Bool = {
        sqlite_nio_sqlite3_initialize()
        return true
    }()

    private func openIfNeeded() throws -> OpaquePointer {
        if let handle { return handle }
        _ = Self.initialized
        var opened: OpaquePointer?
        let flags =
            SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE
        let status = sqlite_nio_sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open"
            sqlite_nio_sqlite3_close_v2(opened)
            throw SQLiteFailure(code: status, message: "\(message) (\(path))")
        }
        handle = opened
        do {
            for pragma in pragmas { try execute(pragma, [], { _ in }) }
        } catch {
            closeLocked()
            throw error
        }
        logger.debug("Opened SQLite connection", metadata: ["path": .string(path)])
        return opened
    }

    /// Runs one statement (prepared once per connection), giving each row to `onRow`.
    func query(_ sql: String, _ binds: [SQLiteData], _ onRow: (SQLiteRowValues) -> Void) throws {
        try lock.withLock { try execute(sql, binds, onRow) }
    }

    /// How many times SQLite prepared the kept statement `sql` again (nil when not kept).
    func repreparations(of sql: String) -> Int? {
        lock.withLock {
            statements[sql].map { Int(sqlite_nio_sqlite3_stmt_status($0.statement, SQLITE_STMTSTATUS_REPREPARE, 0)) }
        }
    }

    private func failure(_ handle: OpaquePointer, _ status: Int32) -> SQLiteFailure {
        let message = sqlite_nio_sqlite3_errmsg(handle).map { String(cString: $0) } ?? "unknown"
        let extended = sqlite_nio_sqlite3_extended_errcode(handle)
        return SQLiteFailure(code: extended != 0 ? extended : status, message: message)
    }

    private func prepared(_ sql: String, on handle: OpaquePointer) throws -> Prepared {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(handle, status) }
        let count = sqlite_nio_sqlite3_column_count(statement)
        let names = (0..<count).map { String(cString: sqlite_nio_sqlite3_column_name(statement, $0)) }
        let entry = Prepared(
            statement: statement, columns: SQLiteColumns(names),
            parameters: Int(sqlite_nio_sqlite3_bind_parameter_count(statement)))
        if statements.count >= Self.maxStatements { finalizeAll() }
        statements[sql] = entry
        return entry
    }

    private func execute(_ sql: String, _ binds: [SQLiteData], _ onRow: (SQLiteRowValues) -> Void) throws {
        let handle = try openIfNeeded()
        counter.count()
        let entry = try prepared(sql, on: handle)
        let statement = entry.statement
        // Every parameter is bound on every run, so the previous run's values are never used.
        // `sqlite3_clear_bindings` is not called after a run: it marks any statement whose plan
        // looked at a bound value (even only to ask whether it is 0 or 1, which the planner does
        // for equality terms outside the index) as expired, and SQLite then prepared it again
        // on its next run.
        guard binds.count == entry.parameters else {
            throw SQLiteFailure(
                code: SQLITE_RANGE, message: "\(binds.count) values bound to \(entry.parameters) parameters")
        }
        var holdsLarge = false
        defer {
            sqlite_nio_sqlite3_reset(statement)
            if holdsLarge { sqlite_nio_sqlite3_clear_bindings(statement) }
        }
        for (offset, bind) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch bind {
            case .integer(let value): status = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
            case .float(let value): status = sqlite_nio_sqlite3_bind_double(statement, index, value)
            case .text(let value):
                if value.utf8.count > Self.largeBind { holdsLarge = true }
                var value = value
                status = value.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { text in
                        // A nil pointer would bind NULL, not the empty text.
                        guard let start = text.baseAddress else {
                            return sqlite_nio_sqlite3_bind_text64(
                                statement, index, "", 0, Self.transient, UInt8(SQLITE_UTF8))
                        }
                        return sqlite_nio_sqlite3_bind_text64(
                            statement, index, start, UInt64(text.count), Self.transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let buffer):
                if buffer.readableBytes > Self.largeBind { holdsLarge = true }
                status = buffer.withUnsafeReadableBytes {
                    sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), Self.transient)
                }
            case .null: status = sqlite_nio_sqlite3_bind_null(statement, index)
            }
            guard status == SQLITE_OK else { throw failure(handle, status) }
        }
        let count = Int32(entry.columns.names.count)
        while true {
            let status = sqlite_nio_sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(handle, status) }
            var values: [SQLiteData] = []
            values.reserveCapacity(Int(count))
            for column in 0..<count { values.append(Self.value(statement, column)) }
            onRow(SQLiteRowValues(columns: entry.columns, values: values))
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .text("") }
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            if let bytes = sqlite_nio_sqlite3_column_blob(statement, column) {
                buffer.writeBytes(UnsafeRawBufferPointer(start: bytes, count: length))
            }
            return .blob(buffer)
        default: return .null
        }
    }

    private func finalizeAll() {
        for entry in statements.values { sqlite_nio_sqlite3_finalize(entry.statement) }
        statements.removeAll(keepingCapacity: true)
    }

    private func closeLocked() {
        finalizeAll()
        if let handle { sqlite_nio_sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Finalizes the kept statements and closes the connection for good.
    func close() {
        shutDown.withLockedValue { $0 = true }
        lock.withLock { closeLocked() }
    }
}

/// A statement's column names, shared by its rows.
final class SQLiteColumns: Sendable {
    let names: [String]
    let positions: [String: Int]

    init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (position, name) in names.enumerated() where positions[name] == nil { positions[name] = position }
        self.positions = positions
    }
}

/// One row, read by column name (SQLKit's `SQLRow`) with SQLiteKit's decoder.
struct SQLiteRowValues: SQLRow {
    let columns: SQLiteColumns
    let values: [SQLiteData]

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.positions[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let position = columns.positions[column] else { return true }
        return values[position] == .null
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let position = columns.positions[column] else {
            throw DecodingError.keyNotFound(
                SQLCodingKey(stringValue: column),
                .init(codingPath: [], debugDescription: "No column \(column) in the row"))
        }
        let value = values[position]
        return try Self.direct(value, as: D.self) ?? Self.decoder.decode(D.self, from: value)
    }

    /// One decoder for every row (each `SQLiteDataDecoder()` makes a `JSONDecoder`).
    private static let decoder = SQLiteDataDecoder()

    /// The hot column types read without the decoder's dynamic casts: text as `String`, an
    /// integer as `Int` or `Int64`, a real as `Double`, and these as optionals (NULL is nil). Any
    /// other pairing (nil here) goes to SQLiteKit's decoder, which gives the same answers for
    /// these and handles the rest.
    static func direct<D>(_ value: SQLiteData, as type: D.Type) -> D? {
        switch value {
        case .text(let text):
            if D.self == String.self { return unsafeBitCast(text, to: D.self) }
            if D.self == String?.self { return unsafeBitCast(String?.some(text), to: D.self) }
        case .integer(let number):
            if D.self == Int64.self { return unsafeBitCast(Int64(number), to: D.self) }
            if D.self == Int.self { return unsafeBitCast(number, to: D.self) }
            if D.self == Int64?.self { return unsafeBitCast(Int64?.some(Int64(number)), to: D.self) }
            if D.self == Int?.self { return unsafeBitCast(Int?.some(number), to: D.self) }
        case .float(let number):
            if D.self == Double.self { return unsafeBitCast(number, to: D.self) }
        case .null:
            if D.self == String?.self { return unsafeBitCast(String?.none, to: D.self) }
            if D.self == Int64?.self { return unsafeBitCast(Int64?.none, to: D.self) }
            if D.self == Int?.self { return unsafeBitCast(Int?.none, to: D.self) }
        case .blob: break
        }
        return nil
    }
}

/// A coding key for a column's name.
struct SQLCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// SQLKit's view of a `ThreadedSQLiteConnection`: statements run at once, on the calling
/// thread (the connection's own, inside `run`).
struct ThreadedSQLiteDatabase: SQLDatabase {
    let connection: ThreadedSQLiteConnection
    let logger: Logger

    var eventLoop: any EventLoop { connection.executor.loop }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { .trace }

    /// One encoder for every statement (each `SQLiteDataEncoder()` makes a `JSONEncoder`).
    private static let encoder = SQLiteDataEncoder()

    private func runNow(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        if logger.logLevel <= .trace {
            logger.trace("Executing query", metadata: ["sql": .string(sql)])
        }
        try connection.query(sql, try binds.map { try Self.encoder.encode($0) }, { onRow($0) })
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        do {
            try runNow(query, onRow)
            return eventLoop.makeSucceededVoidFuture()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try runNow(query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }
}

/// How many statements a database's connections ran: one relaxed atomic add a statement, read
/// by the tests that hold a request to its budget of statements (`Database.statementsRun`).
final class StatementCounter: Sendable {
    private let value = Atomic<Int>(0)
    func count() { value.add(1, ordering: .relaxed) }
    var total: Int { value.load(ordering: .relaxed) }
}

/// SQLite's connections for one database file: one writer, a pool of readers, one for
/// checkpoints, each with its thread (see `ThreadedSQLiteConnection`).
final class SQLiteConnections: Sendable {
    let writer: ThreadedSQLiteConnection
    /// Kept apart from the others, so that a checkpoint never holds a connection a request waits for.
    let checkpointer: ThreadedSQLiteConnection
    private let readers: [ThreadedSQLiteConnection]
    private let group: MultiThreadedEventLoopGroup
    let statements = StatementCounter()

    private struct Idle {
        var free: [ThreadedSQLiteConnection]
        var waiting: [CheckedContinuation<ThreadedSQLiteConnection, Never>] = []
    }
    private let idle: NIOLockedValueBox<Idle>

    init(path: String, pragmas: [String], readers count: Int, logger: Logger) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: count + 2)
        var loops = group.makeIterator()
        let counter = statements
        func connection() -> ThreadedSQLiteConnection {
            ThreadedSQLiteConnection(path: path, pragmas: pragmas, on: loops.next()!, logger: logger, counter: counter)
        }
        writer = connection()
        checkpointer = connection()
        readers = (0..<count).map { _ in connection() }
        idle = NIOLockedValueBox(Idle(free: readers))
    }

    /// A reader for one unit of work; waits (first come, first served) while all are busy. No
    /// timeout (SQLiteNIO's pool gave up after 30 s): a reader is held only while its statements
    /// run on its own thread, never across a wait for anything else.
    func checkOut() async -> ThreadedSQLiteConnection {
        await withCheckedContinuation { continuation in
            let free = idle.withLockedValue { idle -> ThreadedSQLiteConnection? in
                if let free = idle.free.popLast() { return free }
                idle.waiting.append(continuation)
                return nil
            }
            if let free { continuation.resume(returning: free) }
        }
    }

    func checkIn(_ connection: ThreadedSQLiteConnection) {
        let next = idle.withLockedValue { idle -> CheckedContinuation<ThreadedSQLiteConnection, Never>? in
            if idle.waiting.isEmpty {
                idle.free.append(connection)
                return nil
            }
            return idle.waiting.removeFirst()
        }
        next?.resume(returning: connection)
    }

    func shutdown() async {
        for connection in readers + [writer, checkpointer] { connection.close() }
        try? await group.shutdownGracefully()
    }
}
