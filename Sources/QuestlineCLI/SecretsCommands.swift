import ArgumentParser
import Foundation
import QuestlineFeatures
import QuestlineStore

/// `questline secrets new-key|reseal`: the server's secret key, which seals webhook signing
/// secrets at rest and keys the idempotency table (docs/deployment.md, "The secret key").
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "Make a secret key, or seal stored secrets again under the current key (a rotation).",
        subcommands: [NewKey.self, Reseal.self])

    struct NewKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-key", abstract: "Print a new secret key (64 hex digits) for --secret-key-file.")

        func run() async throws { say(SecretBox.newKey()) }
    }

    struct Reseal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seal every stored webhook secret under the first key (after adding a new key first).",
            discussion: """
                A rotation: put the new key on the first line of the key file and keep the old one \
                below it; restart the servers; run this; after a day (stored replies of idempotent \
                requests live 24 hours) remove the old key.
                """)
        @OptionGroup var options: ServeOptions

        func run() async throws {
            let settings: ServeSettings
            do { settings = try await ServeSettings.resolve(options) } catch let invalid as ServeSettings.Invalid {
                throw ValidationError(invalid.description)
            }
            let store = try await Store.open(settings.location())
            do {
                let features = try await settings.features(for: store)
                let (resealed, unreadable) = try await WebhooksFeature(store: store, configuration: features)
                    .resealSecrets()
                say("Sealed \(resealed) webhook secret(s) under the current key.")
                if unreadable > 0 {
                    say(
                        "\(unreadable) webhook secret(s) were sealed by a key not configured here: add that key below the first, or re-create those endpoints."
                    )
                }
            } catch {
                await store.shutdown()
                throw error
            }
            await store.shutdown()
        }
    }
}
