import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import QuestlineAPI
import QuestlineCore
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

@Suite struct PlatformTests {
    @Test func healthMetricsContractAndRequestIDs() async throws {
        try await Harness.run { app in
            let health = try await app.send(.get, "/health")
            #expect(health.status == .ok)
            #expect(health.object["database"] as? String == "ok")
            #expect(health.headers[.init("X-Request-Id")!]?.isEmpty == false)
            let echoed = try await app.send(.get, "/health", headers: [.init("X-Request-Id")!: "abc-123"])
            #expect(echoed.headers[.init("X-Request-Id")!] == "abc-123")

            _ = try await app.send(.get, "/api/v1/me")
            let metrics = try await app.send(.get, "/metrics")
            #expect(metrics.status == .ok)
            #expect(
                metrics.text.contains(
                    #"hb_requests{http_route="/api/v1/me",http_request_method="GET",http_response_status_code="401"}"#),
                "\(metrics.text.prefix(800))")
            #expect(metrics.text.contains("http_server_request_duration_bucket{"))

            let contract = try await app.send(.get, "/openapi.yaml")
            #expect(contract.status == .ok)
            #expect(contract.text.hasPrefix("openapi: \"3.1.0\""))
            #expect(contract.text.contains("operationId: signUp"))
        }
    }

    /// One envelope for every answer (request id, security headers, metrics), and a form token
    /// only where a page uses one: a probe or an API call mints no browser id.
    @Test func everyAnswerHasItsEnvelopeAndOnlyPagesMintAFormBrowser() async throws {
        try await Harness.run { app in
            for path in ["/health", "/api/v1/me", "/login", "/nowhere"] {
                let reply = try await app.send(.get, path, headers: [.accept: "text/html"])
                #expect(reply.headers[.init("X-Content-Type-Options")!] == "nosniff", "\(path)")
                #expect(reply.headers[.init("Referrer-Policy")!] == "same-origin", "\(path)")
                #expect(reply.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(path)")
                #expect(reply.headers[.init("X-Request-Id")!]?.count == 36, "\(path)")
                let browser = reply.headers[values: .setCookie].contains { $0.hasPrefix("ql_csrf=") }
                #expect(browser == (path == "/login"), "\(path)")
            }
            // The login page's token is bound to the browser id it set.
            let login = try await app.send(.get, "/login", headers: [.accept: "text/html"])
            let token = try #require(login.text.firstMatch(of: /name="_csrf" value="([^"]+)"/)?.output.1)
            #expect(token.count == 43)
            let metrics = try await app.send(.get, "/metrics")
            #expect(
                metrics.text.contains(
                    #"hb_requests{http_route="/login",http_request_method="GET",http_response_status_code="200"}"#))
            #expect(metrics.text.contains(#"http_server_active_requests{http_request_method="GET"}"#))
        }
    }

    @Test func retriedWritesWithAnIdempotencyKeyHappenOnce() async throws {
        try await Harness.run { app in
            let body = #"{"email":"ada@example.com","password":"password123","displayName":"Ada","timeZone":"UTC"}"#
            let key: HTTPFields = [.init("Idempotency-Key")!: "signup-1"]
            let first = try await app.send(.post, "/api/v1/auth/signup", json: body, headers: key)
            let again = try await app.send(.post, "/api/v1/auth/signup", json: body, headers: key)
            #expect(first.status == .created)
            #expect(again.status == .created)
            #expect(again.text == first.text)
            #expect(again.headers[.init("Idempotent-Replayed")!] == "true")
            #expect(try await app.store.accounts.memberCount() == 1)

            let different = try await app.send(
                .post, "/api/v1/auth/signup", json: body.replacingOccurrences(of: "Ada", with: "Bob"), headers: key)
            different.expectProblem(.unprocessableContent, field: "Idempotency-Key")
            try await app.send(
                .post, "/api/v1/auth/signup", json: body,
                headers: [.init("Idempotency-Key")!: String(repeating: "k", count: 300)]
            )
            .expectProblem(.badRequest, field: "Idempotency-Key")

            // Keys are per member: the same key from two members are two writes.
            let token = try first.decode(Components.Schemas.Session.self).token
            let (other, _) = try await app.signUp("bob@example.com")
            let household: HTTPFields = [.init("Idempotency-Key")!: "home-1"]
            #expect(
                try await app.send(
                    .post, "/api/v1/households", json: #"{"name":"A"}"#, token: token, headers: household
                ).status == .created)
            #expect(
                try await app.send(
                    .post, "/api/v1/households", json: #"{"name":"A"}"#, token: other, headers: household
                ).status == .created)
            #expect(
                try await app.send(
                    .post, "/api/v1/households", json: #"{"name":"A"}"#, token: token, headers: household
                ).headers[.init("Idempotent-Replayed")!] == "true")
        }
    }

    /// A device killed while uploading leaves a body shorter than its Content-Length, which
    /// Hummingbird hands on as if whole: it is refused before its key is claimed, so the device's
    /// whole retry under the same key is applied, not refused as a key "used for a different
    /// request". (The cut request is given to the router directly: a test client always sends
    /// the length of what it sends.)
    @Test func aBodyCutBeforeItsLengthClaimsNoKeyAndTheWholeRetryApplies() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            let body = #"{"name":"Home"}"#
            var logger = Logger(label: "cut")
            logger.logLevel = .warning
            let responder = try await buildApplication(
                configuration: Harness.configuration(clock: app.clock), store: app.store, logger: logger
            ).responder
            let cut = Request(
                head: .init(
                    method: .post, scheme: "http", authority: "localhost", path: "/api/v1/households",
                    headerFields: [
                        .authorization: "Bearer \(token)", .contentType: "application/json",
                        .init("Idempotency-Key")!: "home-cut", .contentLength: String(body.utf8.count),
                    ]),
                body: .init(buffer: ByteBuffer(string: String(body.prefix(9)))))
            let answer = try await responder.respond(
                to: cut,
                context: AppRequestContext(source: .init(channel: NIOAsyncTestingChannel(), logger: logger)))
            #expect(answer.status == .badRequest)
            let collected = CollectedBody()
            try await answer.body.write(collected)
            #expect(collected.text.contains("body-incomplete"), "\(collected.text)")

            let whole = try await app.send(
                .post, "/api/v1/households", json: body, token: token, headers: [.init("Idempotency-Key")!: "home-cut"])
            #expect(whole.status == .created, "\(whole.text)")
            #expect(whole.headers[.init("Idempotent-Replayed")!] == nil)
        }
    }

    @Test func newIdsAreTimeOrderedOnTheServersClock() async throws {
        try await Harness.run { app in
            // 2026-05-07T10:00:00Z is 1,778,148,000,000 ms: 019e01e1-4100 in hex, then version 7.
            let (_, first) = try await app.signUp("ada@example.com")
            #expect(first.hasPrefix("019e01e1-4100-7"), "\(first)")
            app.clock.advance(by: 0.001)
            let (_, second) = try await app.signUp("bob@example.com")
            #expect(second.hasPrefix("019e01e1-4101-7") && first < second, "\(first) \(second)")
        }
    }

    @Test func aRefusedWriteIsReplayedAsTheSameRefusal() async throws {
        try await Harness.run { app in
            let key: HTTPFields = [.init("Idempotency-Key")!: "bad-1"]
            let body = #"{"email":"nope","password":"password123","displayName":"A","timeZone":"UTC"}"#
            try await app.send(.post, "/api/v1/auth/signup", json: body, headers: key).expectProblem(
                .badRequest, field: "email")
            let replay = try await app.send(.post, "/api/v1/auth/signup", json: body, headers: key)
            replay.expectProblem(.badRequest, field: "email")
            #expect(replay.headers[.init("Idempotent-Replayed")!] == "true")
        }
    }
}

/// The metrics that explain load, each present on `/metrics` once what it measures happened.
@Suite struct LoadMetricsTests {
    @Test func poolWaitsCommitSizesBacklogSubscribersAndIdempotency() async throws {
        try await Harness.runReading { app in
            let (token, _) = try await app.signUp("metrics@example.com", timeZone: "Europe/Paris")
            let key: HTTPFields = [.init("Idempotency-Key")!: "read-1"]
            for _ in 0..<2 {  // the second is a replay
                let read = try await app.send(
                    .post, "/api/v1/reading/reads", json: app.readJSON("m1", "2026-05-01T07:30:00Z"), token: token,
                    headers: key)
                #expect(read.status == .ok, "\(read.text)")
            }
            let reused = try await app.send(
                .post, "/api/v1/reading/reads", json: app.readJSON("m2", "2026-05-01T07:31:00Z"), token: token,
                headers: key)
            #expect(reused.status.code == 422, "\(reused.text)")
            let text = try await app.send(.get, "/metrics").text
            let database = app.database == .sqlite ? "sqlite" : "postgres"
            for line in [
                #"questline_db_pool_wait_seconds_bucket{database="\#(database)""#,
                "questline_group_commit_size_bucket{", "questline_analytics_backlog ",
                "questline_live_subscribers ", #"questline_idempotency_total{outcome="replay"}"#,
                #"questline_idempotency_total{outcome="reused"}"#,
            ] {
                #expect(text.contains(line), "\(line) is missing")
            }
        }
    }
}

/// Idempotency keys that hold secrets sealed, are scoped per device, and are forgotten after
/// their lifetime.
@Suite struct IdempotencyScopeTests {
    @Test func aLoginsStoredResponseIsSealedAndOpensOnlyForTheSameRequest() async throws {
        try await Harness.run { app in
            _ = try await app.signUp("sealed@example.com")
            let key: HTTPFields = [.init("Idempotency-Key")!: "login-1"]
            let login = #"{"login":"sealed@example.com","password":"password123"}"#
            let first = try await app.send(.post, "/api/v1/auth/login", json: login, headers: key)
            #expect(first.status == .ok)
            let token = try first.decode(Components.Schemas.Session.self).token
            let replay = try await app.send(.post, "/api/v1/auth/login", json: login, headers: key)
            #expect(replay.headers[.init("Idempotent-Replayed")!] == "true")
            #expect(try replay.decode(Components.Schemas.Session.self).token == token)
            // Neither the token nor the password can be read from the table.
            let stored = try await app.store.database.withConnection { db in
                try await db.raw("SELECT request_hash, body FROM idempotency_claims").all().map {
                    (
                        try $0.decode(column: "request_hash", as: String.self),
                        try $0.decode(column: "body", as: String.self)
                    )
                }
            }
            #expect(stored.count == 1)
            for (hash, body) in stored {
                let clear = Data(base64Encoded: body).map { String(decoding: $0, as: UTF8.self) } ?? ""
                #expect(!clear.contains(token) && !body.contains(token) && hash.hasPrefix("sealed:"))
            }
            // The same key with another password opens nothing: a reused key.
            try await app.send(
                .post, "/api/v1/auth/login", json: #"{"login":"sealed@example.com","password":"password124"}"#,
                headers: key
            )
            .expectProblem(.unprocessableContent, field: "Idempotency-Key")
        }
    }

    /// Every stored response that holds a credential is sealed, whatever its route: before, an
    /// invitation code (and a webhook's signing secret) stayed readable for 24 hours in the table
    /// although the invitations table keeps only a hash. Request hashes are keyed (HMAC with the
    /// server's key): the plain SHA-256 of a body that held a password let a copy of the table
    /// test password guesses.
    @Test func credentialsAreSealedOnEveryRouteAndHashesAreKeyed() async throws {
        try await Harness.run { app in
            let f = try await HouseholdAPITests().family(app)
            let admin = try await app.signUpAdministrator("sealer@example.com")
            let invite = try await app.send(
                .post, "/api/v1/households/\(f.household)/invitations", json: #"{"role":"guardian"}"#,
                token: f.guardian, headers: [.init("Idempotency-Key")!: "invite-1"])
            #expect(invite.status == .created, "\(invite.text)")
            let code = try invite.string("code")
            let hook = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["points.changed"]}"#,
                token: admin.token, headers: [.init("Idempotency-Key")!: "hook-1"])
            #expect(hook.status == .created, "\(hook.text)")
            let secret = try hook.string("secret")
            let body = #"{"email":"plain@example.com","password":"password123","displayName":"P","timeZone":"UTC"}"#
            _ = try await app.send(
                .post, "/api/v1/auth/signup", json: body, headers: [.init("Idempotency-Key")!: "su-1"])
            let rows = try await app.store.database.withConnection { db in
                try await db.raw("SELECT idem_key, request_hash, body, sealed FROM idempotency_claims").all().map {
                    (
                        try $0.decode(column: "idem_key", as: String.self),
                        try $0.decode(column: "request_hash", as: String.self),
                        try $0.decode(column: "body", as: String?.self) ?? "",
                        try $0.decode(column: "sealed", as: Int.self)
                    )
                }
            }
            #expect(rows.count == 3)
            for (key, hash, stored, sealed) in rows {
                let clear = Data(base64Encoded: stored).map { String(decoding: $0, as: UTF8.self) } ?? stored
                #expect(sealed == 1, "\(key) is not sealed")
                #expect(!clear.contains(code) && !clear.contains(secret) && !clear.contains("token"), "\(key)")
                // Not the plain SHA-256 of method, path and body.
                for path in ["/api/v1/auth/signup", "/api/v1/admin/webhooks"] {
                    let plain = SHA256.hash(data: Array("POST".utf8) + [0] + Array(path.utf8) + [0] + Array(body.utf8))
                        .map { String(format: "%02x", $0) }.joined()
                    #expect(!hash.contains(plain))
                }
            }
            // The replay still gives the code back to the same request.
            let replay = try await app.send(
                .post, "/api/v1/households/\(f.household)/invitations", json: #"{"role":"guardian"}"#,
                token: f.guardian, headers: [.init("Idempotency-Key")!: "invite-1"])
            #expect(try replay.string("code") == code)
            // The webhook's signing secret is sealed in its table too.
            let stored = try await app.store.database.withConnection { db in
                try await db.raw("SELECT secret FROM webhook_endpoints").all().map {
                    try $0.decode(column: "secret", as: String.self)
                }
            }
            #expect(stored.count == 1 && stored.allSatisfy { $0.hasPrefix("v1.") && !$0.contains(secret) })
        }
    }

    @Test func anonymousKeysAreScopedPerDeviceAndForgottenAfterADay() async throws {
        try await Harness.runReading { app in
            let read = app.readJSON("e1", "2026-05-01T07:30:00Z")
            func send(device: String) async throws -> Reply {
                try await app.send(
                    .post, "/api/v1/reading/reads", json: read,
                    headers: [.init("Idempotency-Key")!: "same-key", .init("X-Device-Id")!: device])
            }
            let first = try await send(device: "device-one")
            #expect(try first.decode(Components.Schemas.ReadResult.self).recorded)
            // Another device with the same key and body: its own read, not the first one's answer.
            let second = try await send(device: "device-two")
            #expect(second.headers[.init("Idempotent-Replayed")!] == nil)
            #expect(try second.decode(Components.Schemas.ReadResult.self).recorded)
            #expect(try await send(device: "device-one").headers[.init("Idempotent-Replayed")!] == "true")
            // A day later the housekeeping has forgotten the key: the request runs again (and
            // the read's own event id keeps it from counting twice).
            app.clock.advance(by: IdempotencyStore.lifetime + 60)
            #expect(try await app.store.purgeExpired(now: app.clock.now()).idempotencyKeys == 2)
            let later = try await send(device: "device-one")
            #expect(later.headers[.init("Idempotent-Replayed")!] == nil)
            #expect(try later.decode(Components.Schemas.ReadResult.self).recorded == false)
        }
    }
}

/// Collects a response body written straight from a responder.
final class CollectedBody: ResponseBodyWriter, @unchecked Sendable {
    private(set) var text = ""
    func write(_ buffer: ByteBuffer) async throws { text += String(buffer: buffer) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
