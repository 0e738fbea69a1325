import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOPosix
import QuestlineCore
import QuestlineL10n

/// What every request gets on its way in and out, in one middleware level instead of four
/// (each level of the chain costs an async call and a copy of the context):
///
/// - **An id** (the caller's `X-Request-Id` when it is sane), in every log line of the request
///   and echoed in the response.
/// - **One log line** when it is answered: method, path (never the query string, which can carry
///   search text), the matched route, status and duration, and the member once the session is
///   read (`AuthMiddleware` notes it in `RequestLogNote`). Headers and bodies are never logged
///   (they carry tokens, cookies and passwords).
/// - **Metrics**, under the names and dimensions Hummingbird's `MetricsMiddleware` used
///   (`hb_requests`, `http_server_request_duration`, `hb_request_errors`,
///   `http_server_active_requests`), so dashboards keep working. A body of known length up to
///   1 MiB (every page and API answer) is held whole and counted when answered, so that it goes
///   out in one write; a stream (a live stream, a larger file) is counted once it is written. The metric handles are kept in
///   a cache per thread: a request looks its route's handles up without a lock (Hummingbird's
///   cache takes two locks a request); counters and gauges are atomics in the Prometheus
///   backend.
/// - **Security headers** on every response, errors included.
struct EnvelopeMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = DispatchTime.now().uptimeNanoseconds
        var context = context
        let id = Self.requestID(request)
        context.requestID = id
        context.logger[metadataKey: "request_id"] = .string(id)
        // The line's member, noted further in; nothing to note when the line is not written.
        let note = context.logger.logLevel <= .info ? RequestLogNote() : nil
        context.logNote = note
        let method = request.method
        let active = MetricHandles.active(method)
        active.increment()
        do {
            var response = try await next(request, context)
            response.headers[.xRequestID] = id
            Self.secure(&response.headers)
            let status = response.status
            Self.log(request, context, note, status: status, since: start)
            let route = context.endpointPath ?? "Unknown"
            let body = response.body
            if let length = body.contentLength, length <= Self.heldBody {
                // A body of known and modest length (every page and API answer) is held whole,
                // so that Hummingbird sends head, body and end in one write (a body it must
                // call to write costs three: measured at 20 µs of CPU a request on `/health`);
                // it is counted now.
                response.body = try await WholeBody.of(body, length: length)
                Self.count(route, method, status, since: start, active: active)
                return response
            }
            // A stream is counted once it is written (a live stream is active until it ends), as
            // Hummingbird's middleware does.
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { Self.count(route, method, status, since: start, active: active) }
                try await body.write(writer)
            }
            return response
        } catch {
            // `ErrorMiddleware` (inside this one) answers every error; what reaches here is the
            // rare error thrown while writing that answer.
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            Self.log(request, context, note, status: status, since: start)
            let handles = MetricHandles.endpoint(context.endpointPath ?? "NotFound", method, status)
            handles.requests.increment()
            handles.errors.increment()
            active.decrement()
            throw error
        }
    }

    /// The largest body held whole (`WholeBody`); a longer one is streamed as it is written.
    static let heldBody = 1 << 20

    private static func count(
        _ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status, since start: UInt64,
        active: Meter
    ) {
        let handles = MetricHandles.endpoint(route, method, status)
        handles.requests.increment()
        handles.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        active.decrement()
    }

    private static func log(
        _ request: Request, _ context: Context, _ note: RequestLogNote?, status: HTTPResponse.Status,
        since start: UInt64
    ) {
        guard let note else { return }
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path),
            "route": .string(context.endpointPath ?? "none"), "status": .stringConvertible(status.code),
            "duration_ms": .stringConvertible(
                (Double(DispatchTime.now().uptimeNanoseconds - start) / 100_000).rounded() / 10),
        ]
        if let member = note.member { metadata["member_id"] = .string(member) }
        context.logger.info("Request", metadata: metadata)
    }

    /// The caller's id when it is 1 to 64 letters, digits, `-` or `_`; a new one otherwise.
    static func requestID(_ request: Request) -> String {
        let incoming = request.headers[.xRequestID].flatMap { id in
            id.count <= 64 && id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
                ? id : nil
        }
        return incoming ?? UUID.random().uuidString.lowercased()
    }

    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data: https://upload.wikimedia.org; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

    /// The security headers; a response that brings its own content security policy keeps it.
    static func secure(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "same-origin"
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = contentSecurityPolicy }
    }
}

/// The metric handles of the routes, cached per thread (no lock on a look-up). A handle made
/// on two threads is the same Prometheus series: the factory gives the registered one.
enum MetricHandles {
    struct Endpoint: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }

    struct Handles {
        let requests: Counter
        let duration: Metrics.Timer
        let errors: Counter
    }

    /// One thread's handles; only that thread touches it (hence unchecked).
    final class Cache: @unchecked Sendable {
        var endpoints: [Endpoint: Handles] = [:]
        var active: [HTTPRequest.Method: Meter] = [:]
    }

    private static let cache = ThreadSpecificVariable<Cache>()

    private static var local: Cache {
        if let cache = cache.currentValue { return cache }
        let made = Cache()
        cache.currentValue = made
        return made
    }

    static func active(_ method: HTTPRequest.Method) -> Meter {
        let cache = local
        if let meter = cache.active[method] { return meter }
        let meter = Meter(
            label: "http.server.active_requests", dimensions: [("http.request.method", method.description)])
        cache.active[method] = meter
        return meter
    }

    static func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Handles {
        let cache = local
        let key = Endpoint(route: route, method: method, status: status)
        if let handles = cache.endpoints[key] { return handles }
        let dimensions = [
            ("http.route", route), ("http.request.method", method.description),
            ("http.response.status_code", status.code.description),
        ]
        let handles = Handles(
            requests: Counter(label: "hb.requests", dimensions: dimensions),
            duration: Metrics.Timer(
                label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds),
            errors: Counter(
                label: "hb.request.errors",
                dimensions: [
                    ("http.route", route), ("http.request.method", method.description),
                    ("error.type", status.code.description),
                ]))
        cache.endpoints[key] = handles
        return handles
    }
}

/// What inner middleware tells the request's log line (a reference, so that the envelope, which
/// runs outside them, reads what they noted on their copy of the context).
final class RequestLogNote: Sendable {
    private let noted = NIOLockedValueBox<String?>(nil)

    /// The member the session names, once `AuthMiddleware` has read it.
    var member: String? {
        get { noted.withLockedValue { $0 } }
        set { noted.withLockedValue { $0 = newValue } }
    }
}

/// A response body as one buffer: what its writer wrote, collected (`EnvelopeMiddleware`). A body
/// that ends with trailing headers keeps them, written after the buffer.
final class WholeBody: ResponseBodyWriter {
    private var buffer: ByteBuffer?
    private var trailers: HTTPFields?

    private init() {}

    static func of(_ body: ResponseBody, length: Int) async throws -> ResponseBody {
        let whole = WholeBody()
        try await body.write(whole)
        let buffer = whole.buffer ?? ByteBuffer()
        guard let trailers = whole.trailers else { return ResponseBody(byteBuffer: buffer) }
        return ResponseBody(contentLength: length) { writer in
            try await writer.write(buffer)
            try await writer.finish(trailers)
        }
    }

    func write(_ part: ByteBuffer) async throws {
        if buffer == nil {
            buffer = part
        } else {
            var part = part
            buffer?.writeBuffer(&part)
        }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {
        trailers = trailingHeaders
    }
}
