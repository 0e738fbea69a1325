import Foundation
import Logging
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Everything the server needs to start: where to listen, where the data is, and the use
/// cases' configuration (`features`). One value serves `main` and the tests.
public struct AppConfiguration: Sendable {
    public var hostname: String
    public var port: Int
    public var store: StoreLocation
    /// Largest request body the API accepts.
    public var maxBodyBytes: Int
    /// Mark the session cookie `Secure` (set when served over HTTPS).
    public var secureCookies: Bool
    public var logLevel: Logger.Level
    /// What the use cases need: the clock, ids, lifetimes, the feed, administrators, limits.
    public var features: FeatureConfiguration
    /// What `/ready` reports; `DrainService` marks it draining on shutdown.
    public var readiness = Readiness()
    /// Who the client of a request is (the peer, or what a trusted proxy says).
    public var clientAddresses = ClientAddressRule(trusted: [])
    /// Trace every request (Hummingbird's tracing middleware); set when an exporter is
    /// bootstrapped (`questline serve --otlp-endpoint`).
    public var tracing = false
    /// Leaflet for the stories map, from Debian's `libjs-leaflet` (served under
    /// `/static/vendor/leaflet`). Without it the map is the server-drawn picture.
    public var leafletDirectory = "/usr/share/javascript/leaflet"
    /// Check for due reading reminders every five minutes (`ReminderService`).
    public var reminders = true
    /// Send webhook deliveries from this instance (`WebhookSender`; every instance may).
    public var deliverWebhooks = true
    /// Purge expired keys, sessions and events in the background (`HousekeepingService`).
    public var housekeeping = true

    /// Where to listen, and the use cases' configuration as a whole.
    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, store: StoreLocation, maxBodyBytes: Int = 1 << 20,
        secureCookies: Bool = false, logLevel: Logger.Level = .info, features: FeatureConfiguration
    ) {
        self.hostname = hostname
        self.port = port
        self.store = store
        self.maxBodyBytes = maxBodyBytes
        self.secureCookies = secureCookies
        self.logLevel = logLevel
        self.features = features
    }

    /// The same, with the use cases' settings given one by one (the tests' shorthand); a server
    /// fetches feeds from Wikimedia unless told otherwise.
    public init(
        hostname: String = "127.0.0.1",
        port: Int = 8080,
        store: StoreLocation = .sqlite(path: "questline.sqlite"),
        clock: any WallClock = SystemClock(),
        ids: (any IDGenerator)? = nil,
        bcryptCost: UInt8 = 12,
        sessionLifetime: TimeInterval = 30 * 24 * 3600,
        invitationLifetime: TimeInterval = 7 * 24 * 3600,
        maxBodyBytes: Int = 1 << 20,
        secureCookies: Bool = false,
        logLevel: Logger.Level = .info,
        feedFetcher: (any FeedFetching)? = WikimediaFeedClient(),
        wikiFetcher: (any WikiFetching)? = nil,
        demoCampaign: Bool = false,
        bufferAnalytics: Bool = false,
        rateLimits: RateLimits = .standard,
        sessionCacheSeconds: TimeInterval = 5
    ) {
        self.init(
            hostname: hostname, port: port, store: store, maxBodyBytes: maxBodyBytes, secureCookies: secureCookies,
            logLevel: logLevel,
            features: FeatureConfiguration(
                clock: clock, ids: ids, bcryptCost: bcryptCost, sessionLifetime: sessionLifetime,
                invitationLifetime: invitationLifetime, feedFetcher: feedFetcher, wikiFetcher: wikiFetcher,
                demoCampaign: demoCampaign, bufferAnalytics: bufferAnalytics, rateLimits: rateLimits,
                sessionCacheSeconds: sessionCacheSeconds))
    }
}
