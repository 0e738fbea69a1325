import Foundation

extension DecodingError {
    /// Where in the document the error is, as a field path (`reads[3].at`); empty for the
    /// document itself. A missing key's path ends with that key.
    public var fieldPath: String {
        let codingPath: [any CodingKey]
        switch self {
        case .keyNotFound(let key, let context): codingPath = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            codingPath = context.codingPath
        @unknown default: codingPath = []
        }
        return codingPath.reduce(into: "") { result, key in
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
    }
}
