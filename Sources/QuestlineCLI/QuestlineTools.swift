import ArgumentParser
import Foundation
import Logging
import QuestlineFeatures
import QuestlineStore

/// The commands that look after Questline's data, through the use cases (`QuestlineFeatures`).
/// The executable adds `serve` (the one command that links the HTTP server) in front of them.
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct QuestlineTools: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "questline",
        abstract: "Questline: an engagement engine for reading and learning apps.",
        subcommands: [
            Migrate.self, DemoDataCommand.self, GameQuestionsCommand.self, GameImportCommand.self,
            WidgetPreviewCommand.self, ReadingFunnelCommand.self, SavedImportCommand.self,
            ContentImportCommand.self, WikiImportCommand.self, DoctorCommand.self, AdminCommand.self,
            SecretsCommand.self, DeviceCommand.self,
        ])

    public init() {}
}

/// Where the data is: `--database` (a SQLite file) or `DATABASE_URL` (PostgreSQL).
public struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "SQLite database file (default questline.sqlite). Ignored when DATABASE_URL is set (postgres://user:pass@host:port/db selects PostgreSQL).",
            valueName: "path"))
    public var database: String?

    public init() {}

    public var location: StoreLocation {
        StoreLocation.fromEnvironment(defaultSQLitePath: database ?? "questline.sqlite")
    }
}

/// The flags of `questline serve`. Each option can also be set by an environment variable
/// (`QUESTLINE_` and its name in upper snake case) or a key in the `--config` file; a flag wins
/// over a variable, a variable over the file (`ServeSettings.resolve`, and the README's table).
/// The command itself lives in the executable, the one place that links the HTTP server.
public struct ServeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A JSON file of options, keyed as in the README's table (also QUESTLINE_CONFIG).", valueName: "path"))
    public var config: String?
    @OptionGroup public var store: StoreOptions
    @Option(help: "Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).") public var hostname: String?
    @Option(help: "Port to listen on (default 8080).") public var port: Int?
    @Flag(help: "Do not create demo accounts on first start, nor the demo reading campaign around today.") public
        var noDemoData = false
    @Flag(help: "Mark the session cookie Secure (set this when served over HTTPS).") public var secureCookies = false
    @Flag(help: "Turn off the request limits and the login backoff (for load tests only).") public var noRateLimits =
        false
    @Flag(help: "Run no reading-reminder pass on this instance (run it on one or a few; see docs/deployment.md).")
    public var noReminders = false
    @Option(help: "Log level: trace, debug, info (default), notice, warning, error, critical.") public var logLevel:
        String?
    @Option(help: "Log format: text (default), or json (one object per line, for log shippers).") public
        var logFormat: String?
    @Option(
        help: ArgumentHelp(
            "Where the game's \"On this day\" feeds come from, with {wiki}, {month} and {day}; \"none\" serves only imported and cached feeds (default: Wikimedia's REST API).",
            valueName: "url-template"))
    public var feedURL: String?
    @Option(
        help: ArgumentHelp(
            "Wikipedia's base URL, with {language}, for search, random articles and summaries; \"none\" uses only the offline pack (default: https://{language}.wikipedia.org).",
            valueName: "url-template"))
    public var wikiURL: String?
    /// Removed (administrators are a stored role: `questline admin grant`); kept hidden so that
    /// an old command line stops with a message that says so.
    @Option(name: .customLong("admin-email"), help: .hidden)
    public var adminEmails: [String] = []
    @Option(
        help: ArgumentHelp(
            "Seconds to keep serving after SIGTERM while /ready answers 503, so that a load balancer moves traffic away first (default 0).",
            valueName: "seconds"))
    public var drainSeconds: Int?
    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A proxy or load balancer (CIDR, repeatable) whose X-Forwarded-For names the client; other peers are the client themselves.",
            valueName: "cidr"))
    public var trustedProxies: [String] = []
    @Option(
        help: ArgumentHelp(
            "PostgreSQL connections this instance may open (spread over its event loops); default 8 per CPU core.",
            valueName: "n"))
    public var dbPoolSize: Int?
    @Option(
        help: ArgumentHelp(
            "An OpenTelemetry collector's OTLP/HTTP endpoint (http://host:4318): turns tracing on (default off).",
            valueName: "url"))
    public var otlpEndpoint: String?
    @Option(
        help: ArgumentHelp(
            "Seconds before a failed webhook delivery's first retry, doubled for each further one (default 10).",
            valueName: "seconds"))
    public var webhookRetrySeconds: Int?
    @Option(
        help: ArgumentHelp(
            "The member's local hour from which a \"streak at risk\" reminder event is produced (default 19).",
            valueName: "hour"))
    public var streakReminderHour: Int?
    @Flag(
        help:
            "Let webhooks go to plain http and to loopback, private and link-local addresses (development and tests only)."
    )
    public var webhookAllowPrivate = false
    @Option(
        help: ArgumentHelp(
            "A file of the server's secret keys, one a line (64 hex digits; the first seals, the others only open): required without demo data. Or give one in QUESTLINE_SECRET_KEY.",
            valueName: "path"))
    public var secretKeyFile: String?

    public init() {}
}

extension ServeSettings {
    /// Instances starting together on one database take turns (the first does the work, the
    /// others find it done).
    public func prepare(_ store: Store) async throws {
        let features = try await features(for: store)
        let accounts = try await store.database.exclusively(lock: 7_426_003) {
            let accounts = demoData ? try await DemoData.ensure(store: store, configuration: features) : []
            try await StoryContentFeature(store: store, configuration: features).installBundledContentIfEmpty()
            // Webhook secrets stored before they were sealed are sealed now.
            try await WebhooksFeature(store: store, configuration: features).resealSecrets(includingOlderKeys: false)
            return accounts
        }
        printDemoAccounts(accounts)
    }

    /// The use cases' configuration with the secret key in force: the configured one, or with
    /// demo data and none configured, the demo's key kept in the database.
    public func features(for store: Store) async throws -> FeatureConfiguration {
        var features = self.features
        if secrets == nil { features.secrets = try await DemoData.storedSecretKey(store: store) }
        return features
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending database migrations and list the applied versions.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let database = try Database(store.location)
        do {
            let applied = try await Migrator().migrate(database)
            let all = try await Migrator().appliedVersions(database)
            say(
                applied.isEmpty
                    ? "Nothing to migrate on \(store.location)."
                    : "Applied on \(store.location): "
                        + applied.map { "\($0.version) \($0.name)" }.joined(separator: ", "))
            say("Schema versions: \(all.map(String.init).joined(separator: ", "))")
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }
}

struct DemoDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-data",
        abstract:
            "Create the demo accounts (a guardian, a household and a child) if they are missing, and print their passwords."
    )

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let opened = try await Store.open(store.location)
        do {
            let created = try await DemoData.ensure(store: opened, configuration: FeatureConfiguration())
            if created.isEmpty {
                say(
                    "Demo accounts already exist (\(DemoData.guardianEmail), \(DemoData.childUsername)); their passwords were printed when they were created."
                )
            } else {
                printDemoAccounts(created)
            }
        } catch {
            await opened.shutdown()
            throw error
        }
        await opened.shutdown()
    }
}

public func printDemoAccounts(_ accounts: [DemoData.Account]) {
    guard !accounts.isEmpty else { return }
    say("Demo accounts created (passwords are shown only now):")
    for account in accounts {
        say(
            "  \(account.role.padding(toLength: 9, withPad: " ", startingAt: 0)) login: \(account.login)  password: \(account.password)"
        )
    }
}

/// Prints a line for the operator and flushes it at once (stdout is block-buffered when it
/// is a file or a pipe, and a server runs until it is stopped).
public func say(_ line: String) {
    print(line)
    fflush(nil)
}
