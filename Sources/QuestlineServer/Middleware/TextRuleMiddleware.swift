import Foundation
import Hummingbird
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Applies `TextRule` (no control characters) at the edge, in one place, before any handler or
/// store sees the text: every string of a JSON body on the API (after `BodyLimitMiddleware` has
/// bounded it). The address itself and its query parameters are checked on every request by
/// `AddressChecksMiddleware`; web forms apply the same rule where
/// they are decoded (`Form`).
struct TextRuleMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.headers[.contentType]?.lowercased().contains("json") == true else {
            return try await next(request, context)
        }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let issues = body.withUnsafeReadableBytes { JSONTextScan.issues(in: $0) }
        guard issues.isEmpty else { throw DomainError.invalid(issues) }
        do {
            return try await next(request, context)
        } catch {
            // The date transcoder sees a date-time without its place in the document: name
            // the field here, where the body is at hand.
            guard let invalid = Self.invalidDate(in: error),
                let field = body.withUnsafeReadableBytes({ JSONTextScan.path(ofString: invalid.text, in: $0) })
            else { throw error }
            throw DomainError.invalid(
                field: field, Message("input.error.dateTime", ["value": .text(String(invalid.text.prefix(40)))]))
        }
    }
}

extension TextRuleMiddleware {
    /// The malformed date-time behind a request's error, if that is what it is.
    static func invalidDate(in error: any Error) -> RFC3339DateTranscoder.InvalidDate? {
        if let invalid = error as? RFC3339DateTranscoder.InvalidDate { return invalid }
        if let server = error as? ServerError { return invalidDate(in: server.underlyingError) }
        if case DecodingError.dataCorrupted(let context) = error, let underlying = context.underlyingError {
            return invalidDate(in: underlying)
        }
        return nil
    }
}

/// Finds the strings of a JSON document that break `TextRule`, with their paths
/// (`items[3].title`).
///
/// JSON cannot carry a raw control character inside a string, only an escape (`\u0000`, `\n`)
/// or, for C1 and DEL, the raw UTF-8 bytes. A scan of the bytes for those is the fast path that
/// nearly every request takes; only a body that has one is parsed to name the fields.
enum JSONTextScan {
    static func issues(in bytes: UnsafeRawBufferPointer) -> [FieldIssue] {
        guard mayHoldControlCharacter(bytes) else { return [] }
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return []  // not JSON: the decoder answers that, naming where
        }
        var issues: [FieldIssue] = []
        collect(document, path: "", into: &issues)
        return issues
    }

    /// True when the bytes hold an escape or raw bytes that could decode to a control character.
    static func mayHoldControlCharacter(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), index + 1 < count {
                switch bytes[index + 1] {
                case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    return true
                case UInt8(ascii: "u"):
                    // \u00XX with XX in 00–1F, 7F or 80–9F.
                    if index + 5 < count, bytes[index + 2] == UInt8(ascii: "0"), bytes[index + 3] == UInt8(ascii: "0") {
                        let high = bytes[index + 4] | 0x20
                        let low = bytes[index + 5] | 0x20
                        if high == UInt8(ascii: "0") || high == UInt8(ascii: "1") || high == UInt8(ascii: "8")
                            || high == UInt8(ascii: "9")
                        {
                            return true
                        }
                        if high == UInt8(ascii: "7"), low == UInt8(ascii: "f") { return true }
                    }
                default: break
                }
                index += 2  // skip the escaped character (an escaped backslash included)
                continue
            }
            if byte == 0x7F { return true }
            if byte == 0xC2, index + 1 < count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            index += 1
        }
        return false
    }

    /// The path of the first string equal to `text` in a JSON document.
    static func path(ofString text: String, in bytes: UnsafeRawBufferPointer) -> String? {
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return nil
        }
        func find(_ value: Any, _ path: String) -> String? {
            switch value {
            case let string as String: return string == text ? path : nil
            case let object as [String: Any]:
                for (key, inner) in object.sorted(by: { $0.key < $1.key }) {
                    if let found = find(inner, path.isEmpty ? key : path + "." + key) { return found }
                }
            case let array as [Any]:
                for (index, element) in array.enumerated() {
                    if let found = find(element, "\(path)[\(index)]") { return found }
                }
            default: break
            }
            return nil
        }
        return find(document, "")
    }

    private static func collect(_ value: Any, path: String, into issues: inout [FieldIssue]) {
        guard issues.count < 50 else { return }
        switch value {
        case let text as String:
            if let issue = TextRule.issue(text, field: path.isEmpty ? "body" : path) { issues.append(issue) }
        case let object as [String: Any]:
            for (key, inner) in object.sorted(by: { $0.key < $1.key }) {
                collect(inner, path: path.isEmpty ? key : path + "." + key, into: &issues)
            }
        case let array as [Any]:
            for (index, element) in array.enumerated() { collect(element, path: "\(path)[\(index)]", into: &issues) }
        default:
            break
        }
    }
}
