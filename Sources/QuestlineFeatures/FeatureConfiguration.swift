public import Foundation
public import QuestlineCore

/// What the use cases need to know, whoever calls them (the server, the CLI, the tests): the
/// clock, how ids and secrets are made, lifetimes, the feed source, limits.
/// Where and how to listen is the server's own configuration.
public struct FeatureConfiguration: Sendable {
    public var clock: any WallClock
    /// Makes new row ids; time-ordered on `clock` unless given.
    public var ids: any IDGenerator
    /// bcrypt cost; 12 in production, lower only in tests.
    public var bcryptCost: UInt8
    public var sessionLifetime: TimeInterval
    public var invitationLifetime: TimeInterval
    /// Where "On this day" feeds come from; nil serves only cached and imported feeds.
    public var feedFetcher: (any FeedFetching)?
    /// Where search, random articles and summaries come from; nil serves the offline pack.
    public var wikiFetcher: (any WikiFetching)?
    /// Install a demo reading campaign around today, so a newcomer sees live widget states.
    public var demoCampaign: Bool
    /// Write analytics events in batches every second rather than one by one (the server
    /// does; tests and tools write through so they can read events back at once).
    public var bufferAnalytics: Bool
    /// Request limits and the login backoff (`RateLimits.off` for load tests).
    public var rateLimits: RateLimits
    /// How long a looked-up session is reused without asking the database (0: never).
    public var sessionCacheSeconds: TimeInterval
    /// The first webhook retry's delay; each further one doubles it (at most an hour apart).
    public var webhookRetrySeconds: TimeInterval
    /// The member's local hour from which "streak at risk" is sent.
    public var streakReminderHour: Int
    /// Where webhooks may go: `https` on the public internet, unless private destinations are
    /// allowed (`--webhook-allow-private`, for development and the test suite).
    public var webhookDestination: WebhookDestination
    /// The server's secret key(s): seals secrets at rest (webhook signing secrets) and keys the
    /// idempotency table's hashes (`SecretBox`). The server always sets it from its
    /// configuration; the default, a key held in memory, suits tests and tools that seal nothing.
    public var secrets: SecretBox
    /// How many members' widgets an instance keeps between the writes that change them
    /// (`KeptAnswers`; 0: none, every widget is computed). About 4.5 KB each (docs/decisions.md).
    public var keptWidgets: Int
    /// How many children's quest boards (and as many households' consoles) an instance keeps
    /// between the writes that change them (`KeptFamilyAnswers`; 0: none). About 5 KB each
    /// (docs/decisions.md).
    public var keptBoards: Int

    public init(
        clock: any WallClock = SystemClock(),
        ids: (any IDGenerator)? = nil,
        bcryptCost: UInt8 = 12,
        sessionLifetime: TimeInterval = 30 * 24 * 3600,
        invitationLifetime: TimeInterval = 7 * 24 * 3600,
        feedFetcher: (any FeedFetching)? = nil,
        wikiFetcher: (any WikiFetching)? = nil,
        demoCampaign: Bool = false,
        bufferAnalytics: Bool = false,
        rateLimits: RateLimits = .standard,
        sessionCacheSeconds: TimeInterval = 5,
        webhookRetrySeconds: TimeInterval = 10,
        streakReminderHour: Int = 19,
        webhookDestination: WebhookDestination = WebhookDestination(allowPrivate: false),
        secrets: SecretBox = .ephemeral(),
        keptWidgets: Int = 20_000,
        keptBoards: Int = 20_000
    ) {
        self.clock = clock
        self.ids = ids ?? TimeOrderedIDGenerator(clock: clock)
        self.bcryptCost = bcryptCost
        self.sessionLifetime = sessionLifetime
        self.invitationLifetime = invitationLifetime
        self.feedFetcher = feedFetcher
        self.wikiFetcher = wikiFetcher
        self.demoCampaign = demoCampaign
        self.bufferAnalytics = bufferAnalytics
        self.rateLimits = rateLimits
        self.sessionCacheSeconds = sessionCacheSeconds
        self.webhookRetrySeconds = webhookRetrySeconds
        self.streakReminderHour = streakReminderHour
        self.webhookDestination = webhookDestination
        self.secrets = secrets
        self.keptWidgets = keptWidgets
        self.keptBoards = keptBoards
    }
}
