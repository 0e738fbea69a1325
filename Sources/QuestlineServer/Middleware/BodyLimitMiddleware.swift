import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Refuses bodies over the limit with 413 (declared length or counted while reading) and
/// leaves the collected body in the request for the handlers after it.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let defaultMaxBytes: Int
    /// Photo uploads (selfies, profile photos) may be larger: 5 MiB and a little framing.
    static let uploadMaxBytes = UploadedImage.maxBytes + 1024

    init(maxBytes: Int) { defaultMaxBytes = maxBytes }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let maxBytes =
            RoutePolicy.of(request, context).takesUpload ? max(defaultMaxBytes, Self.uploadMaxBytes) : defaultMaxBytes
        var request = request
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBytes {
            throw tooLarge
        }
        do {
            _ = try await request.collectWholeBody(upTo: maxBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge
        }
        return try await next(request, context)
    }

    private var tooLarge: Problem {
        Problem(
            status: .contentTooLarge, type: "body-too-large", title: Message("problem.title.bodyTooLarge"),
            detail: Message("problem.detail.bodyTooLarge"), field: "body")
    }
}

extension Request {
    /// Collects the body (kept in the request for whoever reads it next) and refuses one that
    /// ended before its declared `Content-Length`. Hummingbird ends a body quietly when the
    /// connection closes mid-body, so a client killed while sending would otherwise be answered
    /// for the part that arrived: a cut form could apply half its fields, and a cut upload's
    /// answer would be kept under its Idempotency-Key, refusing the whole body when the client
    /// retries. Nothing after this sees a cut body; nothing is claimed or written.
    mutating func collectWholeBody(upTo maxBytes: Int) async throws -> ByteBuffer {
        let body = try await collectBody(upTo: maxBytes)
        if let declared = headers[.contentLength].flatMap(Int.init), declared != body.readableBytes {
            throw Problem(
                status: .badRequest, type: "body-incomplete", title: Message("problem.title.invalidInput"),
                detail: Message("problem.detail.bodyIncomplete"), field: "body")
        }
        return body
    }
}
