import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore

/// What the server does for a route beyond its handler: the login budget, whether a stored
/// response is sealed, how large a body may be, whether it is a web form. Decided by the route
/// the router matched (its pattern, as the contract or the page's registration spells it:
/// `/api/v1/households/{householdId}/invitations`), never by the text of the request's path, so
/// every spelling that reaches a route gets that route's policy. The one table of such
/// properties; the middleware that applies each asks here.
///
/// Spellings other than the canonical one (`CanonicalPath`) never reach a handler:
/// the router would match `/api/v1/auth/login/` and `//api/v1//auth/login` to the login route,
/// and a policy looked up by path text would then miss them.
struct RoutePolicy: Sendable, Equatable {
    /// Counts against the per-address sign-in budget (`RateLimits.loginsPerAddress`).
    var limitsLogins = false
    /// The response carries a credential (a session token, an invitation code, a webhook
    /// signing secret): an idempotent replay keeps it only sealed (`IdempotencySeal`).
    var holdsCredential = false
    /// Takes a photo (`BodyLimitMiddleware.uploadMaxBytes` instead of the API's limit).
    var takesUpload = false

    /// A web form post (a page's POST, not the API): same origin and the CSRF token apply.
    var isForm = false

    /// The policy of a matched route (`context.endpointPath`); nil (no route matched) gets the
    /// defaults for its method.
    static func of(method: HTTPRequest.Method, route: String?) -> RoutePolicy {
        guard let route else { return RoutePolicy() }
        var policy = table[Key(method: method, route: route)] ?? RoutePolicy()
        if method == .post, !route.hasPrefix("/api/") { policy.isForm = true }
        return policy
    }

    static func of(_ request: Request, _ context: AppRequestContext) -> RoutePolicy {
        of(method: request.method, route: context.endpointPath)
    }

    struct Key: Hashable, Sendable {
        let method: HTTPRequest.Method
        let route: String
    }

    /// Every route whose policy is not the default. `RoutePolicyTests` checks that each names a
    /// route the router has.
    static let table: [Key: RoutePolicy] = [
        Key(method: .post, route: "/api/v1/auth/login"): RoutePolicy(limitsLogins: true, holdsCredential: true),
        Key(method: .post, route: "/login"): RoutePolicy(limitsLogins: true),
        Key(method: .post, route: "/api/v1/auth/signup"): RoutePolicy(holdsCredential: true),
        Key(method: .post, route: "/api/v1/households/{householdId}/invitations"): RoutePolicy(holdsCredential: true),
        Key(method: .post, route: "/api/v1/admin/webhooks"): RoutePolicy(holdsCredential: true),
        Key(method: .put, route: "/api/v1/stories/{storyId}/selfie"): RoutePolicy(takesUpload: true),
        Key(method: .put, route: "/api/v1/profile/photo"): RoutePolicy(takesUpload: true),
    ]
}

/// Answers a path that is not in its canonical spelling before anything that decides
/// something by route: an empty segment (a doubled or trailing slash) or a `.`/`..` segment.
/// GET and HEAD are redirected (308) to the canonical address, keeping the query; anything else,
/// and any address with a dot segment, is 404, so that a write reaches a handler by one spelling
/// only. Applied by `AddressChecksMiddleware`.
enum CanonicalPath {
    /// The redirect for a non-canonical GET or HEAD; nil for a canonical path; throws a 404
    /// problem otherwise.
    static func answer(_ request: Request) throws -> Response? {
        let path = request.uri.path
        guard let canonical = canonical(path) else { return nil }
        // A dot segment is a traversal attempt, not a spelling a browser sends: never redirected.
        let traverses = path.split(separator: "/").contains { dots($0) != nil }
        if !traverses, request.method == .get || request.method == .head {
            let query = request.uri.query.map { "?" + $0 } ?? ""
            return Response(status: .permanentRedirect, headers: [.location: canonical + query])
        }
        throw Problem(
            status: .notFound, type: "not-found", title: Message("problem.title.notFound"),
            detail: Message("problem.detail.useCanonical", ["path": .text(canonical)]), field: "path")
    }

    /// The canonical spelling of `path` when it is not canonical itself, else nil. A
    /// percent-encoded slash is a slash (the router would otherwise take `a%2Fb` for one id of
    /// the parent route), and a segment that decodes to `.` or `..` is one.
    static func canonical(_ path: String) -> String? {
        if isPlainlyCanonical(path) { return nil }
        let unescaped = path.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%2f", with: "/")
        let segments = unescaped.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let isCanonical =
            unescaped == path && path.hasPrefix("/") && !segments.contains { $0.isEmpty || dots($0) != nil }
        if isCanonical { return nil }
        var kept: [Substring] = []
        for segment in (unescaped.hasPrefix("/") ? segments : unescaped.split(separator: "/")[...]) {
            switch dots(segment) {
            case 1: continue
            case 2: _ = kept.popLast()
            default: if !segment.isEmpty { kept.append(segment) }
            }
        }
        return "/" + kept.joined(separator: "/")
    }

    /// True when one pass over the bytes shows `path` canonical: it starts with a slash and has
    /// no percent sign, no empty segment (a doubled or trailing slash) and no segment starting
    /// with a dot. Most requests are so, and skip the decoding below (Foundation's string
    /// search is costly on every request); anything else takes the full check.
    static func isPlainlyCanonical(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/")
        var previous: UInt8 = 0
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"): return false
            case slash where previous == slash: return false
            case UInt8(ascii: ".") where previous == slash: return false
            default: break
            }
            if previous == 0, byte != slash { return false }
            previous = byte
        }
        return previous == slash ? path.utf8.count == 1 : previous != 0
    }

    /// 1 for a segment that is `.`, 2 for `..` (percent-encoded or not), else nil.
    static func dots(_ segment: Substring) -> Int? {
        let decoded = segment.replacingOccurrences(of: "%2E", with: ".").replacingOccurrences(of: "%2e", with: ".")
        return decoded == "." ? 1 : decoded == ".." ? 2 : nil
    }
}
