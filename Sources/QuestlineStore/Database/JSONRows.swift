/// Flat JSON arrays of text, integers and nulls written straight into UTF-8, for rows that
/// travel to the database as one JSON document (`json_each`, `jsonb_array_elements`).
///
/// Hand-written rather than `JSONEncoder` because encoding such rows through `Encodable`
/// containers was a large part of a batch of reads' CPU (docs/performance.md): these rows are
/// records of a known shape with nothing to configure. Strings are escaped as
/// RFC 8259 requires (the quote, the backslash and control characters); everything else is
/// written as it is, which both databases parse as `JSONEncoder`'s output.
struct JSONRows {
    private(set) var bytes: [UInt8] = []
    private var firstInRow = true

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Starts a row (`[`), after a comma when it is not the first.
    mutating func beginRow() {
        if !bytes.isEmpty { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "["))
        firstInRow = true
    }

    mutating func endRow() {
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func separate() {
        if !firstInRow { bytes.append(UInt8(ascii: ",")) }
        firstInRow = false
    }

    mutating func append(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func append(_ value: String?) {
        separate()
        guard let value else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The rows, comma-separated, without the outer brackets (`[…],[…]`).
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
