import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import OTel
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
        // pools use) instead of hopping to a separate thread pool and back at every await, which costs
        // CPU on every request (docs/performance.md). Safe because no code of ours, nor any
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
        let settings: ServeSettings
        do { settings = try await ServeSettings.resolve(options) } catch let invalid as ServeSettings.Invalid {
            throw ValidationError(invalid.description)
        }
        let level = settings.logLevel
        let json = settings.jsonLogs
        if json {
            LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) }
        } else {
            LoggingSystem.bootstrap { TextLogHandler(label: $0, level: level) }
        }
        var logger = Logger(label: "questline")
        logger.logLevel = level
        var configuration = AppConfiguration(
            hostname: settings.hostname, port: settings.port, store: settings.location(),
            secureCookies: settings.secureCookies, logLevel: level, features: settings.features)
        configuration.clientAddresses = ClientAddressRule(trusted: settings.trustedProxies)
        configuration.reminders = settings.reminders
        // Tracing: off unless an OTLP endpoint is given; then spans of every request, store
        // transaction and outgoing HTTP call go to it (swift-otel, OTLP over HTTP with JSON).
        var observability: (any Service)?
        if let endpoint = settings.otlpEndpoint {
            observability = try TraceExport.bootstrap(endpoint: endpoint, logger: logger)
            configuration.tracing = true
        }
        let opened = try await Store.open(
            configuration.store, checkpoints: .background, poolSize: settings.dbPoolSize, logger: logger)
        do {
            try await settings.prepare(opened)
            configuration.features = try await settings.features(for: opened)
            if settings.secrets == nil {
                logger.notice(
                    "Using the demo's secret key, kept in the database: give the server its own (--secret-key-file or QUESTLINE_SECRET_KEY) outside a demo"
                )
            }
            let app = try await buildApplication(configuration: configuration, store: opened, logger: logger)
            let host = settings.hostname == "0.0.0.0" ? "localhost" : settings.hostname
            let address = "http://\(host):\(settings.port)/"
            if json {
                logger.info("Questline is running", metadata: ["url": .string(address)])
            } else {
                say("Questline is running at \(address) on \(configuration.store)")
            }
            // The drain service comes last, so a SIGTERM reaches it first: /ready turns 503 for
            // --drain-seconds, then the HTTP server stops taking connections and finishes.
            let drain = DrainService(readiness: configuration.readiness, delay: .seconds(settings.drainSeconds))
            // The exporter comes first, so that it stops last and sends the final spans.
            try await ServiceGroup(
                services: (observability.map { [$0] } ?? []) + [app, drain],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
            .run()
        } catch {
            await opened.shutdown()
            throw error
        }
        await opened.shutdown()
    }
}

/// swift-otel, for traces only: metrics stay Prometheus (`/metrics`), logs stay swift-log.
enum TraceExport {
    static func bootstrap(endpoint: URL, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "questline"
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpJSON
        var base = endpoint.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        configuration.traces.otlpExporter.endpoint = base.hasSuffix("/v1/traces") ? base : base + "/v1/traces"
        configuration.diagnosticLogger = .custom(logger)
        return try OTel.bootstrap(configuration: configuration)
    }
}
