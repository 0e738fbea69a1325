import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PostgresNIO
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// `questline doctor`: what would stop `serve`, or slow it, said in plain words before it
/// starts: the configuration (the same flags, variables and file as `serve`), the database and
/// its schema, the outbound URLs, and the disk. Exit status 1 when something is wrong.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the configuration, the database and its schema, the outbound URLs and the disk space.",
        discussion:
            "Takes the same options as serve (flags, QUESTLINE_ variables, --config). Exit status 1 when a check fails."
    )

    @OptionGroup var options: ServeOptions

    enum Verdict: String {
        case ok = "ok     "
        case warning = "warning"
        case problem = "problem"
    }

    func run() async throws {
        var problems = 0
        func report(_ verdict: Verdict, _ what: String, _ detail: String) {
            if verdict == .problem { problems += 1 }
            say("\(verdict.rawValue)  \(what): \(detail)")
        }

        // Configuration: everything serve would read, checked the same way.
        let settings: ServeSettings
        do {
            settings = try await ServeSettings.resolve(options)
            report(.ok, "configuration", "every option has a valid value")
        } catch let invalid as ServeSettings.Invalid {
            report(.problem, "configuration", invalid.description)
            throw ExitCode(1)
        }

        // The database: reachable, and its schema at the version this binary needs.
        let location = settings.location()
        do {
            let database = try Database(location, poolSize: settings.dbPoolSize, logger: Self.quiet)
            defer { Task { await database.shutdown() } }
            let applied = try await Migrator().appliedVersions(database)
            let needed = Migrations.all.map(\.version)
            let missing = needed.filter { !applied.contains($0) }
            let unknown = applied.filter { !needed.contains($0) }
            if !unknown.isEmpty {
                report(
                    .problem, "schema",
                    "the database has migrations this binary does not know (\(unknown.map(String.init).joined(separator: ", "))): it was migrated by a newer Questline; run that version"
                )
            } else if missing.isEmpty {
                report(.ok, "database", "\(location) answers; schema at version \(needed.max() ?? 0)")
                // Administrators are a stored role: none means no one can manage campaigns or webhooks.
                let admins = try await AccountStore(database).administrators()
                if admins.isEmpty {
                    report(
                        .warning, "administrators",
                        "none: no one can change campaigns, read the funnel or manage webhooks; grant the role with questline admin grant EMAIL"
                    )
                } else {
                    report(
                        .ok, "administrators",
                        admins.map { $0.member.email ?? $0.member.username ?? $0.member.id.rawValue }.joined(
                            separator: ", "))
                }
            } else if applied.isEmpty {
                report(
                    .warning, "database",
                    "\(location) answers but has no schema yet; serve (or questline migrate) creates it")
            } else {
                report(
                    .warning, "schema",
                    "\(missing.count) migration(s) pending (\(missing.map(String.init).joined(separator: ", "))); serve applies them at start, or run questline migrate"
                )
            }
        } catch let error as StoreError {
            report(.problem, "database", error.description)
        } catch {
            report(.problem, "database", "\(location) cannot be reached: \(Self.plain(error))")
        }

        // Outbound: the game's feed, and the trace collector.
        if settings.feedURL == "none" {
            report(.ok, "feed", "off (--feed-url none): the game uses imported and cached feeds")
        } else {
            let client = WikimediaFeedClient(template: settings.feedURL, timeout: .seconds(5), logger: Self.quiet)
            do {
                _ = try await client.fetch(language: .english, month: 1, day: 1)
                report(.ok, "feed", "the \"On this day\" feed answers (\(settings.feedURL))")
            } catch {
                report(
                    .warning, "feed",
                    "the \"On this day\" feed does not answer (\(Self.plain(error))); the game falls back to imported and cached feeds"
                )
            }
        }
        if let endpoint = settings.otlpEndpoint {
            let request = HTTPClientRequest(url: endpoint.absoluteString)
            do {
                _ = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                report(.ok, "tracing", "the collector at \(endpoint.absoluteString) answers")
            } catch {
                report(
                    .problem, "tracing",
                    "the collector at \(endpoint.absoluteString) cannot be reached: \(Self.plain(error))")
            }
        } else {
            report(.ok, "tracing", "off (no --otlp-endpoint)")
        }

        // Disk: where the SQLite file lives (or the working directory).
        let folder: String
        if case .sqlite(let path) = location {
            folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        } else {
            folder = FileManager.default.currentDirectoryPath
        }
        if let free = (try? FileManager.default.attributesOfFileSystem(forPath: folder))?[.systemFreeSize] as? NSNumber
        {
            let megabytes = free.int64Value >> 20
            let text = "\(megabytes) MB free in \(folder)"
            report(megabytes < 100 ? .problem : megabytes < 1_024 ? .warning : .ok, "disk", text)
        } else {
            report(.warning, "disk", "cannot tell the free space of \(folder)")
        }

        if problems > 0 {
            say("\(problems) problem(s) found.")
            throw ExitCode(1)
        }
        say("No problems found.")
    }

    /// An error in a few words: a domain error's message, PostgreSQL's connection failure (its
    /// plain description hides everything), else the first line of its description.
    static func plain(_ error: any Error) -> String {
        var text = "\(error)"
        if case .unavailable(let message) = error as? DomainError { text = Localizer.english(message) }
        if error is PSQLError { text = String(reflecting: error) }
        return String(text.split(separator: "\n").first ?? "unknown error").prefix(300).description
    }

    /// The libraries' own logs stay quiet: the report says what went wrong.
    static var quiet: Logger {
        var logger = Logger(label: "questline.doctor")
        logger.logLevel = .critical
        return logger
    }
}
