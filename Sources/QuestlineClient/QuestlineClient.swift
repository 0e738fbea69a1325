import Foundation
import HTTPTypes
import OpenAPIRuntime
import QuestlineAPI

/// Adds `Authorization: Bearer <token>` to every request when a token is known.
///
/// `@unchecked Sendable` is safe: `token` is only read and written under `lock`.
public final class BearerTokenMiddleware: ClientMiddleware, @unchecked Sendable {
    private let lock = NSLock()
    private var storedToken: String?

    public init(token: String? = nil) { storedToken = token }

    /// The session token; set it after sign-up or login, clear it after logout.
    public var token: String? {
        get { lock.withLock { storedToken } }
        set { lock.withLock { storedToken = newValue } }
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}

extension Client {
    /// A client for a Questline server at `serverURL` (its root, e.g. `https://example.com`),
    /// authenticated by `auth` once it holds a token.
    public static func questline(serverURL: URL, transport: any ClientTransport, auth: BearerTokenMiddleware) -> Client
    {
        Client(
            serverURL: serverURL.appendingPathComponent("api/v1"), configuration: .questline, transport: transport,
            middlewares: [auth])
    }
}
