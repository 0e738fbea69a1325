import ArgumentParser
import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// `questline admin grant|revoke|list`: the administrator role, a stored role that only the
/// operator (who holds the database) grants. Each change is audited (`admin_audit`).
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Grant, revoke and list the administrator role (campaigns, the funnel, webhooks).",
        discussion: """
            Administrators are a stored role: signing up with an e-mail gives none. Use the same \
            database options as serve (--database, or DATABASE_URL for PostgreSQL). Each change \
            is written to the audit (admin list shows the latest).
            """,
        subcommands: [Grant.self, Revoke.self, List.self])

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make the account with this login an administrator.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The account's e-mail (or a child's username).") var login: String

        func run() async throws {
            try await AdminCommand.change(login: login, grant: true, store: store)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take the administrator role from this account.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The account's e-mail (or a child's username).") var login: String

        func run() async throws {
            try await AdminCommand.change(login: login, grant: false, store: store)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the administrators and the latest changes of the role.")
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await AdminCommand.withAccounts(store) { accounts in
                let admins = try await accounts.administrators()
                if admins.isEmpty {
                    say("No administrators. Grant one with: questline admin grant EMAIL")
                } else {
                    say("Administrators:")
                    for (member, since) in admins {
                        say("  \(member.email ?? member.username ?? member.id.rawValue)  since \(Self.time(since))")
                    }
                }
                let audit = try await accounts.administratorAudit(limit: 20)
                if !audit.isEmpty {
                    say("Latest changes:")
                    for change in audit {
                        say(
                            "  \(Self.time(change.at))  \(change.granted ? "granted" : "revoked")  \(change.login ?? "(a deleted account)")  by \(change.by)"
                        )
                    }
                }
            }
        }

        static func time(_ date: Date) -> String { date.formatted(.iso8601) }
    }

    static func change(login: String, grant: Bool, store: StoreOptions) async throws {
        try await withAccounts(store) { accounts in
            do {
                let (member, changed) = try await accounts.setAdministrator(
                    login: login, grant: grant, by: "cli", scope: .system)
                let name = member.email ?? member.username ?? member.id.rawValue
                say(
                    changed
                        ? "\(name) is \(grant ? "now an administrator" : "no longer an administrator")."
                        : "\(name) \(grant ? "is an administrator already" : "was not an administrator"): nothing changed."
                )
            } catch let error as DomainError {
                if case .notFound(let message) = error { throw CommandFailure(Localizer.english(message)) }
                throw CommandFailure(GameQuestionsCommand.message(error))
            }
        }
    }

    static func withAccounts(_ store: StoreOptions, _ body: (AccountsFeature) async throws -> Void) async throws {
        let opened = try await Store.open(store.location)
        do {
            // Roles only: no zone changes, so no listeners.
            try await body(
                AccountsFeature(store: opened, configuration: FeatureConfiguration(), events: FeatureEvents()))
        } catch {
            await opened.shutdown()
            throw error
        }
        await opened.shutdown()
    }
}
