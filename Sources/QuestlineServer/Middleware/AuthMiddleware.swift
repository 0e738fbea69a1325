import HTTPTypes
import Hummingbird
import Logging
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
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
        // The language the answer is in (`LanguageChoice`), said in `Content-Language`.
        let asked = LanguageChoice.asked(request)
        let language = LanguageChoice.of(request, member: identity.member, asked: asked)
        context.language = language
        context.askedLanguage = asked
        // The page to come back to after choosing a language: pages only (the API has no menu).
        if !request.uri.path.hasPrefix("/api/") { context.pagePath = LanguageMenu.next(request) }
        var response: Response
        do {
            response = try await RequestScope.$current.withValue(context.scope) { try await next(request, context) }
        } catch let redirect as Redirect {
            response = Response.redirect(to: redirect.location, type: .normal)
        } catch let error as HTTPError {
            // The router's own answers (404, 405) pass as they are: the static files' middleware
            // serves a file where the router found no route.
            throw error
        } catch {
            // The error page or problem is in the answer's language (`ErrorMiddleware` runs
            // before it is known).
            throw InLanguage(error: error, language: language)
        }
        if response.headers[.contentLanguage] == nil { response.headers[.contentLanguage] = language.code }
        if let asked = context.askedLanguage { LanguageChoice.keep(asked, through: &response) }
        return response
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

/// An error thrown once the answer's language was decided, carrying it out to `ErrorMiddleware`.
struct InLanguage: Error {
    let error: any Error
    let language: Language
}
