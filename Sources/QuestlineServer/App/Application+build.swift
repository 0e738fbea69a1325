import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import OpenAPIHummingbird
import OpenAPIRuntime
import Prometheus
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore
import ServiceLifecycle

public typealias QuestlineApplication = Application<RequestTaskResponder<RouterResponder<AppRequestContext>>>

/// The composition root, shared by `questline serve`, the tests and the benchmarks.
///
/// Pass a `store` to share one with the caller (tests, CLI), who then closes it; otherwise the
/// store named by `configuration.store` is opened, migrated, and closed when the server stops.
public func buildApplication(
    configuration: AppConfiguration, store providedStore: Store? = nil,
    logger providedLogger: Logger? = nil
) async throws -> QuestlineApplication {
    var logger = providedLogger ?? Logger(label: "questline")
    logger.logLevel = configuration.logLevel
    let store: Store
    if let providedStore {
        store = providedStore
    } else {
        store = try await Store.open(configuration.store, checkpoints: .background, logger: logger)
    }
    let (router, services) = try await buildRouterAndServices(
        configuration: configuration, store: store, logger: logger)
    // A household's event stream (`GET /api/v1/households/{id}/events`) holds its connection
    // for as long as the device listens: it runs in a task of its own (`RequestTaskResponder`).
    let streams = RequestTaskResponderBuilder(builder: router) { request in
        request.uri.path.hasPrefix("/api/v1/households/") && request.uri.path.hasSuffix("/events")
    }
    var app = Application(
        router: streams,
        server: .http1(configuration: .init(additionalChannelHandlers: [ProtocolErrorProblemHandler()])),
        configuration: .init(
            address: .hostname(configuration.hostname, port: configuration.port), serverName: "Questline"),
        logger: logger)
    // Services stop in the reverse order of adding: the store is added first so that it closes
    // last, after the analytics flusher's final flush.
    if providedStore == nil { app.addServices(StoreService(store: store)) }
    app.addServices(services)
    return app
}

/// The router with every route and middleware (API from openapi.yaml, web pages, static files,
/// health and metrics) and the background services its routes need (the analytics flusher,
/// and the WAL checkpointer when the store was opened with `.background` checkpoints).
func buildRouterAndServices(configuration: AppConfiguration, store: Store, logger: Logger) async throws -> (
    Router<AppRequestContext>, [any Service]
) {
    let features = configuration.features
    let family = FamilyFeatures(store: store, configuration: features)
    // Who follows what another feature did (`FeatureEvent`), listed once.
    let accounts = AccountsFeature(store: store, configuration: features, events: FeatureEvents([family]))
    let games = GameFeature(store: store, configuration: features)
    let wiki = WikiContent(store: store, configuration: features)
    let reading = ReadingFeature(store: store, configuration: features, wiki: wiki)
    let activity = ActivityFeature(store: store, configuration: features, wiki: wiki)
    let stories = StoriesFeature(store: store, configuration: features)
    let cheers = CheersFeature(store: store, configuration: features)
    try await reading.installCampaigns(demo: features.demoCampaign)
    // Flash messages are signed with a key every instance shares.
    let flash = Flash(
        key: SymmetricKey(data: Data(try await accounts.sharedSecret("flash-messages").utf8)),
        secure: configuration.secureCookies)
    // Web forms' CSRF tokens are keyed with a secret every instance shares.
    let formTokens = FormTokenMiddleware(
        key: SymmetricKey(data: Data(try await accounts.sharedSecret("form-tokens").utf8)),
        secure: configuration.secureCookies)
    let pages = try await PageRenderer.load()
    let assets = try StaticAssets.load(directory: ServerResources.path("public"))
    _ = Observability.registry

    let router = Router(context: AppRequestContext.self)
    // A span per request, named by its route, when tracing is on (the store adds a span per
    // transaction and AsyncHTTPClient one per outgoing call, inside it).
    if configuration.tracing { router.addMiddleware { TracingMiddleware() } }
    router.addMiddleware {
        // Request id, metrics, security headers and the request's log line in one level.
        EnvelopeMiddleware()
        ErrorMiddleware(pages: pages, accounts: accounts)
        // Before anything that decides by route (`RoutePolicy`): one spelling per address; the
        // text rule on the address; a form's origin.
        AddressChecksMiddleware()
        FlashMiddleware(flash: flash)
        StaticFilesMiddleware(
            bundled: FileMiddleware(
                ServerResources.path("public"), urlBasePath: "/static",
                cacheControl: .init([(MediaType(type: .any), [.maxAge(3600)])]),
                logger: logger),
            leaflet: FileMiddleware(
                configuration.leafletDirectory, urlBasePath: "/static/vendor/leaflet",
                cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])]),
                logger: logger),
            compressed: assets)
        AuthMiddleware(accounts: accounts)
        formTokens
        RateLimitMiddleware(
            limiter: RateLimiter(
                clock: features.clock, shared: store.database.flavor == .postgres ? store.limits : nil),
            limits: features.rateLimits, clients: configuration.clientAddresses)
    }

    let liveness = LivenessCheck(store: store)
    router.get("/health") { _, _ in
        try await liveness.check()
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok","database":"ok"}"#)))
    }
    // Readiness, for load balancers: 503 while draining, with migrations pending, or without
    // a database; /health above stays a liveness check.
    let readiness = configuration.readiness
    router.get("/ready") { _, _ in
        let problem = await readiness.problem(store)
        let body = problem.map { #"{"status":"not ready","reason":"\#($0)"}"# } ?? #"{"status":"ready"}"#
        return Response(
            status: problem == nil ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
    router.get("/metrics") { _, _ in
        // Levels read when scraped: what waits to be written, and who listens.
        Gauge(label: "questline_analytics_backlog").record(reading.analyticsBacklog)
        Gauge(label: "questline_live_subscribers").record(family.live.subscriberCount)
        Gauge(label: "questline_outbox_lag_seconds").record(
            (try? await store.outbox.lag(now: features.clock.now())) ?? 0)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: Observability.registry.emitToBuffer())))
    }
    let contract = try QuestlineContract.yaml()
    router.get("/openapi.yaml") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: contract)))
    }

    let notifications = NotificationsFeature(store: store, configuration: features)
    let leagues = LeaguesFeature(store: store, configuration: features)
    let api = router.group("api/v1")
        .add(middleware: BodyLimitMiddleware(maxBytes: configuration.maxBodyBytes))
        .add(middleware: TextRuleMiddleware())
        .add(
            middleware: IdempotencyMiddleware(
                store: store.idempotency, clock: features.clock, secrets: features.secrets,
                requestHashers: features.secrets.keyedHashes(purpose: "idempotency-request")))
    try APIImplementation(
        accounts: accounts, games: games, reading: reading, activity: activity, family: family, stories: stories,
        cheers: cheers,
        webhooks: WebhooksFeature(store: store, configuration: features),
        notifications: notifications, leagues: leagues
    ).registerHandlers(on: api, serverURL: URL(string: "/")!, configuration: .questline)

    let readingRoutes = ReadingPages(reading: reading, activity: activity, pages: pages)
    readingRoutes.register(on: router)
    ActivityPages(activity: activity, reading: reading, pages: pages).register(on: router)
    AccountsPages(
        accounts: accounts, notifications: notifications, family: family, reading: readingRoutes, pages: pages,
        flash: flash,
        secureCookies: configuration.secureCookies, sessionLifetime: features.sessionLifetime
    ).register(on: router)
    QuestsPages(family: family, accounts: accounts, pages: pages, flash: flash).register(on: router)
    // The stories map draws with Leaflet when the system has it (Debian's libjs-leaflet).
    let leaflet = FileManager.default.fileExists(atPath: configuration.leafletDirectory + "/leaflet.js")
    if !leaflet {
        logger.notice(
            "Leaflet not found: the stories map is the server-drawn picture",
            metadata: ["directory": "\(configuration.leafletDirectory)", "package": "libjs-leaflet"])
    }
    // The features that plug in as modules.
    let modules: [any FeatureModule] = [
        GamePages(games: games, accounts: accounts, pages: pages),
        LeaguePages(leagues: leagues, pages: pages, flash: flash),
        StoryAssetPages(stories: StoryContentFeature(store: store, configuration: features)),
        StoriesPages(stories: stories, pages: pages, flash: flash, leaflet: leaflet),
        CheersModule(cheers: cheers, pages: pages, flash: flash),
    ]
    var services: [any Service] = []
    for module in modules {
        module.register(on: router)
        services += module.services
    }
    // Live streams end when draining starts, so that the HTTP server's shutdown does not wait
    // for them; on PostgreSQL one connection listens for the events of every instance.
    let live = family.live
    configuration.readiness.whenDraining { live.close() }
    if store.live.relaysThroughDatabase { services.append(LiveListenerService(hub: live, logger: logger)) }
    services.append(LiveKeepAliveService(hub: live))
    if features.bufferAnalytics { services.append(reading.analyticsFlusher) }
    if configuration.deliverWebhooks { services.append(WebhookSender(store: store, configuration: features)) }
    if configuration.housekeeping { services.append(HousekeepingService(store: store, clock: features.clock)) }
    if configuration.reminders {
        services.append(ReminderService(notifications: notifications, leagues: leagues))
    }
    if store.database.flavor == .sqlite, store.database.checkpoints == .background {
        services.append(CheckpointService(database: store.database))
    }
    return (router, services)
}

/// Purges what has outlived its use every 10 minutes (`Store.purgeExpired`), on every
/// instance: the deletes are safe to run side by side.
struct HousekeepingService: Service {
    let store: Store
    let clock: any WallClock
    static let interval = Duration.seconds(600)
    private let logger = Logger(label: "questline.housekeeping")

    func run() async throws {
        while Task.serviceGoesOn {
            do {
                let purged = try await store.purgeExpired(now: clock.now())
                logger.debug(
                    "Housekeeping",
                    metadata: [
                        "idempotency_keys": "\(purged.idempotencyKeys)", "sessions": "\(purged.sessions)",
                        "live_events": "\(purged.liveEvents)",
                    ])
            } catch {
                logger.warning("Housekeeping failed; the next pass tries again", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
        }
    }
}

/// Feeds the live hub from PostgreSQL's notifications until the server shuts down.
struct LiveListenerService: Service {
    let hub: LiveHub
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await hub.run(logger: logger) }
        hub.close()
    }
}

/// Sends every live stream of this instance a keep-alive every 15 seconds (`LiveStream`).
struct LiveKeepAliveService: Service {
    let hub: LiveHub

    func run() async throws {
        while Task.serviceGoesOn {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: LiveStream.keepAlive) }
            if Task.serviceGoesOn { hub.keepAlive() }
        }
    }
}

/// Closes the store when the server shuts down gracefully.
struct StoreService: Service {
    let store: Store

    func run() async throws {
        try? await gracefulShutdown()
        await store.shutdown()
    }
}

/// Checkpoints SQLite's write-ahead log every second on a connection of its own, so that no
/// commit copies the log (see `WALCheckpoints.background`): a checkpoint inside a commit holds
/// every writer queued behind it (docs/performance.md).
struct CheckpointService: Service {
    let database: Database
    private let logger = Logger(label: "questline.checkpoint")

    func run() async throws {
        while Task.serviceGoesOn {
            try? await Task.sleep(for: .seconds(1))
            do { try await database.checkpoint() } catch {
                logger.warning(
                    "Checkpoint failed; SQLite's own checkpoints in commits take over", metadata: ["error": "\(error)"])
            }
        }
    }
}
