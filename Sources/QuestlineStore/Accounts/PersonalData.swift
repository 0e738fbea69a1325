public import Foundation
public import QuestlineCore
import SQLKit

/// Everything held about a member, table by table: what an export returns and what deletion
/// removes. docs/privacy.md lists the same tables and what happens to each; the deletion test
/// walks every table of the schema for the member's id afterwards.
public enum PersonalData {
    /// A table that holds rows of a member, the column that names them, and where its rows go
    /// in the export (`section` of the feature, under `name`; nil: bookkeeping, not exported).
    struct Holding: Sendable {
        let table: String
        let column: String
        /// Columns never exported (secrets: a password's hash, a session token's hash).
        var secret: Set<String> = []
        var export: (section: ExportSection, name: String)? = nil
        /// The table has no foreign key to `members`: its rows are deleted by this column.
        var withoutForeignKey = false
    }

    /// The member being deleted, as a module's `forget` sees them.
    struct Departing: Sendable {
        let id: MemberID
        /// The logins they had (their e-mail, their username), for what is keyed by a login.
        let logins: [String]
    }

    /// The features an export is grouped by, in order.
    public enum ExportSection: String, Sendable, CaseIterable, Encodable {
        case profile, reading, saved, game, quests, points, stories, notifications
    }

    /// The member's own rows, as each feature's schema declares them (`StoreModule`). On
    /// deletion the `members` row goes last; the rest go by its foreign keys (`ON DELETE
    /// CASCADE`) or, where a table has none, explicitly.
    static var holdings: [Holding] { StoreModules.all.flatMap { $0.personalData } }

    /// Everything held about `member`, readable: by feature (`ExportSection`), then by kind of
    /// record; field names in camelCase, times (`…At`) as ISO 8601, without the member's own id
    /// on every record, secrets or bookkeeping rows.
    public static func export(_ member: MemberID, now: Date, on database: Database) async throws -> MemberArchive {
        try await database.withConnection { db in
            var sections: [ExportSection: [String: [[String: ExportValue]]]] = [:]
            for section in ExportSection.allCases { sections[section] = [:] }
            for holding in holdings {
                guard let (section, name) = holding.export else { continue }
                let rows = try await db.raw(
                    "SELECT * FROM \(ident: holding.table) WHERE \(ident: holding.column) = \(bind: member.rawValue)"
                ).all()
                sections[section]?[name] = rows.map { row in
                    var object: [String: ExportValue] = [:]
                    for column in row.allColumns
                    where !holding.secret.contains(column) && (column != holding.column || holding.table == "members") {
                        object[Self.fieldName(column)] = Self.readable(ExportValue(row, column), column: column)
                    }
                    return object
                }
            }
            return MemberArchive(memberId: member.rawValue, exportedAt: now, sections: sections)
        }
    }

    /// `created_at` → `createdAt`.
    static func fieldName(_ column: String) -> String {
        let parts = column.split(separator: "_")
        return (parts.first.map(String.init) ?? column)
            + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Times are stored as milliseconds since 1970 in columns named `…_at`: exported as ISO 8601.
    static func readable(_ value: ExportValue, column: String) -> ExportValue {
        guard column == "at" || column.hasSuffix("_at"), case .number(let millis) = value else { return value }
        return .text(Date(storedMillis: millis).formatted(.iso8601))
    }

    /// Removes every row of `member` in one transaction: the tables without a foreign key by
    /// their holding, then what each module keeps in its own way (`StoreModule.forget`: what
    /// stays as an aggregate, anonymised), then the `members` row, whose foreign keys take the
    /// rest. A household left with no member goes too.
    static func delete(_ member: MemberID, login: [String], on db: any SQLDatabase) async throws {
        let id = member.rawValue
        for holding in holdings where holding.withoutForeignKey {
            try await db.raw("DELETE FROM \(ident: holding.table) WHERE \(ident: holding.column) = \(bind: id)").run()
        }
        let departing = Departing(id: member, logins: login)
        for module in StoreModules.all { try await module.forget(departing, on: db) }
        let household = try await db.raw(
            "SELECT household_id FROM household_members WHERE member_id = \(bind: id)"
        ).first()?.decode(column: "household_id", as: String.self)
        // The member's own rows, by their foreign keys.
        try await db.raw("DELETE FROM members WHERE id = \(bind: id)").run()
        if let household,
            try await db.raw("SELECT member_id FROM household_members WHERE household_id = \(bind: household)").first()
                == nil
        {
            try await db.raw("DELETE FROM live_events WHERE household_id = \(bind: household)").run()
            try await db.raw("DELETE FROM households WHERE id = \(bind: household)").run()
        }
    }
}

/// One exported value: text, a number, bytes (base64) or null.
/// What a member's export holds: by feature, then by kind of record. Encoded as
/// `{"memberId", "exportedAt", "profile": {"account": [...], ...}, "reading": {...}, ...}`, the
/// contract's `MemberExport`.
public struct MemberArchive: Sendable, Equatable, Encodable {
    public let memberId: String
    public let exportedAt: Date
    public let sections: [PersonalData.ExportSection: [String: [[String: ExportValue]]]]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ text: String) { stringValue = text }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(memberId, forKey: Key("memberId"))
        try container.encode(exportedAt.formatted(.iso8601), forKey: Key("exportedAt"))
        for section in PersonalData.ExportSection.allCases {
            try container.encode(sections[section] ?? [:], forKey: Key(section.rawValue))
        }
    }
}

public enum ExportValue: Sendable, Equatable, Encodable {
    case text(String)
    case number(Int64)
    case decimal(Double)
    case bytes(Data)
    case null

    init(_ row: any SQLRow, _ column: String) {
        if (try? row.decodeNil(column: column)) == true {
            self = .null
        } else if let value = try? row.decode(column: column, as: Int64.self) {
            self = .number(value)
        } else if let value = try? row.decode(column: column, as: Double.self) {
            self = .decimal(value)
        } else if let value = try? row.decode(column: column, as: String.self) {
            self = .text(value)
        } else if let value = try? row.decode(column: column, as: Data.self) {
            self = .bytes(value)
        } else {
            self = .null
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .decimal(let decimal): try container.encode(decimal)
        case .bytes(let bytes): try container.encode(bytes.base64EncodedString())
        case .null: try container.encodeNil()
        }
    }
}
