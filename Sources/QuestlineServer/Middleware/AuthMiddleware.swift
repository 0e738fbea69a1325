import HTTPTypes
import Hummingbird
import Logging
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// Resolves the caller from `Authorization: Bearer <token>` or the session cookie. It never
/// refuses a request itself: routes that need a member ask `Identity.requireMember()`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let accounts: AccountsFeature

    static let cookieName = "ql_session"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if let token = Self.token(in: request) {
            context.identity = try await accounts.authenticate(token: token)
            if let member = context.identity.member {
                context.logger[metadataKey: "member_id"] = .string(member.id.rawValue)
                context.logNote?.member = member.id.rawValue
            }
        }
        let identity = context.identity
        // Every write the request commits checks that its member still exists (`ActingMember`).
        return try await ActingMember.$current.withValue(identity.member?.id) {
            try await Identity.$current.withValue(identity) {
                try await next(request, context)
            }
        }
    }

    static func token(in request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return String(parts[1]).trimmed(newlines: false)
            }
        }
        return request.cookies[cookieName]?.value
    }
}
