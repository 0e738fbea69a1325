public import Foundation
public import OpenAPIRuntime
public import QuestlineAPI
public import QuestlineClient

/// Where a session's token is kept between launches. On iOS, keep it in the Keychain (see
/// docs/ios.md); on Linux and in tests, `FileTokenStore`.
public protocol TokenStore: Sendable {
    func load() async throws -> String?
    /// Keeps `token`, or forgets it when nil.
    func save(_ token: String?) async throws
}

/// A token in a file readable by its owner only.
public struct FileTokenStore: TokenStore {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func load() throws -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    public func save(_ token: String?) throws {
        guard let token else {
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            return
        }
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(token.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}

/// A token kept in memory only (tests, previews).
public actor MemoryTokenStore: TokenStore {
    private var token: String?
    public init(token: String? = nil) { self.token = token }
    public func load() -> String? { token }
    public func save(_ token: String?) { self.token = token }
}

/// The member signed in on this device, and the client that speaks for them.
///
/// A 401 from any call made through `QuestlineSession` ends the session: the token is
/// forgotten, `isSignedIn` turns false and the outbox stops sending until the member signs in
/// again (`SessionError.signedOut`).
public actor QuestlineSession {
    public nonisolated let client: Client
    private let auth: BearerTokenMiddleware
    private let tokens: any TokenStore
    private var member: Components.Schemas.Member?

    /// - Parameters:
    ///   - serverURL: the server's root, e.g. `https://questline.example.com`.
    ///   - transport: URLSession's (`OpenAPIURLSession`) on Apple platforms, AsyncHTTPClient's
    ///     (`OpenAPIAsyncHTTPClient`) on Linux.
    public init(serverURL: URL, transport: any ClientTransport, tokens: any TokenStore) async throws {
        var token = try await tokens.load()
        if let saved = token, !Self.isPlausible(token: saved) {
            // A damaged or tampered store (a token no server issues): forgotten, so the member
            // signs in again instead of every request being refused.
            try await tokens.save(nil)
            token = nil
            forgotDamagedToken = true
        }
        let auth = BearerTokenMiddleware(token: token)
        self.auth = auth
        self.tokens = tokens
        client = Client(
            serverURL: serverURL.appendingPathComponent("api/v1"), configuration: .questline, transport: transport,
            middlewares: [auth, ResponseHeaders.recorder])
    }

    public var isSignedIn: Bool { auth.token != nil }

    /// Whether the saved token was not one a server issues (and so was forgotten at start).
    public private(set) var forgotDamagedToken = false

    /// A session token as servers issue it: 16 to 512 visible ASCII characters (a bearer
    /// token travels in a header, which a server refuses past a few kilobytes).
    public static func isPlausible(token: String) -> Bool {
        (16...512).contains(token.utf8.count) && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The member signed in, as the server last described them (nil until `currentMember`).
    public var signedInMember: Components.Schemas.Member? { member }

    /// Signs in with an e-mail (or a child's username) and password.
    @discardableResult
    public func logIn(login: String, password: String, deviceID: String? = nil) async throws
        -> Components.Schemas.Member
    {
        let output = try await client.logIn(body: .json(.init(login: login, password: password, deviceId: deviceID)))
        switch output {
        case .ok(let ok): return try await begin(try ok.body.json)
        case .unauthorized(let refused):
            throw SessionError.refused(
                try refused.body.application_problem_plus_json.detail ?? "Wrong login or password.")
        case .undocumented(let status, _) where status == 429 || status >= 500: throw SessionError.unavailable(status)
        default: throw SessionError.unexpected(Self.describe(output))
        }
    }

    /// Creates an account and signs in.
    @discardableResult
    public func signUp(email: String, password: String, displayName: String, timeZone: String, deviceID: String? = nil)
        async throws -> Components.Schemas.Member
    {
        let output = try await client.signUp(
            body: .json(
                .init(
                    email: email, password: password, displayName: displayName, timeZone: timeZone, deviceId: deviceID)
            ))
        switch output {
        case .created(let created): return try await begin(try created.body.json)
        case .badRequest(let refused):
            let problem = try refused.body.application_problem_plus_json
            throw SessionError.invalid(field: problem.field, problem.detail ?? problem.title)
        case .conflict(let refused):
            throw SessionError.refused(try refused.body.application_problem_plus_json.detail ?? "Taken.")
        case .undocumented(let status, _) where status == 429 || status >= 500: throw SessionError.unavailable(status)
        default: throw SessionError.unexpected(Self.describe(output))
        }
    }

    /// Ends the session on the server (when it can be reached) and forgets the token.
    public func logOut() async throws {
        if auth.token != nil { _ = try? await client.logOut() }
        try await signedOut()
    }

    /// The member signed in, read from the server (a 401 ends the session).
    public func currentMember() async throws -> Components.Schemas.Member {
        switch try await client.getMe() {
        case .ok(let ok):
            let me = try ok.body.json
            member = me
            return me
        case .unauthorized:
            try await signedOut()
            throw SessionError.signedOut
        case let other: throw SessionError.unexpected(Self.describe(other))
        }
    }

    /// Forgets the token after the server answered 401 (the session expired or was ended).
    public func signedOut() async throws {
        auth.token = nil
        member = nil
        try await tokens.save(nil)
    }

    private func begin(_ session: Components.Schemas.Session) async throws -> Components.Schemas.Member {
        auth.token = session.token
        member = session.member
        try await tokens.save(session.token)
        return session.member
    }

    static func describe(_ value: Any) -> String { String(describing: value).prefix(300).description }
}

/// Why a session call failed.
public enum SessionError: Error, Equatable, CustomStringConvertible {
    /// The server no longer knows the token (or never did): sign in again.
    case signedOut
    /// Login refused (wrong password, taken e-mail).
    case refused(String)
    case invalid(field: String?, String)
    /// The server is busy or failing (429, 5xx): try again later.
    case unavailable(Int)
    case unexpected(String)

    public var description: String {
        switch self {
        case .signedOut: "Signed out: sign in again."
        case .refused(let detail): detail
        case .invalid(let field, let detail): field.map { "\($0): \(detail)" } ?? detail
        case .unavailable(let status): "The server cannot answer now (\(status)): trying again later."
        case .unexpected(let detail): "Unexpected answer: \(detail)"
        }
    }
}
