import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime
import QuestlineFeatures

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
        } catch let redirect as Redirect {
            return Response.redirect(to: redirect.location, type: .normal)
        } catch {
            let problem = Problem.from(error)
            if problem.status == 503 {
                context.logger.warning(
                    "Dependency unavailable",
                    metadata: ["detail": "\(problem.detail ?? "")", "path": "\(request.uri.path)"])
            } else if problem.status >= 500 {
                context.logger.error(
                    "Request failed", metadata: ["error": "\(Self.describe(error))", "path": "\(request.uri.path)"])
            } else {
                context.logger.debug(
                    "Request refused", metadata: ["status": "\(problem.status)", "detail": "\(problem.detail ?? "")"])
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
            var response = problem.response(requestID: context.requestID)
            response.headers[.xRequestID] = context.requestID
            return response
        }
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
