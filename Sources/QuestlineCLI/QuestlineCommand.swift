import ArgumentParser
import Foundation
import Hummingbird
import Logging
import QuestlineServer
import QuestlineStore

/// `questline`: run the server and look after its data.
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct QuestlineCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "questline",
        abstract: "Questline: an engagement engine for reading and learning apps.",
        subcommands: [Serve.self, Migrate.self, DemoDataCommand.self, GameQuestionsCommand.self, GameImportCommand.self,
                      WidgetPreviewCommand.self, ReadingFunnelCommand.self, SavedImportCommand.self,
                      ContentImportCommand.self],
        defaultSubcommand: Serve.self)

    public init() {}
}

/// Where the data is: `--database` (a SQLite file) or `DATABASE_URL` (PostgreSQL).
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "SQLite database file. Ignored when DATABASE_URL is set (postgres://user:pass@host:port/db selects PostgreSQL).",
        valueName: "path"))
    var database: String = "questline.sqlite"

    var location: StoreLocation { StoreLocation.fromEnvironment(defaultSQLitePath: database) }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server: the JSON API under /api/v1, the web app, /health, /metrics and /openapi.yaml.",
        discussion: """
            Applies pending migrations at start. On the first start (no demo accounts yet), creates \
            demo accounts and prints their passwords once; pass --no-demo-data to skip that.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "Address to listen on (0.0.0.0 for every interface).") var hostname = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @Flag(help: "Do not create demo accounts on first start, nor the demo reading campaign around today.") var noDemoData = false
    @Flag(help: "Mark the session cookie Secure (set this when served over HTTPS).") var secureCookies = false
    @Flag(help: "Turn off the request limits and the login backoff (for load tests only).") var noRateLimits = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: ArgumentHelp(
        "Where the game's \"On this day\" feeds come from, with {wiki}, {month} and {day}; \"none\" serves only imported and cached feeds.",
        valueName: "url-template"))
    var feedURL = WikimediaFeedClient.defaultTemplate
    @Option(name: .customLong("admin-email"), help: ArgumentHelp(
        "An administrator's e-mail (repeatable): may change campaigns and read the funnel. With demo data, the demo guardian is one.",
        valueName: "email"))
    var adminEmails: [String] = []

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        var logger = Logger(label: "questline")
        logger.logLevel = level
        let fetcher: (any FeedFetching)? = feedURL == "none" ? nil : WikimediaFeedClient(template: feedURL)
        let admins = Set(adminEmails + (noDemoData ? [] : [DemoData.guardianEmail]))
        let configuration = AppConfiguration(hostname: hostname, port: port, store: store.location,
                                             secureCookies: secureCookies, logLevel: level, feedFetcher: fetcher,
                                             adminEmails: admins, demoCampaign: !noDemoData, bufferAnalytics: true,
                                             rateLimits: noRateLimits ? .off : .standard)
        let opened = try await Store.open(configuration.store, checkpoints: .background, logger: logger)
        do {
            if !noDemoData {
                let created = try await DemoData.ensure(store: opened, configuration: configuration)
                printDemoAccounts(created)
            }
            // The track stories content: the bundled set until another is imported (`content-import`).
            try await StoryService(store: opened, configuration: configuration).installBundledContentIfEmpty()
            let app = try await buildApplication(configuration: configuration, store: opened, logger: logger)
            say("Questline is running at http://\(hostname == "0.0.0.0" ? "localhost" : hostname):\(port)/ on \(configuration.store)")
            try await app.runService()
        } catch {
            await opened.shutdown()
            throw error
        }
        await opened.shutdown()
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
            say(applied.isEmpty ? "Nothing to migrate on \(store.location)." :
                  "Applied on \(store.location): " + applied.map { "\($0.version) \($0.name)" }.joined(separator: ", "))
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
        abstract: "Create the demo accounts (a guardian, a household and a child) if they are missing, and print their passwords.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let opened = try await Store.open(store.location)
        do {
            let created = try await DemoData.ensure(store: opened, configuration: AppConfiguration(store: store.location))
            if created.isEmpty {
                say("Demo accounts already exist (\(DemoData.guardianEmail), \(DemoData.childUsername)); their passwords were printed when they were created.")
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

func printDemoAccounts(_ accounts: [DemoData.Account]) {
    guard !accounts.isEmpty else { return }
    say("Demo accounts created (passwords are shown only now):")
    for account in accounts {
        say("  \(account.role.padding(toLength: 9, withPad: " ", startingAt: 0)) login: \(account.login)  password: \(account.password)")
    }
}

/// Prints a line for the operator and flushes it at once (stdout is block-buffered when it
/// is a file or a pipe, and a server runs until it is stopped).
func say(_ line: String) {
    print(line)
    fflush(nil)
}
