import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import Testing

/// The server's secret key (`SecretBox`): secrets sealed at rest name their key, a rotation
/// re-seals them under the new key, and a key that is gone leaves them unreadable, not wrong.
@Suite struct SecretBoxTests {
    func box(_ keys: String...) throws -> SecretBox { try SecretBox.parse(keys.joined(separator: "\n")).get() }

    @Test func keysParseAndSealedValuesOpenOnlyWithTheirKey() throws {
        let a = SecretBox.newKey()
        let b = SecretBox.newKey()
        let old = try box(a)
        let sealed = try old.seal("whsec_x", purpose: "webhook-secret")
        #expect(sealed.hasPrefix("v1.") && !sealed.contains("whsec_x"))
        #expect(old.open(sealed, purpose: "webhook-secret") == "whsec_x")
        #expect(old.open(sealed, purpose: "another purpose") == nil)
        let rotated = try box(b, a)
        #expect(rotated.open(sealed, purpose: "webhook-secret") == "whsec_x" && !rotated.isSealedByCurrentKey(sealed))
        #expect(try box(b).open(sealed, purpose: "webhook-secret") == nil)
        for bad in ["", "# only a comment", "abc", String(repeating: "g", count: 64), a + "00"] {
            if case .success = SecretBox.parse(bad) { Issue.record("\(bad) parsed") }
        }
        #expect(try SecretBox.parse(" \(a.uppercased()) , \(b)").get().keys.count == 2)
    }

    @Test func aRotationResealsEveryWebhookSecret() async throws {
        try await TestDatabase.sqlite.withStore { store in
            let a = SecretBox.newKey()
            let b = SecretBox.newKey()
            var configuration = FeatureConfiguration(secrets: try box(a))
            configuration.webhookDestination = WebhookDestination(allowPrivate: true)
            let accounts = AccountsFeature(store: store, configuration: configuration, events: FeatureEvents())
            let admin = try await accounts.signUp(
                email: "keys@example.com", password: "password123", displayName: "Keys", timeZone: "UTC", scope: .system
            )
            let (member, _) = try await accounts.setAdministrator(
                login: "keys@example.com", grant: true, by: "test", scope: .system)
            #expect(admin.member.id == member.id)
            let (_, secret) = try await WebhooksFeature(store: store, configuration: configuration).create(
                url: "http://127.0.0.1:9/a", events: ["points.changed"], description: nil, as: member, scope: .system)
            // One stored before secrets were sealed.
            try await store.outbox.createEndpoint(
                WebhookEndpoint(
                    id: "legacy", url: "http://127.0.0.1:9/b", events: [.pointsChanged], description: "",
                    createdAt: Date()), secret: "whsec_legacy", scope: .system)

            configuration.secrets = try box(b, a)
            let rotated = WebhooksFeature(store: store, configuration: configuration)
            #expect(try await rotated.resealSecrets() == (2, 0))
            let stored = try await store.outbox.endpointSecrets()
            #expect(stored.allSatisfy { configuration.secrets.isSealedByCurrentKey($0.secret) })
            let opened = Set(stored.compactMap { configuration.secrets.open($0.secret, purpose: "webhook-secret") })
            #expect(opened == [secret, "whsec_legacy"])
            #expect(try await rotated.resealSecrets() == (0, 0))  // nothing left to do

            // Without the key that sealed them, they are unreadable (counted), never used wrongly.
            configuration.secrets = try box(SecretBox.newKey())
            #expect(try await WebhooksFeature(store: store, configuration: configuration).resealSecrets() == (0, 2))
        }
    }
}
