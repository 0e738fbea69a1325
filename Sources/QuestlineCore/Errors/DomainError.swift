/// One invalid input: which field, and what is wrong with it, as a message a person reads in
/// their language.
public struct FieldIssue: Hashable, Sendable {
    public let field: String
    public let message: Message

    public init(field: String, message: Message) {
        self.field = field
        self.message = message
    }
}

/// The errors the domain decides. The server maps each to an RFC 9457 problem with a stable
/// `type`, an HTTP status and, where there is one, the offending field; its words are the
/// message, in the reader's language.
public enum DomainError: Error, Hashable, Sendable {
    /// One or more inputs are invalid (400).
    case invalid([FieldIssue])
    /// The caller is not signed in, or the session has ended (401).
    case unauthenticated(Message)
    /// The caller may see the resource but may not do this to it (403), naming the field when
    /// one input is what is not allowed (a child's own `timeZone`).
    case forbidden(Message, field: String? = nil)
    /// The resource does not exist, or the caller may not know that it exists (404).
    case notFound(Message)
    /// The request conflicts with the current state, e.g. an e-mail already taken (409).
    case conflict(field: String?, message: Message)
    /// Something the answer depends on cannot be reached right now (503); retry later.
    case unavailable(Message)
    /// Too many requests, or too many failed logins: retry after this many seconds (429).
    case tooManyRequests(retryAfter: Int, Message)

    public static func invalid(field: String, _ message: Message) -> DomainError {
        .invalid([FieldIssue(field: field, message: message)])
    }

    /// The words of the error.
    public var message: Message {
        switch self {
        case .invalid(let issues): issues.first?.message ?? Message("errors.invalid")
        case .unauthenticated(let message), .notFound(let message), .unavailable(let message),
            .tooManyRequests(_, let message), .forbidden(let message, _), .conflict(_, let message):
            message
        }
    }
}

/// Collects every invalid field of one request, so a form shows all its errors at once.
public struct FieldValidation: Sendable {
    public private(set) var issues: [FieldIssue] = []

    public init() {}

    /// Runs one check; a failure is recorded and nil returned.
    public mutating func check<T>(_ body: () throws(DomainError) -> T) -> T? {
        do { return try body() } catch {
            if case .invalid(let found) = error {
                issues += found
            } else {
                issues.append(FieldIssue(field: "", message: error.message))
            }
            return nil
        }
    }

    /// Records one issue.
    public mutating func add(field: String, _ message: Message) {
        issues.append(FieldIssue(field: field, message: message))
    }

    /// Throws `.invalid` with every recorded issue, if there are any.
    public func finish() throws(DomainError) {
        if !issues.isEmpty { throw .invalid(issues) }
    }

    /// Throws as `finish()` does; otherwise returns the checked values, each of which is there
    /// when no check failed (`let (email, name) = try validation.finish(email, name)`), so no
    /// caller unwraps one by force.
    public func finish<each Value>(_ values: repeat (each Value)?) throws(DomainError) -> (repeat each Value) {
        try finish()
        return (repeat try Self.present(each values))
    }

    private static func present<Value>(_ value: Value?) throws(DomainError) -> Value {
        guard let value else { throw .invalid(field: "", Message("input.error.required")) }
        return value
    }
}
