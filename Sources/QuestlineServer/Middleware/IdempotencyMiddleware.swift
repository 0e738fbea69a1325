import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The generic idempotency mechanism for writes a device may retry.
///
/// A write with an `Idempotency-Key` header is claimed before it runs, in a scope: the
/// signed-in member, else the device (`X-Device-Id`), else anonymous. The same key with the same
/// method, path and body returns the first response again, marked `Idempotent-Replayed: true`,
/// with no second effect; the same key with anything different is refused with 422; a retry
/// while the first is still running gets 409. The request runs under its claim (in its
/// `RequestScope`, whose `write` scope every write of the request takes): every transaction it
/// commits marks the key applied in that transaction, so a write and its key commit together. Failures before anything committed
/// (5xx, and 401/408/409/429) release the key so a retry runs the write; once something
/// committed, the response is kept whatever it is. Keys are kept for 24 hours.
///
/// Responses that carry a credential (`RoutePolicy.holdsCredential`: sign-up, login, an
/// invitation, a webhook's secret) are stored sealed: encrypted with a key derived from the
/// request itself, so that only the same request opens them (`IdempotencySeal`).
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let store: IdempotencyStore
    let clock: any WallClock
    /// The server's key: keys the request hashes and the seals.
    let secrets: SecretBox
    /// The request hash under every server key, the current first (`SecretBox.keyedHashes`): a
    /// retry made across a key rotation matches the hash its first try stored.
    let requestHashers: [SecretBox.KeyedHash]

    /// `questline_idempotency_total{outcome}`: retries answered from the stored response
    /// (`replay`), keys reused for another request (`reused`), retries that arrived while the
    /// first was still running (`in_progress`), and retries of writes whose response was lost
    /// (`applied`).
    private static func count(_ outcome: String) {
        Counter(label: "questline_idempotency_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// Statuses not worth replaying: the caller should be able to fix them and retry.
    private static let notStored: Set<Int> = [401, 408, 409, 429]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard [.post, .put, .patch, .delete].contains(request.method), let key = request.headers[.idempotencyKey] else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(
                status: .badRequest, type: "invalid-input", title: Message("problem.title.invalidInput"),
                detail: Message("problem.detail.idempotencyKeyShape"), field: "Idempotency-Key",
                errors: [.init(field: "Idempotency-Key", message: Message("input.error.idempotencyKey"))])
        }
        let scope = Self.scope(request, context: context)
        var request = request
        let body = Array(buffer: try await request.collectBody(upTo: context.maxUploadSize))
        let sealed = RoutePolicy.of(request, context).holdsCredential
        // Keyed with the server's secret (HMAC): a copy of the table cannot test guesses of a
        // body (a password, an e-mail) against it.
        let hashed = Array(request.method.rawValue.utf8) + [0] + Array(request.uri.path.utf8) + [0] + body
        let requestHashes = requestHashers.map { (sealed ? "sealed:" : "") + $0.hex(hashed) }
        let seal = IdempotencySeal(secrets: secrets, request: body, key: key, scope: scope)

        let claim: IdempotencyClaim
        switch try await store.begin(scope: scope, key: key, requestHashes: requestHashes, now: clock.now()) {
        case .replay(let stored, let isSealed):
            guard let bytes = isSealed ? seal.open(stored.body) : stored.body else { throw Self.reused() }
            Self.count("replay")
            var headers = HTTPFields()
            if let type = stored.contentType { headers[.contentType] = type }
            headers[.idempotentReplayed] = "true"
            return Response(
                status: .init(code: stored.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .mismatch:
            throw Self.reused()
        case .inProgress:
            Self.count("in_progress")
            throw Problem(
                status: .conflict, type: "idempotency-in-progress", title: Message("problem.title.requestInProgress"),
                detail: Message("problem.detail.idempotencyInProgress"), field: "Idempotency-Key")
        case .appliedWithoutResponse:
            Self.count("applied")
            throw Problem(
                status: .conflict, type: "idempotency-applied", title: Message("problem.title.alreadyApplied"),
                detail: Message("problem.detail.idempotencyApplied"), field: "Idempotency-Key")
        case .proceed(let granted):
            claim = granted
        }

        let response: Response
        do {
            var context = context
            context.scope.claim = claim
            response = try await RequestScope.$current.withValue(context.scope) { try await next(request, context) }
        } catch {
            let problem = Problem.from(error)
            // Released when nothing committed and the failure is worth retrying; otherwise this
            // failure is the request's answer from now on.
            var released = false
            if problem.status >= 500 || Self.notStored.contains(problem.status) {
                released = (try? await store.release(claim)) ?? false
            }
            if !released {
                let data = problem.encoded(RequestLanguage.localizer)
                try? await store.complete(
                    claim,
                    response: StoredResponse(
                        status: problem.status, contentType: Problem.contentType, body: [UInt8](data)),
                    sealed: false)
            }
            throw error
        }
        let code = response.status.code
        if code >= 500 || Self.notStored.contains(code) {
            if try await store.release(claim) { return response }
        }
        // Buffer the body (API responses are small JSON) so it can be stored and sent.
        let collector = BodyCollector()
        try await response.body.write(collector)
        let bytes = collector.bytes
        try await store.complete(
            claim,
            response: StoredResponse(
                status: code, contentType: response.headers[.contentType], body: sealed ? try seal.seal(bytes) : bytes),
            sealed: sealed)
        var buffered = response
        buffered.body = .init(byteBuffer: ByteBuffer(bytes: bytes))
        return buffered
    }

    /// The member, else the device, else anyone anonymous: a key is only ever seen in its scope.
    static func scope(_ request: Request, context: Context) -> String {
        if let member = context.identity.member { return member.id.rawValue }
        if let device = request.headers[.deviceID], ReadingFeature.validDeviceID(device) {
            return "device:" + device
        }
        return "anonymous"
    }

    static func reused() -> Problem {
        count("reused")
        return Problem(
            status: .unprocessableContent, type: "idempotency-key-reused", title: Message("problem.title.keyReused"),
            detail: Message("problem.detail.idempotencyKeyReused"), field: "Idempotency-Key")
    }
}

/// Encrypts a stored response for the request that made it: AES-GCM under a key derived (HKDF)
/// from the server's secret key, the request's body, its idempotency key and its scope. Only the
/// same request, on a server holding the key, opens the response; without the server's key a
/// copy of the table can neither open it nor test guesses of the body; a different body fails to
/// open and is a reused key.
struct IdempotencySeal {
    /// One key per server key, the current first: it seals; each opens what it sealed.
    let keys: [SymmetricKey]

    init(secrets: SecretBox, request body: [UInt8], key idempotencyKey: String, scope: String) {
        keys = secrets.derivedKeys(
            purpose: "idempotency.seal", material: body + [0] + Array(idempotencyKey.utf8), info: scope)
    }

    func seal(_ bytes: [UInt8]) throws -> [UInt8] {
        guard let key = keys.first, let combined = try AES.GCM.seal(bytes, using: key).combined else { return [] }
        return [UInt8](combined)
    }

    func open(_ bytes: [UInt8]) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: bytes) else { return nil }
        for key in keys {
            if let opened = try? AES.GCM.open(box, using: key) { return [UInt8](opened) }
        }
        return nil
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
