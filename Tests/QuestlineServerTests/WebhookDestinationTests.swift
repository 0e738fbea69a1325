import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import Testing

/// A name whose answer the test sets: what DNS rebinding looks like to the sender.
final class PlayedResolver: HostResolving {
    let answers = NIOLockedValueBox<[String: [InternetAddress]]>([:])
    func addresses(of host: String) async throws -> [InternetAddress] { answers.withLockedValue { $0[host] ?? [] } }
    func set(_ host: String, _ addresses: [InternetAddress]) { answers.withLockedValue { $0[host] = addresses } }
}

/// Webhooks cannot be aimed inward (`WebhookDestination`): `https` only, to the public internet,
/// in every spelling of an address, checked at registration and again at every delivery after
/// resolving the name; redirects are not followed; the log keeps a class of failure.
@Suite struct WebhookDestinationTests {
    @Test func registrationRefusesInwardAddressesInEverySpelling() async throws {
        try await Harness.run(on: [.sqlite]) { app in
            let admin = try await app.signUpAdministrator("hooks@example.com")
            let inward = [
                "https://localhost/hook", "https://LOCALHOST:8443/hook", "https://127.0.0.1/hook",
                "https://127.1/hook", "https://2130706433/hook", "https://0x7f000001/hook", "https://0177.0.0.1/hook",
                "https://[::1]/hook", "https://[::ffff:127.0.0.1]/hook", "https://[0:0:0:0:0:ffff:7f00:1]/hook",
                "https://169.254.169.254/latest/meta-data", "https://10.0.0.7/hook", "https://192.168.1.20/hook",
                "https://172.16.5.4/hook", "https://0.0.0.0/hook", "https://[fe80::1]/hook", "https://[fd00::1]/hook",
                "https://100.64.0.1/hook",
                // Not https, or credentials in the URL.
                "http://93.184.215.14/hook", "ftp://93.184.215.14/hook", "https://user:pw@93.184.215.14/hook",
            ]
            for url in inward {
                let reply = try await app.send(
                    .post, "/api/v1/admin/webhooks", json: #"{"url":"\#(url)","events":["points.changed"]}"#,
                    token: admin.token)
                #expect(reply.status == .badRequest, "\(url): \(reply.status) \(reply.text)")
                #expect(reply.object["field"] as? String == "url", "\(url): \(reply.text)")
            }
            let good = try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["points.changed"]}"#, token: admin.token)
            #expect(good.status == .created, "\(good.text)")
        }
    }

    /// A name that resolved to a public address when it was registered and resolves inward at
    /// delivery time is not reached: the delivery is recorded as `blocked`.
    @Test func aNameThatLaterResolvesInwardIsNotReached() async throws {
        let hits = NIOLockedValueBox(0)
        let receiver = Router()
        receiver.post("/hook") { _, _ in
            hits.withLockedValue { $0 += 1 }
            return Response(status: .ok)
        }
        let server = Application(router: receiver, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            try await Harness.run(on: [.sqlite]) { app in
                let resolver = PlayedResolver()
                resolver.set("rebind.example", [InternetAddress(bytes: [93, 184, 215, 14])!])
                let configuration = FeatureConfiguration(
                    clock: app.clock, webhookDestination: WebhookDestination(allowPrivate: false, resolver: resolver))
                let endpoint = try await Self.register(
                    app, url: "https://rebind.example:\(port)/hook", configuration: configuration)
                resolver.set("rebind.example", [InternetAddress(bytes: [127, 0, 0, 1])!])
                try await Self.pointsChanged(app)
                let sender = WebhookSender(store: app.store, configuration: configuration)
                #expect(try await sender.pass() == 1)
                let delivery = try #require(
                    try await app.store.outbox.deliveries(endpoint: endpoint, limit: 5, offset: 0).first)
                #expect(delivery.lastError == "blocked" && delivery.lastStatus == nil && delivery.state == "pending")
                #expect(hits.withLockedValue { $0 } == 0)
            }
        }
    }

    /// With private destinations allowed (the test suite's receivers), a redirect is recorded,
    /// not followed (before, a 303 became a GET that still carried the signature), and a
    /// closed port is `refused`, not the connection error's text.
    @Test func redirectsAreNotFollowedAndFailuresAreClasses() async throws {
        let followed = NIOLockedValueBox(0)
        let listening = NIOLockedValueBox(0)
        let receiver = Router()
        receiver.post("/hook") { _, _ in
            Response(
                status: .seeOther, headers: [.location: "http://127.0.0.1:\(listening.withLockedValue { $0 })/next"])
        }
        receiver.on("/next", method: .get) { _, _ in
            followed.withLockedValue { $0 += 1 }
            return Response(status: .ok)
        }
        receiver.post("/next") { _, _ in
            followed.withLockedValue { $0 += 1 }
            return Response(status: .ok)
        }
        let server = Application(router: receiver, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            listening.withLockedValue { $0 = port }
            try await Harness.run(on: [.sqlite]) { app in
                let configuration = FeatureConfiguration(
                    clock: app.clock, webhookDestination: WebhookDestination(allowPrivate: true))
                let redirected = try await Self.register(
                    app, url: "http://127.0.0.1:\(port)/hook", configuration: configuration)
                let closed = try await Self.register(app, url: "http://127.0.0.1:1/hook", configuration: configuration)
                try await Self.pointsChanged(app)
                _ = try await WebhookSender(store: app.store, configuration: configuration).pass()
                let first = try #require(
                    try await app.store.outbox.deliveries(endpoint: redirected, limit: 5, offset: 0).first)
                #expect(first.lastStatus == 303 && first.lastError == "http 3xx", "\(first)")
                #expect(followed.withLockedValue { $0 } == 0)
                let second = try #require(
                    try await app.store.outbox.deliveries(endpoint: closed, limit: 5, offset: 0).first)
                #expect(second.lastError == "refused" && second.lastStatus == nil, "\(second)")
            }
        }
    }

    static func register(_ app: Harness, url: String, configuration: FeatureConfiguration) async throws -> String {
        let admin = try await AccountsFeature(store: app.store, configuration: configuration, events: FeatureEvents())
            .signUp(
                email: "admin-\(UUID().uuidString.prefix(8))@example.com", password: "password123",
                displayName: "Admin",
                timeZone: "UTC", scope: .system)
        let (member, _) = try await AccountsFeature(
            store: app.store, configuration: configuration, events: FeatureEvents()
        )
        .setAdministrator(login: admin.member.email!, grant: true, by: "test", scope: .system)
        return try await WebhooksFeature(store: app.store, configuration: configuration)
            .create(url: url, events: ["points.changed"], description: nil, as: member, scope: .system).0.id
    }

    /// A guardian adjusts a child's points: one `points.changed` event.
    static func pointsChanged(_ app: Harness) async throws {
        let f = try await HouseholdAPITests().family(app)
        let adjusted = try await app.send(
            .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":5,"reason":"Chores"}"#,
            token: f.guardian)
        #expect(adjusted.status == .created, "\(adjusted.text)")
    }
}
