import Foundation
import Logging
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// Everything the server needs to start: where to listen and the use cases' configuration
/// (`features`). One value serves `main` and the tests.
public struct AppConfiguration: Sendable {
    public var hostname: String
    public var port: Int
    public var store: StoreLocation
    public var clock: any WallClock
    /// Makes new row ids; time-ordered on `clock` unless given.
    public var ids: any IDGenerator
    /// bcrypt cost; 12 in production, lower only in tests.
    public var bcryptCost: UInt8
    public var sessionLifetime: TimeInterval
    public var invitationLifetime: TimeInterval
    /// Largest request body the API accepts.
    public var maxBodyBytes: Int
    /// Mark the session cookie `Secure` (set when served over HTTPS).
    public var secureCookies: Bool
    public var logLevel: Logger.Level
    /// Where "On this day" feeds come from; nil serves only cached and imported feeds.
    public var feedFetcher: (any FeedFetching)?
    /// E-mails (lowercased) of members who may use the admin operations (campaigns, funnel).
    public var adminEmails: Set<String>
    /// Install a demo reading campaign around today, so a newcomer sees live widget states.
    public var demoCampaign: Bool
    /// Write analytics events in batches every second rather than one by one (the server
    /// does; tests and tools write through so they can read events back at once).
    public var bufferAnalytics: Bool
    /// Request limits and the login backoff (`RateLimits.off` for load tests).
    public var rateLimits: RateLimits
    /// How long a looked-up session is reused without asking the database (0: never).
    public var sessionCacheSeconds: TimeInterval

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
        adminEmails: Set<String> = [],
        demoCampaign: Bool = false,
        bufferAnalytics: Bool = false,
        rateLimits: RateLimits = .standard,
        sessionCacheSeconds: TimeInterval = 5
    ) {
        self.hostname = hostname
        self.port = port
        self.store = store
        self.clock = clock
        self.ids = ids ?? TimeOrderedIDGenerator(clock: clock)
        self.bcryptCost = bcryptCost
        self.sessionLifetime = sessionLifetime
        self.invitationLifetime = invitationLifetime
        self.maxBodyBytes = maxBodyBytes
        self.secureCookies = secureCookies
        self.logLevel = logLevel
        self.feedFetcher = feedFetcher
        self.adminEmails = Set(adminEmails.map { $0.lowercased() })
        self.demoCampaign = demoCampaign
        self.bufferAnalytics = bufferAnalytics
        self.rateLimits = rateLimits
        self.sessionCacheSeconds = sessionCacheSeconds
    }

    /// Where to listen, and the use cases' configuration as a whole.
    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, store: StoreLocation, maxBodyBytes: Int = 1 << 20,
        secureCookies: Bool = false, logLevel: Logger.Level = .info, features: FeatureConfiguration
    ) {
        self.init(
            hostname: hostname, port: port, store: store, clock: features.clock, ids: features.ids,
            bcryptCost: features.bcryptCost,
            sessionLifetime: features.sessionLifetime, invitationLifetime: features.invitationLifetime,
            maxBodyBytes: maxBodyBytes,
            secureCookies: secureCookies, logLevel: logLevel, feedFetcher: features.feedFetcher,
            adminEmails: features.adminEmails,
            demoCampaign: features.demoCampaign, bufferAnalytics: features.bufferAnalytics,
            rateLimits: features.rateLimits,
            sessionCacheSeconds: features.sessionCacheSeconds)
    }

    /// The part the use cases see.
    public var features: FeatureConfiguration {
        FeatureConfiguration(
            clock: clock, ids: ids, bcryptCost: bcryptCost, sessionLifetime: sessionLifetime,
            invitationLifetime: invitationLifetime, feedFetcher: feedFetcher, adminEmails: adminEmails,
            demoCampaign: demoCampaign, bufferAnalytics: bufferAnalytics, rateLimits: rateLimits,
            sessionCacheSeconds: sessionCacheSeconds)
    }
}
