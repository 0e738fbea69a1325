import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import QuestlineCLI
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import ServiceLifecycle
import UnixSignals

@main
struct Entry {
    static func main() async {
        // Swift Concurrency's jobs run on the event loops that serve HTTP (and that the database
        // pools use) instead of hopping to a separate thread pool and back at every await: 10–15%
        // less CPU per request (docs/performance.md). Safe because no code of ours, nor any
        // dependency we call, blocks a thread with `EventLoopFuture.wait()`.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await QuestlineCommand.main(nil)
    }
}

/// `questline`: run the server (the default) and look after its data.
struct QuestlineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questline",
        abstract: QuestlineTools.configuration.abstract,
        subcommands: [Serve.self] + QuestlineTools.configuration.subcommands,
        defaultSubcommand: Serve.self)
}

/// `questline serve`: the one command that links the HTTP server, so it lives here, in the
/// executable; its options (`ServeOptions`) are parsed and tested with the other commands.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server: the JSON API under /api/v1, the web app, /health, /metrics and /openapi.yaml.",
        discussion: """
            Applies pending migrations at start. On the first start (no demo accounts yet), creates \
            demo accounts and prints their passwords once; pass --no-demo-data to skip that.
            """)

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let level = try options.level()
        let json = try options.jsonLogs()
        if json { LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) } }
        var logger = Logger(label: "questline")
        logger.logLevel = level
        var configuration = AppConfiguration(
            hostname: options.hostname, port: options.port, store: options.store.location,
            secureCookies: options.secureCookies, logLevel: level, features: options.features)
        configuration.clientAddresses = ClientAddressRule(trusted: try options.proxies())
        configuration.faultAfterCommit = ProcessInfo.processInfo.environment["QUESTLINE_FAULT_AFTER_COMMIT"] == "1"
        let opened = try await Store.open(
            configuration.store, checkpoints: .background, poolSize: try options.poolSize(), logger: logger)
        do {
            try await options.prepare(opened)
            let app = try await buildApplication(configuration: configuration, store: opened, logger: logger)
            let host = options.hostname == "0.0.0.0" ? "localhost" : options.hostname
            let address = "http://\(host):\(options.port)/"
            if json {
                logger.info("Questline is running", metadata: ["url": .string(address)])
            } else {
                say("Questline is running at \(address) on \(configuration.store)")
            }
            // The drain service comes last, so a SIGTERM reaches it first: /ready turns 503 for
            // --drain-seconds, then the HTTP server stops taking connections and finishes.
            guard options.drainSeconds >= 0 else { throw ValidationError("--drain-seconds must be 0 or more.") }
            let drain = DrainService(readiness: configuration.readiness, delay: .seconds(options.drainSeconds))
            try await ServiceGroup(
                services: [app, drain], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
            )
            .run()
        } catch {
            await opened.shutdown()
            throw error
        }
        await opened.shutdown()
    }
}
