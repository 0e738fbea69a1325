import Hummingbird
import Logging

/// One log line per request, when it is answered: method, path (never the query string, which
/// can carry search text), the matched route, status and duration. It runs after the session
/// is read, so the line also carries `member_id`; `request_id` comes from `EnvelopeMiddleware`.
/// Headers and bodies are never logged (they carry tokens, cookies and passwords).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let level: Logger.Level

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: Int(response.status.code), since: start)
            return response
        } catch let redirect as Redirect {
            // ErrorMiddleware answers a thrown redirect with a 303.
            log(request, context, status: Int(Response.RedirectType.normal.status.code), since: start)
            throw redirect
        } catch {
            // The status `ErrorMiddleware` will answer with.
            log(request, context, status: Problem.from(error).status, since: start)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.log(
            level: level, "Request",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "route": .string(context.endpointPath ?? "none"), "status": .stringConvertible(status),
                "duration_ms": .stringConvertible((milliseconds * 10).rounded() / 10),
            ])
    }
}
