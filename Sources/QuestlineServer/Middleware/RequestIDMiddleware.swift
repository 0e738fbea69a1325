import Foundation
import HTTPTypes
import Hummingbird
import Logging
import QuestlineCore

/// Gives every request an id (the caller's `X-Request-Id` when it is sane), puts it in every
/// log line of the request and echoes it in the response.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        let incoming = request.headers[.xRequestID].flatMap { id in
            id.count <= 64 && id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
                ? id : nil
        }
        let id = incoming ?? UUID.random().uuidString.lowercased()
        context.requestID = id
        context.logger[metadataKey: "request_id"] = .string(id)
        var response = try await next(request, context)
        response.headers[.xRequestID] = id
        return response
    }
}

extension HTTPField.Name {
    static let xRequestID = Self("X-Request-Id")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let deviceID = Self("X-Device-Id")!
    static let questlineFault = Self("X-Questline-Fault")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
