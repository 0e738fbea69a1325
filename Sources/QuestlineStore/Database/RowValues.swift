import Foundation
import QuestlineCore
import SQLKit

/// A core value a row keeps as text: ids, local days, the kinds of a few enumerations. Read with
/// `row.decode(column:as:)` like any `Decodable`; a cell that does not parse is a decoding error
/// naming the column, never a crash. The text is read through the rows' fast path for `String`
/// (`SQLiteRowValues.direct`, `DirectPostgresRow.direct`), not the generic decoders.
protocol StoredAsText: Decodable {
    init?(storedText: String)
}

extension Identifier: StoredAsText {
    init?(storedText: String) { self.init(storedText) }
}

extension LocalDay: StoredAsText {
    init?(storedText: String) { self.init(iso: storedText) }
}

extension LiveEventKind: StoredAsText {
    init?(storedText: String) { self.init(rawValue: storedText) }
}

extension SQLRow {
    /// The value of `column`, or a decoding error naming the column and what it held.
    func decode<V: StoredAsText>(column: String, as type: V.Type) throws -> V {
        let text = try decode(column: column, as: String.self)
        guard let value = V(storedText: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [SQLCodingKey(stringValue: column)],
                    debugDescription: "Column \(column) holds \"\(text)\", not a \(V.self)"))
        }
        return value
    }
}

extension Optional {
    /// The row a statement must have returned (a count, what a write just stored), or
    /// `StoreError.noRowReturned` naming it: a missing row is an error, never a crash.
    public func orNoRow(_ statement: @autoclosure () -> String) throws -> Wrapped {
        guard let self else { throw StoreError.noRowReturned(statement()) }
        return self
    }
}
