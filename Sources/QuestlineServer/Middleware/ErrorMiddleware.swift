import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Turns every error into a response: problem+json for the API and for clients that do not
/// ask for HTML, a readable error page for browsers. Unknown errors are logged with the
/// request id and answered with a 500 that reveals nothing internal.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let pages: PageRenderer
    /// Who is signed in, for the error page's layout: this middleware runs before
    /// `AuthMiddleware`, so its context has no identity yet.
    let accounts: AccountsFeature

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            var context = context
            var error = error
            if let carried = error as? InLanguage {
                error = carried.error
                context.language = carried.language
            } else {
                // Refused before the caller was known (or by the router): the member's language
                // when the request carries a session, else the address, the cookie or the browser.
                if context.identity.member == nil, let token = AuthMiddleware.token(in: request),
                    let identity = try? await accounts.authenticate(token: token)
                {
                    context.identity = identity
                }
                context.language = LanguageChoice.of(
                    request, member: context.identity.member, asked: LanguageChoice.asked(request))
            }
            context.pagePath = LanguageMenu.next(request)
            return try await answer(error, request: request, context: context)
        }
    }

    private func answer(_ error: any Error, request: Request, context: Context) async throws -> Response {
        let problem = Problem.from(error)
        if problem.status == 503 {
            context.logger.warning(
                "Dependency unavailable",
                metadata: ["detail": "\(problem.detail?.description ?? "")", "path": "\(request.uri.path)"])
        } else if problem.status >= 500 {
            context.logger.error(
                "Request failed", metadata: ["error": "\(Self.describe(error))", "path": "\(request.uri.path)"])
        } else {
            context.logger.debug(
                "Request refused",
                metadata: ["status": "\(problem.status)", "detail": "\(problem.detail?.description ?? "")"])
        }
        if wantsHTML(request) {
            // The error page keeps the signed-in layout (navigation, the member's avatar).
            var context = context
            if context.identity.member == nil, problem.status != 401, let token = AuthMiddleware.token(in: request),
                let identity = try? await accounts.authenticate(token: token)
            {
                context.identity = identity
            }
            return pages.errorPage(problem, context: context)
        }
        var response = problem.response(requestID: context.requestID, localizer: context.localizer)
        response.headers[.xRequestID] = context.requestID
        response.headers[.contentLanguage] = context.language.code
        return response
    }

    /// The error without the request it came with: an OpenAPI `ServerError` carries the request
    /// headers (bearer tokens, cookies) and body (passwords), which must never reach a log.
    static func describe(_ error: any Error) -> String {
        if let server = error as? ServerError {
            return
                "operation \(server.operationID): \(server.causeDescription): \(String(reflecting: server.underlyingError))"
        }
        return String(reflecting: error)
    }

    private func wantsHTML(_ request: Request) -> Bool {
        let path = request.uri.path
        if path.hasPrefix("/api/") || path == "/metrics" || path == "/health" || path == "/openapi.yaml" {
            return false
        }
        return request.headers[.accept]?.contains("text/html") ?? false
    }
}
