import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// The generic idempotency mechanism for writes a device may retry.
///
/// A write with an `Idempotency-Key` header is claimed (scope = the signed-in member, or
/// `anonymous`) before it runs. The same key with the same method, path and body returns the
/// first response again, marked `Idempotent-Replayed: true`, with no second effect; the same
/// key with anything different is refused with 422; a retry while the first is still running
/// gets 409. Server failures (5xx) release the key so a retry runs the write. Keys are kept
/// for 24 hours.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let store: IdempotencyStore
    let clock: any WallClock

    /// Statuses not worth replaying: the caller should be able to fix them and retry.
    /// `questline_idempotency_total{outcome}`: retries answered from the stored response
    /// (`replay`), keys reused for another request (`reused`), and retries that arrived while
    /// the first was still running (`in_progress`).
    private static func count(_ outcome: String) {
        Counter(label: "questline_idempotency_total", dimensions: [("outcome", outcome)]).increment()
    }

    private static let notStored: Set<Int> = [401, 408, 409, 429]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard [.post, .put, .patch, .delete].contains(request.method), let key = request.headers[.idempotencyKey] else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(
                status: .badRequest, type: "invalid-input", title: "Invalid input",
                detail: "Idempotency-Key: use 1 to 255 visible ASCII characters.", field: "Idempotency-Key",
                errors: [.init(field: "Idempotency-Key", message: "Use 1 to 255 visible ASCII characters.")])
        }
        let scope = context.identity.member?.id.rawValue ?? "anonymous"
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        var hasher = SHA256()
        hasher.update(data: Array(request.method.rawValue.utf8) + [0] + Array(request.uri.path.utf8) + [0])
        hasher.update(data: Array(buffer: body))
        let requestHash = Secret.hex(hasher.finalize())

        switch try await store.begin(scope: scope, key: key, requestHash: requestHash, now: clock.now()) {
        case .replay(let stored):
            Self.count("replay")
            var headers = HTTPFields()
            if let type = stored.contentType { headers[.contentType] = type }
            headers[.idempotentReplayed] = "true"
            return Response(
                status: .init(code: stored.status), headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: stored.body)))
        case .mismatch:
            Self.count("reused")
            throw Problem(
                status: .unprocessableContent, type: "idempotency-key-reused", title: "Idempotency key reused",
                detail: "This Idempotency-Key was already used for a different request. Use a new key for a new write.",
                field: "Idempotency-Key")
        case .inProgress:
            Self.count("in_progress")
            throw Problem(
                status: .conflict, type: "idempotency-in-progress", title: "Request in progress",
                detail: "A request with this Idempotency-Key is still being handled. Retry shortly.",
                field: "Idempotency-Key")
        case .proceed:
            break
        }

        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            let problem = Problem.from(error)
            if problem.status >= 500 || Self.notStored.contains(problem.status) {
                try? await store.release(scope: scope, key: key)
            } else {
                let data = (try? Problem.encoder().encode(problem)) ?? Data()
                try? await store.complete(
                    scope: scope, key: key,
                    response: StoredResponse(
                        status: problem.status, contentType: Problem.contentType, body: [UInt8](data)))
            }
            throw error
        }
        if response.status.code >= 500 || Self.notStored.contains(response.status.code) {
            try await store.release(scope: scope, key: key)
            return response
        }
        // Buffer the body (API responses are small JSON) so it can be stored and sent.
        let collector = BodyCollector()
        try await response.body.write(collector)
        let bytes = collector.bytes
        try await store.complete(
            scope: scope, key: key,
            response: StoredResponse(
                status: response.status.code, contentType: response.headers[.contentType], body: bytes))
        var buffered = response
        buffered.body = .init(byteBuffer: ByteBuffer(bytes: bytes))
        return buffered
    }
}

/// Collects a response body in memory.
///
/// `@unchecked Sendable` is safe: it is written by one `ResponseBody.write` call at a time
/// (the body is written once, sequentially) and read only after that call has returned.
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var bytes: [UInt8] = []
    func write(_ buffer: ByteBuffer) async throws { bytes += buffer.readableBytesView }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
