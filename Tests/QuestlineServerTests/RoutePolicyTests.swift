import Foundation
import HTTPTypes
import Hummingbird
import Logging
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

@testable import QuestlineServer

/// Policy by route (`RoutePolicy`), not by the text of a path: every spelling of an address
/// that is not the canonical one is answered before any route-dependent middleware, so no
/// variant escapes the login budget, the sealing of credentials, the body limit or the form
/// checks.
@Suite struct RoutePolicyTests {
    @Test func canonicalSpellings() {
        let cases: [(String, String?)] = [
            ("/", nil), ("/api/v1/auth/login", nil), ("/api/v1/auth/login/", "/api/v1/auth/login"),
            ("//api/v1/auth/login", "/api/v1/auth/login"), ("/api//v1/auth/login", "/api/v1/auth/login"),
            ("/api/v1/./auth/login", "/api/v1/auth/login"), ("/api/v1/x/../auth/login", "/api/v1/auth/login"),
            ("//", "/"), ("/quests/", "/quests"), ("/quests%2Fx", "/quests/x"), ("/a/%2e%2E/b", "/b"),
            ("/a/%2E/b", "/a/b"), ("%2Fhealth", "/health"), ("/api/v1/members/abc%2f", "/api/v1/members/abc"),
        ]
        for (path, canonical) in cases {
            #expect(CanonicalPath.canonical(path) == canonical, "\(path)")
            // The one-pass check never calls a path canonical that is not.
            if CanonicalPath.isPlainlyCanonical(path) { #expect(canonical == nil, "\(path)") }
        }
        for path in ["/", "/api/v1/reading/widget", "/quests/abc-1/edit", "/a.b/c."] {
            #expect(CanonicalPath.isPlainlyCanonical(path), "\(path)")
        }
        for path in ["", "a/b", "/a/", "/a//b", "/.well-known/x", "/a/%41"] {
            #expect(!CanonicalPath.isPlainlyCanonical(path), "\(path)")
        }
        #expect(CanonicalPath.canonical("/.well-known/x") == nil)
    }

    /// Every route in the policy table is a route of the router: a renamed route cannot
    /// silently lose its policy.
    @Test func everyPolicyNamesARoute() async throws {
        let routes = try await Self.routes()
        let known = Set(routes.map { "\($0.method) \($0.path)" })
        for key in RoutePolicy.table.keys {
            #expect(known.contains("\(key.method) \(key.route)"), "no route \(key.method) \(key.route)")
        }
        #expect(RoutePolicy.of(method: .post, route: "/api/v1/auth/login").limitsLogins)
        #expect(RoutePolicy.of(method: .post, route: "/login").limitsLogins)
        #expect(RoutePolicy.of(method: .post, route: "/login").isForm)
        #expect(!RoutePolicy.of(method: .post, route: "/api/v1/me/notifications").isForm)
        #expect(RoutePolicy.of(method: .post, route: nil) == RoutePolicy())
    }

    /// Walks every route (each operation of the contract and each page) with the spellings the
    /// router would otherwise accept or that look alike: a trailing slash, doubled slashes, a
    /// percent-encoded slash, another case. None reaches the route: GET and HEAD are redirected
    /// to the canonical address, anything else is 404 (or, for spellings the router does not
    /// match at all, the not-found answer).
    @Test func everyRouteRefusesOtherSpellings() async throws {
        let routes = try await Self.routes()
        #expect(routes.count > 150, "\(routes.count) routes")
        try await Harness.run(on: [.sqlite]) { app in
            for route in routes {
                let canonical = Self.sample(route.path)
                let slash = canonical.lastIndex(of: "/")!
                let variants = [
                    (canonical + "/", true),
                    ("/" + canonical, true),
                    (canonical.replacingCharacters(in: slash...slash, with: "//"), true),
                    (canonical.replacingCharacters(in: slash...slash, with: "%2F"), true),
                    (canonical.uppercased(), false),
                ]
                for (variant, redirects) in variants where variant != canonical {
                    let reply = try await app.send(route.method, variant, json: route.method == .get ? nil : "{}")
                    let context = "\(route.method) \(variant) (route \(route.path))"
                    if redirects, route.method == .get || route.method == .head {
                        #expect(reply.status == .permanentRedirect, "\(context): \(reply.status)")
                        #expect(reply.headers[.location] == canonical, "\(context): \(reply.headers[.location] ?? "")")
                    } else {
                        #expect(reply.status == .notFound, "\(context): \(reply.status) \(reply.text.prefix(120))")
                    }
                }
            }
        }
    }

    /// The defects that path-keyed policies let through: with the login budget spent, variants
    /// of the login path were processed (401, not 429); a login to a variant with an
    /// `Idempotency-Key` stored its token unsealed.
    @Test func loginVariantsGetTheLoginPolicy() async throws {
        var limits = RateLimits.standard
        limits.loginsPerAddress = 3
        try await Harness.run(rateLimits: limits) { app in
            _ = try await app.signUp("budget@example.com")
            let body = #"{"login":"budget@example.com","password":"wrong-password"}"#
            for _ in 0..<3 { try await app.send(.post, "/api/v1/auth/login", json: body) }
            #expect(try await app.send(.post, "/api/v1/auth/login", json: body).status == .tooManyRequests)
            for variant in [
                "/api/v1/auth/login/", "//api/v1/auth/login", "/api/v1//auth/login", "/api//v1/auth/login/",
            ] {
                let reply = try await app.send(.post, variant, json: body)
                #expect(reply.status == .notFound, "\(variant): \(reply.status)")
            }
            let good = #"{"login":"budget@example.com","password":"password123"}"#
            let sealed = try await app.send(
                .post, "/api/v1/auth/login/", json: good, headers: [.idempotencyKey: "variant-login-1"])
            #expect(sealed.status == .notFound && !sealed.text.contains("token"))
            let stored = try await app.store.database.withConnection { db in
                try await db.raw("SELECT COUNT(*) AS n FROM idempotency_claims").first()?.decode(
                    column: "n", as: Int.self)
            }
            #expect(stored == 0, "a variant's request was claimed")
        }
    }

    /// A route of the router: its method and pattern.
    struct Route: Sendable {
        let method: HTTPRequest.Method
        let path: String
    }

    static func routes() async throws -> [Route] {
        try await TestDatabase.sqlite.withStore { store in
            let (router, _) = try await buildRouterAndServices(
                configuration: Harness.configuration(clock: ManualClock(Harness.start)), store: store,
                logger: Logger(label: "test"))
            return router.routes.map { Route(method: $0.method, path: $0.path.description) }
        }
    }

    /// A concrete address for a route pattern: each `{parameter}` filled with a value of its kind.
    static func sample(_ pattern: String) -> String {
        var path = ""
        for segment in pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            path += "/"
            if segment.hasPrefix("{") {
                let name = segment.dropFirst().dropLast().lowercased()
                path +=
                    name.contains("date")
                    ? "2026-05-07"
                    : ["chapter", "page"].contains(name)
                        ? "1"
                        : name.contains("token") ? "app.example" : "0b0f6c3e-7f8a-4c1e-9d2b-5a6e7f8a9b0c"
            } else {
                path += segment
            }
        }
        return path
    }
}
