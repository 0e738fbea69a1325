import Logging
import NIOCore
import PostgresKit
import Synchronization

/// SQLKit's view of one pooled PostgreSQL connection that keeps its statements prepared.
///
/// PostgresKit sends every statement as an unnamed one: PostgreSQL parses, analyses and plans it
/// again on every run, and the client decodes its row description again (docs/performance.md).
/// Here a statement of
/// the data path (`SELECT`, `INSERT`, `UPDATE`, `DELETE`, `WITH`) whose binds all have a binary
/// PostgreSQL type is prepared once per connection under a name (PostgresNIO's
/// prepared-statement support, which prepares on first use and keeps it for the connection's
/// life) and afterwards only bound and executed. Everything else (DDL, transaction control,
/// statements with more than `maxBinds` binds or binds that need PostgresKit's `Codable` path,
/// and new texts once `PreparedStatementNames.maxStatements` are known) goes through PostgresKit
/// unchanged.
///
/// Binds are encoded and rows decoded as PostgresKit does with its default contexts: a nil as
/// an untyped NULL, a value through its `PostgresThrowingDynamicTypeEncodable` conformance; rows
/// (`DirectPostgresRow`) give PostgresKit's answers, the hot types without its detour.
struct PreparedPostgresDatabase: SQLDatabase {
    let connection: PostgresConnection
    /// PostgresKit's own view of the same connection, for what is not prepared.
    let unnamed: any SQLDatabase
    /// Nil: every statement runs unnamed (`statements=unnamed` in the database URL).
    let names: PreparedStatementNames?
    let counter: StatementCounter

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { PostgresDialect() }
    var version: (any SQLDatabaseReportedVersion)? { nil }
    var queryLogLevel: Logger.Level? { .trace }

    /// Statements with more binds are batches whose text varies with their length: not kept.
    static let maxBinds = 32

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        counter.count()
        let (sql, binds) = serialize(query)
        guard let names, binds.count <= Self.maxBinds, Self.isDataStatement(sql),
            let (bindings, types) = Self.bindings(binds),
            let statement = names.statement(sql: sql, types: types, on: connection)
        else {
            return try await unnamed.execute(sql: query, onRow)
        }
        if logger.logLevel <= .trace {
            logger.trace("Executing prepared query", metadata: ["sql": .string(sql), "name": .string(statement.name)])
        }
        do {
            try await NamedStatement.$current.withValue(.init(name: statement.name, sql: sql)) {
                let rows = try await connection.execute(NamedStatement(bindings: bindings), logger: logger)
                for try await row in rows { onRow(DirectPostgresRow(row)) }
            }
            if !statement.known { names.record(statement.name, prepared: true, on: connection) }
        } catch {
            // A statement whose first run on this connection failed may have failed to prepare,
            // and PostgresNIO keeps that failure for the name: this connection runs it unnamed
            // from now on.
            if !statement.known { names.record(statement.name, prepared: false, on: connection) }
            throw error
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    /// Whether `sql` reads or writes rows (and so may be kept prepared): not DDL, not
    /// transaction control, not a session setting.
    static func isDataStatement(_ sql: String) -> Bool {
        var utf8 = sql.utf8.drop(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D })
        var word: [UInt8] = []
        while let byte = utf8.first, word.count < 7, byte != 0x20, byte != 0x0A, byte != 0x09, byte != 0x28 {
            word.append(byte & 0xDF)  // upper case (letters only matter)
            utf8 = utf8.dropFirst()
        }
        switch String(decoding: word, as: UTF8.self) {
        case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH": return true
        default: return false
        }
    }

    /// The binds as PostgresKit would encode them, with their types; nil when one of them needs
    /// PostgresKit's `Codable` path.
    static func bindings(_ binds: [any Encodable & Sendable]) -> (PostgresBindings, [UInt32])? {
        var bindings = PostgresBindings(capacity: binds.count)
        var types: [UInt32] = []
        types.reserveCapacity(binds.count)
        for bind in binds {
            guard let type = append(bind, to: &bindings) else { return nil }
            types.append(type)
        }
        return (bindings, types)
    }

    private static func append<T: Encodable>(_ value: T, to bindings: inout PostgresBindings) -> UInt32? {
        if let optional = value as? any OptionalBind, optional.isNil {
            bindings.appendNull()
            return PostgresDataType.null.rawValue
        }
        guard let encodable = value as? any PostgresThrowingDynamicTypeEncodable,
            (try? bindings.append(encodable, context: .default)) != nil
        else { return nil }
        return encodable.psqlType.rawValue
    }
}

/// A PostgreSQL row for SQLKit whose hot types (text, integers, reals, booleans and their
/// optionals) decode straight from their cells, as SQLite's rows do (`SQLiteRowValues.direct`).
/// PostgresKit's row sends every value through `PostgresDataTranslation`, a coding path, a
/// dynamic cast and its workarounds, a large part of a usage report's CPU in this process.
/// Any other type, a cell of a user-defined or `numeric` type (PostgresKit's workarounds), and
/// any value the direct decoding refuses go through PostgresKit's row, so every answer is
/// PostgresKit's.
struct DirectPostgresRow: SQLRow {
    let row: PostgresRow
    let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row
        cells = row.makeRandomAccess()
    }

    var allColumns: [String] { cells.map(\.columnName) }
    func contains(column: String) -> Bool { cells.contains(column) }
    func decodeNil(column: String) throws -> Bool { !cells.contains(column) || cells[column].bytes == nil }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        if cells.contains(column), let value = Self.direct(cells[column], as: D.self) { return value }
        return try row.sql().decode(column: column, as: D.self)
    }

    static func direct<D>(_ cell: PostgresCell, as type: D.Type) -> D? {
        guard !cell.dataType.isUserDefined, cell.dataType != .numeric else { return nil }
        // Called only with P the same type as D (checked before each call).
        func value<P: PostgresDecodable>(_: P.Type) -> D? {
            guard let decoded = try? cell.decode(P.self) else { return nil }
            return unsafeBitCast(decoded, to: D.self)
        }
        if D.self == String.self { return value(String.self) }
        if D.self == String?.self { return value(String?.self) }
        if D.self == Int64.self { return value(Int64.self) }
        if D.self == Int.self { return value(Int.self) }
        if D.self == Int64?.self { return value(Int64?.self) }
        if D.self == Int?.self { return value(Int?.self) }
        if D.self == Double.self { return value(Double.self) }
        if D.self == Double?.self { return value(Double?.self) }
        if D.self == Bool.self { return value(Bool.self) }
        if D.self == Bool?.self { return value(Bool?.self) }
        return nil
    }
}

/// Tells a nil bind from a value (`value as Any? == nil`, PostgresKit's test, is false for a
/// nil inside an existential, which then takes its slow `Codable` path).
private protocol OptionalBind {
    var isNil: Bool { get }
}

extension Optional: OptionalBind {
    fileprivate var isNil: Bool { self == nil }
}

/// A prepared statement whose name and text are the running statement's: PostgresNIO asks a
/// prepared statement's type for them (synchronously, in the task that executes it), so they
/// come from a task-local value set around each run.
private struct NamedStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        var name: String
        var sql: String
    }
    typealias Row = PostgresRow

    @TaskLocal static var current = Text(name: "", sql: "")
    static var name: String { current.name }
    static var sql: String { current.sql }

    let bindings: PostgresBindings
    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// The names of the statements kept prepared, shared by a database's connections, and which
/// connection prepared which.
///
/// A name stands for one text with one list of bind types (a NULL bind is untyped, so a
/// statement with and without a NULL are two). At most `maxStatements` are named, so a
/// connection never holds more on the server.
final class PreparedStatementNames: Sendable {
    static let maxStatements = 256

    struct Statement {
        var name: String
        /// This connection ran it before (so it is prepared there).
        var known: Bool
    }

    private struct Key: Hashable {
        var sql: String
        var types: [UInt32]
    }

    private struct State {
        var names: [Key: String] = [:]
        /// Per connection: the names it has prepared (true) or failed to (false).
        var connections: [ObjectIdentifier: [String: Bool]] = [:]
    }

    private let state = Mutex(State())

    /// The name to run `sql` with `types` under on `connection`; nil when it runs unnamed (too
    /// many texts, or its preparation failed there).
    func statement(sql: String, types: [UInt32], on connection: PostgresConnection) -> Statement? {
        let id = ObjectIdentifier(connection)
        let (statement, firstSight) = state.withLock { state -> (Statement?, Bool) in
            let key = Key(sql: sql, types: types)
            let name: String
            if let known = state.names[key] {
                name = known
            } else {
                guard state.names.count < Self.maxStatements else { return (nil, false) }
                name = "ql\(state.names.count + 1)"
                state.names[key] = name
            }
            guard let seen = state.connections[id] else {
                state.connections[id] = [:]
                return (Statement(name: name, known: false), true)
            }
            switch seen[name] {
            case true?: return (Statement(name: name, known: true), false)
            case false?: return (nil, false)
            case nil: return (Statement(name: name, known: false), false)
            }
        }
        if firstSight {
            // A new connection may reuse a closed one's address: forget it when it closes.
            connection.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLock { _ = $0.connections.removeValue(forKey: id) }
            }
        }
        return statement
    }

    /// Records that `name` prepared on `connection` (`true`) or failed to (`false`); nothing
    /// once the connection has closed (a later connection at its address starts afresh).
    func record(_ name: String, prepared: Bool, on connection: PostgresConnection) {
        state.withLock { $0.connections[ObjectIdentifier(connection)]?[name] = prepared }
    }

    /// Names given so far (for tests).
    var count: Int { state.withLock { $0.names.count } }
}
