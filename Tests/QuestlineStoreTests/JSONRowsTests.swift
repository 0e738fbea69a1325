import Foundation
import Testing

@testable import QuestlineStore

/// Rows written without `JSONEncoder` (`JSONRows`) parse to the values `JSONEncoder`'s rows
/// parse to, for every character class a title can hold.
@Suite struct JSONRowsTests {
    static let awkward: [String] = [
        "", "plain", #"quote " and backslash \ "#, "slash / and \u{7F} delete", "new\nline\r\ttab",
        "\u{0}\u{1}\u{8}\u{C}\u{1B}\u{1F}", "Ünïcödé ✓ 字 🐙", "\u{2028}\u{2029} separators", "\\u0041 not an escape",
    ]

    @Test func rowsParseAsJSONEncodersRowsDo() throws {
        var rows = JSONRows()
        var expected: [[String?]] = []
        for (index, text) in Self.awkward.enumerated() {
            rows.beginRow()
            rows.append(text)
            rows.append(index.isMultiple(of: 2) ? nil : text + "!")
            rows.append(Int64(index) - 4)
            rows.endRow()
            expected.append([text, index.isMultiple(of: 2) ? nil : text + "!", String(Int64(index) - 4)])
        }
        struct Row: Encodable {
            let values: [String?]
            let number: Int64
            func encode(to encoder: any Encoder) throws {
                var row = encoder.unkeyedContainer()
                try row.encode(values[0])
                try row.encode(values[1])
                try row.encode(number)
            }
        }
        let encoded = try JSONEncoder().encode(expected.map { Row(values: [$0[0], $0[1]], number: Int64($0[2]!)!) })
        let ours = try #require(("[" + rows.text + "]").data(using: .utf8))
        #expect(try parse(ours) == parse(encoded))
        #expect(try parse(ours) == expected)
    }

    @Test func noRowsIsEmpty() {
        #expect(JSONRows().text.isEmpty)
        var rows = JSONRows()
        rows.beginRow()
        rows.endRow()
        rows.beginRow()
        rows.append(Int64.min)
        rows.endRow()
        #expect(rows.text == "[],[-9223372036854775808]")
    }

    /// Each row's values as text (numbers spelled out), nil for null.
    private func parse(_ data: Data) throws -> [[String?]] {
        let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[Any]])
        return rows.map { row in
            row.map { value -> String? in
                if value is NSNull { return nil }
                if let text = value as? String { return text }
                return "\(value)"
            }
        }
    }
}
