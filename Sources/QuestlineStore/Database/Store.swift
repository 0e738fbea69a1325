public import Foundation
public import Logging
import SQLKit

/// The data owner: one database, its migrations and the repositories on it. A class: every
/// feature holds the store, and a handler's features are copied per request, so a copy costs
/// one reference instead of one for each repository's database, outbox and live log.
public final class Store: Sendable {
    public let database: Database
    public let accounts: AccountStore
    public let idempotency: IdempotencyStore
    public let game: GameStore
    public let reading: ReadingStore
    public let activity: ActivityStore
    public let quests: QuestStore
    public let stories: StoryStore
    public let cheers: CheerStore
    /// Household events for live updates, written with the changes they report.
    public let live: LiveEventLog
    /// Request limits and login locks shared by every instance.
    public let limits: LimitStore
    /// Events for the app team's systems (webhooks), written with the changes they report.
    public let outbox: Outbox
    /// Notification preferences and the reminders sent.
    public let notifications: NotificationStore
    /// Wikipedia summaries: a cache of what Wikipedia answered, and the imported offline pack.
    public let wiki: WikiStore
    /// Weekly leagues: players, closed weeks and their results, friend groups.
    public let leagues: LeagueStore
    /// Liveness checks asked at the same time share one `SELECT 1` (see `Coalescer`): each
    /// still waits for a round trip that started after it asked.
    private let pings: Coalescer<Bool, Bool>

    public init(database: Database) {
        self.database = database
        pings = Coalescer(maxItems: 4096) { items, _ in
            try await database.withConnection { db in try await db.raw("SELECT 1 AS ok").run() }
            return items
        }
        outbox = Outbox(database)
        accounts = AccountStore(database)
        idempotency = IdempotencyStore(database)
        game = GameStore(database)
        reading = ReadingStore(database, outbox: outbox)
        activity = ActivityStore(database)
        live = LiveEventLog(database, outbox: outbox)
        limits = LimitStore(database)
        notifications = NotificationStore(database, outbox: outbox)
        wiki = WikiStore(database)
        leagues = LeagueStore(database, outbox: outbox)
        quests = QuestStore(database, live: live)
        stories = StoryStore(database, live: live)
        cheers = CheerStore(database, live: live)
    }

    /// Opens the database and applies any missing migrations.
    public static func open(
        _ location: StoreLocation, checkpoints: WALCheckpoints = .automatic, poolSize: Int? = nil,
        logger: Logger = Logger(label: "questline.store")
    ) async throws -> Store {
        let database = try Database(location, checkpoints: checkpoints, poolSize: poolSize, logger: logger)
        do {
            let applied = try await Migrator().migrate(database)
            if !applied.isEmpty {
                logger.info("Applied migrations", metadata: ["versions": "\(applied.map(\.version))"])
            }
        } catch {
            await database.shutdown()
            throw error
        }
        return Store(database: database)
    }

    public func shutdown() async { await database.shutdown() }

    /// What one housekeeping pass removed.
    public struct Purged: Sendable, Equatable {
        public var idempotencyKeys = 0
        public var sessions = 0
        public var liveEvents = 0
        public var outboxEvents = 0
    }

    /// Removes what has outlived its use: idempotency keys past their lifetime, sessions ended
    /// (expired or revoked) more than a day ago, live events past their retention, full rate
    /// buckets and stale login failures. Safe on any number of instances at once (each step is
    /// one delete of rows that no request needs any more).
    public func purgeExpired(now: Date) async throws -> Purged {
        var purged = Purged()
        let day: TimeInterval = 24 * 3600
        purged.idempotencyKeys = try await idempotency.purge(
            olderThan: now.addingTimeInterval(-IdempotencyStore.lifetime))
        purged.sessions = try await accounts.purgeSessions(endedBefore: now.addingTimeInterval(-day))
        purged.liveEvents = try await live.purge(olderThan: now.addingTimeInterval(-LiveEventLog.retention))
        purged.outboxEvents = try await outbox.purge(olderThan: now.addingTimeInterval(-7 * day))
        try await limits.purge(bucketsIdleFor: 60, failuresBefore: now.addingTimeInterval(-day), now: now)
        return purged
    }

    /// Asks the database one trivial question: the liveness check of `/health`. Concurrent
    /// checks share the question, so a busy load balancer adds one statement per round trip,
    /// not one per probe.
    public func ping() async throws {
        _ = try await pings.submit(true)
    }
}
