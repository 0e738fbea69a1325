import Foundation
import Hummingbird
import QuestlineCore
import QuestlineL10n

/// The checks every request's address and origin pass before anything reads a session or a
/// file, in one middleware level (each level of the chain is an async call and a copy of the
/// context), in this order:
///
/// 1. the canonical spelling (`CanonicalPath`): a redirect or a 404 before anything decides by
///    route;
/// 2. the text rule on the path and every query parameter (`addressIssues`);
/// 3. a web form's origin (`SameOriginForm`).
struct AddressChecksMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let redirect = try CanonicalPath.answer(request) { return redirect }
        let issues = Self.addressIssues(path: request.uri.path, query: request.uri.query)
        guard issues.isEmpty else { throw DomainError.invalid(issues) }
        try SameOriginForm.check(request, context)
        return try await next(request, context)
    }

    /// The address's problems: the path and every query parameter must decode (percent-encoded
    /// UTF-8) to text without control characters. A parameter is named by its key.
    static func addressIssues(path: String, query: String?) -> [FieldIssue] {
        var issues: [FieldIssue] = []
        if let decoded = decoded(path[...], plus: false) {
            if decoded.containsControlCharacter {
                issues.append(FieldIssue(field: "path", message: Message("input.error.addressControlCharacter")))
            }
        } else {
            issues.append(FieldIssue(field: "path", message: Message("input.error.addressEncoding")))
        }
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decoded(parts[0], plus: true) ?? parts[0].replacingOccurrences(of: "+", with: " ")
            guard let value = decoded(parts.count > 1 ? parts[1] : "", plus: true) else {
                issues.append(FieldIssue(field: name, message: Message("input.error.queryEncoding")))
                continue
            }
            if let issue = TextRule.issue(value, field: name) { issues.append(issue) }
        }
        return issues
    }

    /// `text` percent-decoded (and with `plus`, `+` read as a space, as in a query); nil when it
    /// is not valid percent-encoded UTF-8. Text with neither sign is itself: most addresses skip
    /// Foundation's decoding, which costs on every request.
    private static func decoded(_ text: Substring, plus: Bool) -> String? {
        let signs = text.utf8.contains { $0 == UInt8(ascii: "%") || (plus && $0 == UInt8(ascii: "+")) }
        guard signs else { return String(text) }
        return (plus ? text.replacingOccurrences(of: "+", with: " ") : String(text)).removingPercentEncoding
    }
}
