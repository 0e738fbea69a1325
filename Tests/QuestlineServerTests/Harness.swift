import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// A real application (router, middleware, a fresh store on SQLite and on PostgreSQL) driven
/// through HummingbirdTesting, with a pinned clock.
struct Harness {
    let client: any TestClientProtocol
    let store: Store
    let clock: ManualClock
    /// The database this run of the test is on.
    let database: TestDatabase

    static let start = try! Date("2026-05-07T10:00:00Z", strategy: .iso8601)

    static func configuration(
        clock: ManualClock, maxBodyBytes: Int = 1 << 20, feedFetcher: (any FeedFetching)? = nil,
        wikiFetcher: (any WikiFetching)? = nil, sessionLifetime: TimeInterval = 3600,
        rateLimits: RateLimits = .standard
    ) -> AppConfiguration {
        var configuration = AppConfiguration(
            store: .sqlite(path: ":unused:"), clock: clock, bcryptCost: 4, sessionLifetime: sessionLifetime,
            maxBodyBytes: maxBodyBytes, logLevel: .warning, feedFetcher: feedFetcher, wikiFetcher: wikiFetcher,
            rateLimits: rateLimits)
        // Tests run webhook passes and reminder checks themselves, on a pinned clock; a
        // background sender would race them for the same deliveries (it claimed one under load).
        configuration.deliverWebhooks = false
        configuration.reminders = false
        return configuration
    }

    /// Runs `body` against a fresh server on each database the run has (SQLite always,
    /// PostgreSQL when the test script provides one), one after the other.
    static func run(
        maxBodyBytes: Int = 1 << 20, feedFetcher: (any FeedFetching)? = nil, wikiFetcher: (any WikiFetching)? = nil,
        sessionLifetime: TimeInterval = 3600, rateLimits: RateLimits = .standard, leafletDirectory: String? = nil,
        secureCookies: Bool = false,
        on databases: [TestDatabase] = TestDatabase.available,
        _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        for database in databases {
            try await database.withStore { store in
                let clock = ManualClock(start)
                var logger = Logger(label: "test")
                logger.logLevel = .warning
                var configuration = configuration(
                    clock: clock, maxBodyBytes: maxBodyBytes, feedFetcher: feedFetcher, wikiFetcher: wikiFetcher,
                    sessionLifetime: sessionLifetime, rateLimits: rateLimits)
                if let leafletDirectory { configuration.leafletDirectory = leafletDirectory }
                configuration.secureCookies = secureCookies
                let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
                try await app.test(.router) { client in
                    try await body(Harness(client: client, store: store, clock: clock, database: database))
                }
            }
        }
    }

    /// Runs `body` on a fresh server and returns what it returns.
    static func runReturning<T: Sendable>(
        rateLimits: RateLimits = .standard, on database: TestDatabase,
        _ body: @escaping @Sendable (Harness) async throws -> T
    ) async throws -> T {
        let result = NIOLockedValueBox<T?>(nil)
        try await run(rateLimits: rateLimits, on: [database]) { app in
            let value = try await body(app)
            result.withLockedValue { $0 = value }
        }
        return result.withLockedValue { $0 }!
    }

    /// Sends a request; `json` is sent as the body with `Content-Type: application/json`.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, token: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(
            uri: uri, method: method, headers: headers,
            body: json.map { ByteBuffer(string: $0) })
        return Reply(response)
    }

    /// Sends raw bytes (`application/octet-stream`), as a device uploads a photo.
    @discardableResult
    func sendBytes(_ method: HTTPRequest.Method, _ uri: String, bytes: [UInt8], token: String? = nil) async throws
        -> Reply
    {
        var headers: HTTPFields = [.contentType: "application/octet-stream"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return Reply(
            try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: bytes)))
    }

    /// Signs up a member through the API; returns its token and id.
    func signUp(_ email: String, name: String = "Member", timeZone: String = "Europe/Berlin") async throws -> (
        token: String, id: String
    ) {
        let reply = try await send(
            .post, "/api/v1/auth/signup",
            json: #"{"email":"\#(email)","password":"password123","displayName":"\#(name)","timeZone":"\#(timeZone)"}"#)
        #expect(reply.status == .created, "sign-up of \(email): \(reply.text)")
        let session = try reply.decode(Components.Schemas.Session.self)
        return (session.token, session.member.id)
    }
}

extension Harness {
    /// Signs up a member and grants them the administrator role, as the operator does
    /// (`questline admin grant`): signing up never gives a role.
    func signUpAdministrator(_ email: String, name: String = "Admin", timeZone: String = "Europe/Berlin") async throws
        -> (token: String, id: String)
    {
        let member = try await signUp(email, name: name, timeZone: timeZone)
        _ = try await AccountsFeature(
            store: store, configuration: FeatureConfiguration(clock: clock), events: FeatureEvents()
        )
        .setAdministrator(login: email, grant: true, by: "test", scope: .system)
        return member
    }
}

struct ReplyError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A response with its body read as text and as a JSON object.
struct Reply {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String
    /// The body as sent (images).
    let bytes: [UInt8]

    init(_ response: TestResponse) {
        status = response.status
        headers = response.headers
        text = String(buffer: response.body)
        bytes = Array(response.body.readableBytesView)
    }

    /// The body decoded as a typed value: one of the contract's generated types
    /// (`Components.Schemas.Session`) or a small test DTO. A body that is not one fails the test.
    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try RFC3339DateTranscoder().decode(try decoder.singleValueContainer().decode(String.self))
        }
        do {
            return try decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            throw ReplyError(message: "\(status.code) \(text.prefix(300)) is not a \(T.self): \(error)")
        }
    }

    /// A string field of the body that must be there (an id, a token, a code): never a silent "".
    func string(_ key: String) throws -> String {
        guard let value = object[key] as? String, !value.isEmpty else {
            throw ReplyError(message: "\(status.code) \(text.prefix(300)) has no \"\(key)\"")
        }
        return value
    }

    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// Asserts an RFC 9457 problem with this status (and field, when given).
    func expectProblem(
        _ expected: HTTPResponse.Status, field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(status == expected, "\(text)", sourceLocation: sourceLocation)
        #expect(headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        #expect(object["status"] as? Int == expected.code, sourceLocation: sourceLocation)
        #expect(
            (object["type"] as? String)?.hasPrefix("https://questline.dev/problems/") == true,
            sourceLocation: sourceLocation)
        #expect((object["detail"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        if let field { #expect(object["field"] as? String == field, "\(text)", sourceLocation: sourceLocation) }
    }
}
