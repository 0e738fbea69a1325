public import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Exponential backoff with full jitter: the n-th retry waits a random time between zero and
/// `min(cap, base × 2ⁿ)`, so devices that lost the server together do not come back together.
/// A server's `Retry-After` is a floor.
public struct Backoff: Sendable {
    public var base: Double
    public var cap: Double
    private let random: @Sendable (ClosedRange<Double>) -> Double

    public init(
        base: Double = 0.5, cap: Double = 60,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) {
        self.base = base
        self.cap = cap
        self.random = random
    }

    /// Seconds to wait before retry number `attempt` (0 for the first retry).
    public func delay(attempt: Int, retryAfter: Double? = nil) -> Double {
        let ceiling = min(cap, base * pow(2, Double(min(attempt, 30))))
        let jittered = random(0...max(ceiling, 0))
        return max(jittered, retryAfter ?? 0)
    }
}

/// The response headers a call saw that the contract does not type (`Retry-After`), recorded
/// for the task that made the call.
public enum ResponseHeaders {
    /// Holds what the recorder saw, for one call.
    public final class Seen: @unchecked Sendable {
        // `@unchecked Sendable` is safe: written once by the middleware and read after the call
        // returned, under `lock`.
        private let lock = NSLock()
        private var value: Double?
        public init() {}
        public var retryAfter: Double? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    @TaskLocal static var current: Seen?

    /// Runs `call` and returns its result with the `Retry-After` (in seconds) of its response.
    public static func recording<T: Sendable>(_ call: () async throws -> T) async throws -> (T, retryAfter: Double?) {
        let seen = Seen()
        let result = try await $current.withValue(seen) { try await call() }
        return (result, seen.retryAfter)
    }

    static let recorder = Recorder()

    /// The client middleware that notes `Retry-After` (delta-seconds or an HTTP date).
    struct Recorder: ClientMiddleware {
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let (response, responseBody) = try await next(request, body, baseURL)
            if let seen = ResponseHeaders.current, let value = response.headerFields[.retryAfter] {
                seen.retryAfter = ResponseHeaders.seconds(retryAfter: value, now: Date())
            }
            return (response, responseBody)
        }
    }

    /// `Retry-After` in seconds from now: a number of seconds, or an HTTP date.
    public static func seconds(retryAfter value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return max(date.timeIntervalSince(now), 0)
    }
}
