import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// Limits: login backoff per account, login attempts per address, writes per member (429 with
/// Retry-After, as problem+json).
@Suite struct RateLimitTests {
    /// A locked account stays locked whatever spelling of its name is typed (`LoginName.key`):
    /// before, appending a character the lookup stripped and the lockout did not gave each
    /// variant a fresh lock, and the right password signed in while the account was locked.
    @Test func aLockedAccountStaysLockedForEverySpellingOfItsName() async throws {
        try await Harness.run { app in
            _ = try await app.signUp("spell@example.com")
            func login(_ name: String, _ password: String) async throws -> Reply {
                let body = try JSONSerialization.data(withJSONObject: ["login": name, "password": password])
                return try await app.send(.post, "/api/v1/auth/login", json: String(decoding: body, as: UTF8.self))
            }
            for _ in 0..<5 { try await login("spell@example.com", "wrong-password").expectProblem(.unauthorized) }
            // Control characters (a line feed, NEL) are refused before any login (`TextRule`).
            for name in ["spell@example.com\n", "spell@example.com\u{85}"] {
                try await login(name, "password123").expectProblem(.badRequest)
            }
            let spellings = [
                "spell@example.com", "SPELL@example.com", "\u{2028}spell@example.com", "spell@example.com\u{2029}",
                "spell@example.com\u{200B}", "\u{FEFF}Spell@Example.com\u{3000}", "spell@example.com\u{A0}",
            ]
            for name in spellings {
                for password in ["wrong-password", "password123"] {
                    let reply = try await login(name, password)
                    #expect(
                        reply.status == .tooManyRequests,
                        "\(name.unicodeScalars.map { String($0.value, radix: 16) }) \(password): \(reply.status)")
                }
            }
            app.clock.advance(by: 24 * 3600)
            let signedIn = try await login("\u{2028}Spell@Example.com\u{200B}", "password123")
            #expect(signedIn.status == .ok, "\(signedIn.text)")
        }
    }

    @Test func repeatedFailedLoginsLockTheAccountWithADoublingBackoff() async throws {
        try await Harness.run { app in
            _ = try await app.signUp("lock@example.com")
            let wrong = #"{"login":"lock@example.com","password":"wrong-password"}"#
            let right = #"{"login":"lock@example.com","password":"password123"}"#
            for _ in 0..<4 { try await app.send(.post, "/api/v1/auth/login", json: wrong).expectProblem(.unauthorized) }
            try await app.send(.post, "/api/v1/auth/login", json: wrong).expectProblem(.unauthorized)  // the 5th locks
            let locked = try await app.send(.post, "/api/v1/auth/login", json: right)
            locked.expectProblem(.tooManyRequests)
            #expect(locked.headers[.retryAfter] == "60")
            // An account that does not exist answers the same way (nothing is revealed).
            for _ in 0..<5 {
                _ = try await app.send(
                    .post, "/api/v1/auth/login", json: #"{"login":"nobody@example.com","password":"x-password"}"#)
            }
            try await app.send(
                .post, "/api/v1/auth/login", json: #"{"login":"nobody@example.com","password":"x-password"}"#
            )
            .expectProblem(.tooManyRequests)
            app.clock.advance(by: 61)
            // 6th failure: 120 s
            try await app.send(.post, "/api/v1/auth/login", json: wrong).expectProblem(.unauthorized)
            #expect(try await app.send(.post, "/api/v1/auth/login", json: right).headers[.retryAfter] == "120")
            app.clock.advance(by: 121)
            #expect(try await app.send(.post, "/api/v1/auth/login", json: right).status == .ok)
            // Success resets the count.
            try await app.send(.post, "/api/v1/auth/login", json: wrong).expectProblem(.unauthorized)
            #expect(try await app.send(.post, "/api/v1/auth/login", json: right).status == .ok)
        }
    }

    @Test func loginAttemptsAndWritesAreLimitedPerAddressAndPerMember() async throws {
        let limits = RateLimits(
            loginsPerAddress: 3, writesPerMember: 4, writesPerAddress: 100, failuresBeforeLock: 0, lockSeconds: 0,
            maxLockSeconds: 0)
        try await Harness.run(rateLimits: limits) { app in
            let (token, _) = try await app.signUp("busy@example.com")
            let login = #"{"login":"busy@example.com","password":"password123"}"#
            for _ in 0..<3 { #expect(try await app.send(.post, "/api/v1/auth/login", json: login).status == .ok) }
            let refused = try await app.send(.post, "/api/v1/auth/login", json: login)
            refused.expectProblem(.tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "") == 20)  // 3 a minute: one every 20 s
            // Writes per member: 4 a minute; reads are not limited.
            for index in 0..<4 {
                let saved = try await app.send(
                    .post, "/api/v1/saved", json: #"{"language":"en","title":"Article \#(index)"}"#, token: token)
                #expect(saved.status == .ok, "\(saved.text)")
            }
            try await app.send(.post, "/api/v1/saved", json: #"{"language":"en","title":"One more"}"#, token: token)
                .expectProblem(.tooManyRequests)
            #expect(try await app.send(.get, "/api/v1/saved", token: token).status == .ok)
            app.clock.advance(by: 15)
            #expect(
                try await app.send(.post, "/api/v1/saved", json: #"{"language":"en","title":"Later"}"#, token: token)
                    .status == .ok)
        }
    }
}

/// The session cache never outlives a change on this server: logout, a new household, a
/// profile change are seen by the very next request.
@Suite struct SessionCacheTests {
    @Test func changesToTheMemberAreSeenByTheNextRequest() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("cached@example.com", name: "Cache")
            #expect(
                try await app.send(.get, "/api/v1/me", token: token).decode(Components.Schemas.Member.self).displayName
                    == "Cache")
            _ = try await app.send(.patch, "/api/v1/me", json: #"{"displayName":"Renamed"}"#, token: token)
            #expect(
                try await app.send(.get, "/api/v1/me", token: token).decode(Components.Schemas.Member.self).displayName
                    == "Renamed")
            let home = try await app.send(.post, "/api/v1/households", json: #"{"name":"Cached home"}"#, token: token)
            #expect(
                try await app.send(.get, "/api/v1/me", token: token).decode(Components.Schemas.Member.self).householdId
                    == home.decode(Components.Schemas.Household.self).id)
            #expect(try await app.send(.post, "/api/v1/auth/logout", token: token).status == .noContent)
            try await app.send(.get, "/api/v1/me", token: token).expectProblem(.unauthorized)
        }
    }
}

/// The stories content's assets are served from the store.
@Suite struct StoryAssetTests {
    @Test func bundledAssetsAreServedWithTheirTypeAndAScriptlessPolicy() async throws {
        try await Harness.run { app in
            _ = try await StoryContentFeature(store: app.store, configuration: FeatureConfiguration())
                .installBundledContentIfEmpty()
            let cover = try await app.send(.get, "/content/stories/covers/indianapolis.svg")
            #expect(cover.status == .ok && cover.headers[.contentType] == "image/svg+xml")
            #expect(cover.headers[.contentSecurityPolicy]?.contains("sandbox") == true)
            #expect(cover.text.hasPrefix("<svg"))
            try await app.send(.get, "/content/stories/covers/nowhere.svg").expectProblem(.notFound)
            try await app.send(.get, "/content/stories/../stories.json").expectProblem(.notFound)
        }
    }
}

/// Two instances on one database: login locks (both databases) and, on PostgreSQL, request
/// limits count against one budget, and a restart keeps a lock.
@Suite struct SharedLimitTests {
    /// Runs `body` with a second application on the same database as `app`.
    func withSecondInstance(
        _ app: Harness, rateLimits: RateLimits, _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        let store = Store(database: try Database(app.store.database.location))
        do {
            let second = try await buildApplication(
                configuration: Harness.configuration(clock: app.clock, rateLimits: rateLimits), store: store,
                logger: Logger(label: "second"))
            try await second.test(.router) { client in
                try await body(Harness(client: client, store: store, clock: app.clock, database: app.database))
            }
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    @Test func failedLoginsSpreadOverTwoInstancesLockAtTheSameCount() async throws {
        try await Harness.run { app in
            _ = try await app.signUp("spread@example.com")
            let wrong = #"{"login":"spread@example.com","password":"wrong-password"}"#
            let right = #"{"login":"spread@example.com","password":"password123"}"#
            try await withSecondInstance(app, rateLimits: .standard) { other in
                for _ in 0..<3 {
                    try await app.send(.post, "/api/v1/auth/login", json: wrong).expectProblem(.unauthorized)
                }
                for _ in 0..<2 {
                    try await other.send(.post, "/api/v1/auth/login", json: wrong).expectProblem(.unauthorized)
                }
                try await app.send(.post, "/api/v1/auth/login", json: right).expectProblem(.tooManyRequests)
                try await other.send(.post, "/api/v1/auth/login", json: right).expectProblem(.tooManyRequests)
            }
            // A restarted instance (a new one on the same database) still sees the lock.
            try await withSecondInstance(app, rateLimits: .standard) { restarted in
                try await restarted.send(.post, "/api/v1/auth/login", json: right).expectProblem(.tooManyRequests)
            }
        }
    }

    @Test func loginAttemptsPerAddressAreCountedOnceAcrossInstancesOnPostgreSQL() async throws {
        let limits = RateLimits(
            loginsPerAddress: 4, writesPerMember: 0, writesPerAddress: 0, failuresBeforeLock: 0, lockSeconds: 0,
            maxLockSeconds: 0)
        try await Harness.run(rateLimits: limits, on: TestDatabase.available.filter { $0 == .postgres }) { app in
            _ = try await app.signUp("many@example.com")
            let login = #"{"login":"many@example.com","password":"password123"}"#
            try await withSecondInstance(app, rateLimits: limits) { other in
                for _ in 0..<2 { #expect(try await app.send(.post, "/api/v1/auth/login", json: login).status == .ok) }
                for _ in 0..<2 { #expect(try await other.send(.post, "/api/v1/auth/login", json: login).status == .ok) }
                let refused = try await other.send(.post, "/api/v1/auth/login", json: login)
                refused.expectProblem(.tooManyRequests)
                #expect(refused.headers[.retryAfter] == "15")  // 4 a minute: one every 15 s
                try await app.send(.post, "/api/v1/auth/login", json: login).expectProblem(.tooManyRequests)
                app.clock.advance(by: 15)
                #expect(try await other.send(.post, "/api/v1/auth/login", json: login).status == .ok)
            }
        }
    }

    @Test func theClientAddressComesFromXForwardedForOnlyThroughATrustedProxy() throws {
        let rule = ClientAddressRule(trusted: [AddressRange("10.0.0.0/8")!, AddressRange("::1")!])
        // A peer that is not a proxy is the client, whatever it writes.
        #expect(rule.client(peer: "203.0.113.9", forwardedFor: ["1.2.3.4"]) == "203.0.113.9")
        // Through the proxy: the right-most address the proxy did not add itself.
        #expect(rule.client(peer: "10.1.2.3", forwardedFor: ["198.51.100.7"]) == "198.51.100.7")
        #expect(rule.client(peer: "10.1.2.3", forwardedFor: ["6.6.6.6, 198.51.100.7, 10.9.9.9"]) == "198.51.100.7")
        #expect(rule.client(peer: "::1", forwardedFor: ["2001:db8::5"]) == "2001:db8::5")
        // Junk in the header is not believed; no header means the proxy itself.
        #expect(rule.client(peer: "10.1.2.3", forwardedFor: ["not-an-address"]) == "10.1.2.3")
        #expect(rule.client(peer: "10.1.2.3", forwardedFor: []) == "10.1.2.3")
        #expect(ClientAddressRule(trusted: []).client(peer: "10.1.2.3", forwardedFor: ["1.2.3.4"]) == "10.1.2.3")
        #expect(AddressRange("10.0.0.0/33") == nil && AddressRange("banana") == nil && AddressRange("::/0") != nil)
        #expect(AddressRange("192.168.0.0/16")!.contains(AddressRange.bytes("192.168.200.1")!))
        #expect(!AddressRange("192.168.0.0/17")!.contains(AddressRange.bytes("192.168.200.1")!))
    }
}
