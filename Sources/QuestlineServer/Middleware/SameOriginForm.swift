import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore

/// Refuses web form posts from another origin, `null` (a sandboxed frame, a `data:` page)
/// included. Defence in depth: every form also carries a token (`FormTokenMiddleware`), which
/// is what stops a post without an `Origin`. (The JSON API uses bearer tokens or the cookie with
/// a JSON body, which a cross-site form cannot send.)
/// Applied by `AddressChecksMiddleware`.
enum SameOriginForm {
    static func check(_ request: Request, _ context: AppRequestContext) throws {
        if RoutePolicy.of(request, context).isForm,
            let origin = request.headers[.origin],
            origin == "null" || originHost(origin) != request.head.authority
        {
            throw Problem(
                status: .forbidden, type: "cross-origin", title: Message("problem.title.crossOrigin"),
                detail: Message("problem.detail.crossOrigin"))
        }
    }
}

/// `host[:port]` of an origin such as `http://localhost:8080`.
private func originHost(_ origin: String) -> String {
    guard let range = origin.range(of: "://") else { return origin }
    return String(origin[range.upperBound...])
}

extension HTTPField.Name {
    static let referrerPolicy = Self("Referrer-Policy")!
}
