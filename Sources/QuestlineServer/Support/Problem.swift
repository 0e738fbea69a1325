import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// An RFC 9457 problem document, the body of every error response. Its title, detail and the
/// messages of its fields are `Message`s: the response says them in the request's language
/// (`response(requestID:localizer:)`); `type`, `status` and field names are for programs and
/// stay as they are.
public struct Problem: Sendable, Equatable, Error {
    public var type: String
    public var title: Message
    public var status: Int
    public var detail: Message?
    public var instance: String?
    /// The offending input, when there is one (a JSON path such as `email` or a header name).
    public var field: String?
    public var errors: [Issue]?
    public var requestId: String?
    /// Seconds to wait before retrying (429), also sent as `Retry-After`.
    public var retryAfter: Int?

    public struct Issue: Sendable, Equatable {
        public var field: String
        public var message: Message

        public init(field: String, message: Message) {
            self.field = field
            self.message = message
        }
    }

    public init(
        status: HTTPResponse.Status, type: String, title: Message, detail: Message?, field: String? = nil,
        errors: [Issue]? = nil
    ) {
        self.type = "https://questline.dev/problems/" + type
        self.title = title
        self.status = status.code
        self.detail = detail
        self.field = field
        self.errors = errors
    }

    /// The document as sent, in a language.
    struct Body: Codable, Equatable {
        var type: String
        var title: String
        var status: Int
        var detail: String?
        var instance: String?
        var field: String?
        var errors: [BodyIssue]?
        var requestId: String?
        var retryAfter: Int?
    }

    struct BodyIssue: Codable, Equatable {
        var field: String
        var message: String
    }

    func body(_ localizer: Localizer) -> Body {
        Body(
            type: type, title: localizer(title), status: status, detail: detail.map { localizer($0) },
            instance: instance, field: field,
            errors: errors?.map { BodyIssue(field: $0.field, message: localizer($0.message)) }, requestId: requestId,
            retryAfter: retryAfter)
    }

    /// The document's bytes, in a language.
    func encoded(_ localizer: Localizer) -> Data {
        (try? Problem.encoder().encode(body(localizer))) ?? Data("{\"status\":\(status)}".utf8)
    }

    public var httpStatus: HTTPResponse.Status { HTTPResponse.Status(code: status) }

    static let contentType = "application/problem+json"

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The problem for any error thrown while handling a request. Unknown errors become a
    /// 500 without internals; the caller logs them.
    static func from(_ error: any Error) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let domain as DomainError:
            return from(domain)
        case let server as ServerError:
            return from(server)
        case let decoding as DecodingError:
            return from(decoding)
        case let date as RFC3339DateTranscoder.InvalidDate:
            return from(date)
        case let http as HTTPError:
            return from(httpStatus: http.status, message: http.body)
        case let response as any HTTPResponseError:
            return from(httpStatus: response.status, message: nil)
        case is IdempotencyClaimLost:
            return Problem(
                status: .conflict, type: "idempotency-in-progress", title: Message("problem.title.requestInProgress"),
                detail: Message("problem.detail.idempotencyTakenOver"), field: "Idempotency-Key")
        default:
            return Problem(
                status: .internalServerError, type: "internal", title: Message("problem.title.internal"),
                detail: Message("problem.detail.internal"))
        }
    }

    static func from(_ error: DomainError) -> Problem {
        switch error {
        case .invalid(let issues):
            let first = issues.first
            let detail =
                issues.count == 1
                ? first.map {
                    Message("problem.invalid.field", ["field": .text($0.field), "message": .message($0.message)])
                }
                : Message("problem.invalid.fields", ["count": .number(issues.count)])
            return Problem(
                status: .badRequest, type: "invalid-input", title: Message("problem.title.invalidInput"),
                detail: detail,
                field: first?.field, errors: issues.map { Issue(field: $0.field, message: $0.message) })
        case .unauthenticated(let message):
            return Problem(
                status: .unauthorized, type: "unauthenticated", title: Message("problem.title.signInRequired"),
                detail: message)
        case .forbidden(let message, let field):
            return Problem(
                status: .forbidden, type: "forbidden", title: Message("problem.title.notAllowed"), detail: message,
                field: field)
        case .notFound(let message):
            return Problem(
                status: .notFound, type: "not-found", title: Message("problem.title.notFound"), detail: message)
        case .conflict(let field, let message):
            return Problem(
                status: .conflict, type: "conflict", title: Message("problem.title.conflict"), detail: message,
                field: field, errors: field.map { [Issue(field: $0, message: message)] })
        case .unavailable(let message):
            return Problem(
                status: .serviceUnavailable, type: "unavailable", title: Message("problem.title.unavailable"),
                detail: message)
        case .tooManyRequests(let seconds, let message):
            var problem = Problem(
                status: .tooManyRequests, type: "too-many-requests", title: Message("problem.title.tooManyRequests"),
                detail: message)
            problem.retryAfter = seconds
            return problem
        }
    }

    static func from(_ error: ServerError) -> Problem {
        switch error.underlyingError {
        case let domain as DomainError: return from(domain)
        case let problem as Problem: return problem
        case let decoding as DecodingError: return from(decoding)
        case let date as RFC3339DateTranscoder.InvalidDate: return from(date)
        default: break
        }
        let status = error.httpStatus
        guard (400..<500).contains(status.code) else { return from(error.underlyingError) }
        // The cause is the OpenAPI runtime's own description (English, for programs).
        return Problem(
            status: status, type: status == .unsupportedMediaType ? "unsupported-media-type" : "bad-request",
            title: title(of: status), detail: .verbatim(error.causeDescription),
            field: fieldName(in: error.causeDescription))
    }

    /// A malformed date-time anywhere in a request. The runtime hands the date transcoder the
    /// text without its place in the document, so the problem quotes the value instead.
    static func from(_ error: RFC3339DateTranscoder.InvalidDate) -> Problem {
        let message = Message("input.error.dateTime", ["value": .text(String(error.text.prefix(40)))])
        return Problem(
            status: .badRequest, type: "invalid-input", title: Message("problem.title.invalidInput"),
            detail: Message("problem.detail.dateTime", ["message": .message(message)]),
            errors: [Issue(field: "date-time", message: message)])
    }

    static func from(_ error: DecodingError) -> Problem {
        let field: String? = error.fieldPath
        let message: Message
        switch error {
        case .keyNotFound:
            message = Message("input.error.required")
        case .typeMismatch(let type, _):
            message = Message("input.error.expected", ["type": .message(describe(type))])
        case .valueNotFound(let type, _):
            message = Message("input.error.expectedNotNull", ["type": .message(describe(type))])
        case .dataCorrupted(let context):
            // A value's own decoder says what is wrong with it (a library's words, or ours for an id).
            message =
                context.codingPath.isEmpty ? Message("input.error.notJSON") : .verbatim(context.debugDescription)
        @unknown default:
            message = Message("input.error.unreadable")
        }
        let named = field.flatMap { $0.isEmpty ? nil : $0 }
        return Problem(
            status: .badRequest, type: "invalid-input", title: Message("problem.title.invalidInput"),
            detail: named.map { Message("problem.invalid.field", ["field": .text($0), "message": .message(message)]) }
                ?? message, field: named,
            errors: named.map { [Issue(field: $0, message: message)] })
    }

    /// `message`: the text an `HTTPError` carries (the router's, or a library's), as it is.
    static func from(httpStatus status: HTTPResponse.Status, message: String?) -> Problem {
        let given = message.map(Message.verbatim)
        switch status {
        case .notFound:
            return Problem(
                status: status, type: "not-found", title: Message("problem.title.notFound"),
                detail: given ?? Message("problem.detail.nothingHere"))
        case .contentTooLarge:
            return Problem(
                status: status, type: "body-too-large", title: Message("problem.title.bodyTooLarge"),
                detail: given ?? Message("problem.detail.bodyTooLarge"), field: "body")
        case .methodNotAllowed:
            return Problem(
                status: status, type: "method-not-allowed", title: Message("problem.title.methodNotAllowed"),
                detail: given)
        default:
            let type = status.code >= 500 ? "internal" : "http-\(status.code)"
            return Problem(status: status, type: type, title: title(of: status), detail: given)
        }
    }

    /// The title of a problem known only by its status: the catalog's for the statuses answered
    /// here; HTTP's own reason phrase (English, as the protocol has it) for any other.
    static func title(of status: HTTPResponse.Status) -> Message {
        switch status {
        case .badRequest: Message("problem.title.badRequest")
        case .unsupportedMediaType: Message("problem.title.unsupportedMediaType")
        default: .verbatim(status.reasonPhrase)
        }
    }

    /// What a JSON value should have been ("a string").
    private static func describe(_ type: Any.Type) -> Message {
        switch type {
        case is String.Type: return Message("input.type.string")
        case is Int.Type, is Int64.Type, is Int32.Type: return Message("input.type.integer")
        case is Double.Type, is Float.Type: return Message("input.type.number")
        case is Bool.Type: return Message("input.type.boolean")
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return Message("input.type.array") }
            return Message("input.type.object")
        }
    }

    /// Pulls a quoted header, query or path parameter name out of the runtime's description.
    private static func fieldName(in description: String) -> String? {
        guard let open = description.firstIndex(of: "'") ?? description.firstIndex(of: "\""),
            let close = description[description.index(after: open)...].firstIndex(of: description[open])
        else { return nil }
        let name = String(description[description.index(after: open)..<close])
        return name.isEmpty || name.count > 64 ? nil : name
    }

    /// The HTTP response for this problem, in the language of `localizer`.
    func response(requestID: String?, localizer: Localizer) -> Response {
        var problem = self
        problem.requestId = requestID
        let data = problem.encoded(localizer)
        var headers = HTTPFields()
        headers[.contentType] = Problem.contentType
        if status == 401 { headers[.wwwAuthenticate] = "Bearer" }
        if status == 503 { headers[.retryAfter] = "60" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: httpStatus, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
