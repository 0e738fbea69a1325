public import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore
public import SQLKit

enum OutboxSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        // Bookkeeping: deleted with the member, not exported (what a webhook needed).
        PersonalData.Holding(table: "outbox_events", column: "member_id", withoutForeignKey: true)
    ]

    static let migrations: [Migration] = [
        Migration(version: 800, name: "outbox_webhooks") { flavor in
            let serial = flavor == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
            return [
                """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY,
                    url TEXT NOT NULL,
                    events TEXT NOT NULL,
                    description TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE outbox_events (
                    seq \(serial),
                    id TEXT NOT NULL UNIQUE,
                    type TEXT NOT NULL,
                    member_id TEXT,
                    body TEXT NOT NULL,
                    occurred_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX outbox_events_by_age ON outbox_events (occurred_at)",
                """
                CREATE TABLE webhook_deliveries (
                    id TEXT PRIMARY KEY,
                    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                    event_id TEXT NOT NULL REFERENCES outbox_events(id) ON DELETE CASCADE,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    last_status INTEGER,
                    last_error TEXT,
                    created_at BIGINT NOT NULL,
                    delivered_at BIGINT,
                    UNIQUE (endpoint_id, event_id)
                )
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at)",
                "CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at)",
            ]
        }
    ]
}

/// The body of every delivery.
private struct Envelope<Payload: Encodable>: Encodable {
    let id: String
    let type: String
    let occurredAt: String
    let data: Payload
}

/// What happened, as the app team's systems hear it.
public enum OutboxEventType: String, Sendable, Codable, CaseIterable {
    case questCompleted = "quest.completed"
    case badgeAwarded = "badge.awarded"
    case pointsChanged = "points.changed"
    case rewardUnlocked = "reward.unlocked"
    case readingChallengeCompleted = "reading.challenge_completed"
    case readingStreakAtRisk = "reading.streak_at_risk"
    case readingStreakLost = "reading.streak_lost"
    case storyRewardsCollected = "story.rewards_collected"
    case memberDeleted = "member.deleted"
    case recapReady = "recap.ready"
    case coopQuestCompleted = "coop.completed"
    case leagueClosed = "league.closed"
}

/// One event of the outbox, as delivered: `{"id", "type", "occurredAt", "data"}`.
public struct OutboxEvent: Sendable, Equatable {
    public let id: String
    public let type: OutboxEventType
    public let occurredAt: Date
    /// The whole JSON body sent to receivers.
    public let body: String
}

/// A registered receiver of events.
public struct WebhookEndpoint: Sendable, Equatable {
    public let id: String
    public let url: String
    public let events: [OutboxEventType]
    public let description: String
    public let createdAt: Date

    public init(id: String, url: String, events: [OutboxEventType], description: String, createdAt: Date) {
        self.id = id
        self.url = url
        self.events = events
        self.description = description
        self.createdAt = createdAt
    }
}

/// One event's delivery to one endpoint.
public struct WebhookDelivery: Sendable, Equatable {
    public let id: String
    public let endpointID: String
    public let eventID: String
    public let type: OutboxEventType
    public let state: String
    public let attempts: Int
    public let nextAttemptAt: Date
    public let lastStatus: Int?
    public let lastError: String?
    public let createdAt: Date
    public let deliveredAt: Date?
}

/// A delivery taken by one instance's delivery service (`Outbox.claimDue`).
public struct DueDelivery: Sendable, Equatable {
    public let id: String
    public let url: String
    public let secret: String
    public let body: String
    public let attempts: Int
    public let createdAt: Date
}

/// The transactional outbox: events written in the transaction of the change they report, and
/// one delivery row per subscribed endpoint, written with them. Delivery services on every
/// instance take due deliveries with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite's
/// single writer on SQLite), so each is sent by one instance at a time, at least once.
public final class Outbox: Sendable {
    let database: Database
    /// Which event types some endpoint wants, as of `loadedAt`: events of other types are not
    /// written at all (an outbox with no subscriber costs nothing). Re-read every 5 seconds, and
    /// at once after a change on this instance.
    private let subscribed = NIOLockedValueBox<(types: Set<String>, loadedAt: ContinuousClock.Instant?)>(([], nil))
    static let subscriptionsLifetime = Duration.seconds(5)

    init(_ database: Database) { self.database = database }

    private func subscribedTypes(on db: any SQLDatabase) async throws -> Set<String> {
        let now = ContinuousClock.now
        let cached = subscribed.withLockedValue { $0 }
        if let loaded = cached.loadedAt, now - loaded < Self.subscriptionsLifetime { return cached.types }
        let rows = try await db.raw("SELECT events FROM webhook_endpoints").all()
        var types: Set<String> = []
        for row in rows {
            for type in try row.decode(column: "events", as: String.self).split(separator: ",") {
                types.insert(String(type))
            }
        }
        subscribed.withLockedValue { $0 = (types, now) }
        return types
    }

    private func forgetSubscriptions() { subscribed.withLockedValue { $0 = ([], nil) } }

    /// Records an event in the transaction of `db`, with a delivery for each endpoint that wants
    /// it. `data` becomes the event's `data`.
    public func record(
        _ type: OutboxEventType, member: MemberID?, data: some Encodable & Sendable, id: String, now: Date,
        on db: any SQLDatabase
    ) async throws {
        guard try await subscribedTypes(on: db).contains(type.rawValue) else { return }
        let body = try Self.body(id: id, type: type, occurredAt: now, data: data)
        try await db.raw(
            """
            INSERT INTO outbox_events (id, type, member_id, body, occurred_at)
            VALUES (\(bind: id), \(bind: type.rawValue), \(bind: member?.rawValue), \(bind: body), \(bind: now.storedMillis))
            """
        ).run()
        // One delivery per endpoint that wants this type (`events` is a comma-separated list
        // with a comma at each end).
        try await db.raw(
            """
            INSERT INTO webhook_deliveries (id, endpoint_id, event_id, state, attempts, next_attempt_at, created_at)
            SELECT \(bind: id) || '.' || e.id, e.id, \(bind: id), 'pending', 0, \(bind: now.storedMillis), \(bind: now.storedMillis)
            FROM webhook_endpoints e WHERE e.events LIKE \(bind: "%," + type.rawValue + ",%")
            """
        ).run()
    }

    static func body(id: String, type: OutboxEventType, occurredAt: Date, data: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let stamp = occurredAt.formatted(.iso8601)
        return String(
            decoding: try encoder.encode(Envelope(id: id, type: type.rawValue, occurredAt: stamp, data: data)),
            as: UTF8.self)
    }

    // MARK: Endpoints

    /// Every endpoint's stored secret (sealed by the caller), by endpoint id.
    public func endpointSecrets() async throws -> [(id: String, secret: String)] {
        try await database.withConnection { db in
            try await db.raw("SELECT id, secret FROM webhook_endpoints ORDER BY id").all().map {
                (try $0.decode(column: "id", as: String.self), try $0.decode(column: "secret", as: String.self))
            }
        }
    }

    public func setEndpointSecret(_ id: String, secret: String, scope: WriteScope) async throws {
        try await database.transaction(scope) { db in
            try await db.raw("UPDATE webhook_endpoints SET secret = \(bind: secret) WHERE id = \(bind: id)").run()
        }
    }

    public func createEndpoint(_ endpoint: WebhookEndpoint, secret: String, scope: WriteScope) async throws {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO webhook_endpoints (id, url, events, description, secret, created_at)
                VALUES (\(bind: endpoint.id), \(bind: endpoint.url), \(bind: "," + endpoint.events.map(\.rawValue).joined(separator: ",") + ","),
                    \(bind: endpoint.description), \(bind: secret), \(bind: endpoint.createdAt.storedMillis))
                """
            ).run()
        }
        forgetSubscriptions()
    }

    public func endpoints() async throws -> [WebhookEndpoint] {
        try await database.withConnection { db in
            try await db.raw(
                "SELECT id, url, events, description, created_at FROM webhook_endpoints ORDER BY created_at, id"
            )
            .all().map { row in
                WebhookEndpoint(
                    id: try row.decode(column: "id", as: String.self),
                    url: try row.decode(column: "url", as: String.self),
                    events: try row.decode(column: "events", as: String.self).split(separator: ",").compactMap {
                        OutboxEventType(rawValue: String($0))
                    },
                    description: try row.decode(column: "description", as: String.self),
                    createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)))
            }
        }
    }

    /// Removes an endpoint and its deliveries; false when there was none.
    public func deleteEndpoint(_ id: String, scope: WriteScope) async throws -> Bool {
        let deleted = try await database.transaction(scope) { db in
            try await db.raw("DELETE FROM webhook_deliveries WHERE endpoint_id = \(bind: id)").run()
            return try await db.raw("DELETE FROM webhook_endpoints WHERE id = \(bind: id) RETURNING id").first() != nil
        }
        forgetSubscriptions()
        return deleted
    }

    // MARK: Deliveries

    /// A delivery row with its event's type, as `delivery(_:)` decodes it.
    private static let deliveryRows: SQLQueryString = """
        SELECT d.id, d.endpoint_id, d.event_id, e.type, d.state, d.attempts, d.next_attempt_at, d.last_status,
            d.last_error, d.created_at, d.delivered_at
        FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
        """

    public func deliveries(endpoint: String, limit: Int, offset: Int) async throws -> [WebhookDelivery] {
        try await database.withConnection { db in
            try await db.raw(
                """
                \(Self.deliveryRows) WHERE d.endpoint_id = \(bind: endpoint)
                ORDER BY d.created_at DESC, d.id LIMIT \(bind: limit) OFFSET \(bind: offset)
                """
            ).all().map(Self.delivery)
        }
    }

    public func delivery(_ id: String) async throws -> WebhookDelivery? {
        try await database.withConnection { db in
            try await db.raw("\(Self.deliveryRows) WHERE d.id = \(bind: id)").first().map(Self.delivery)
        }
    }

    private static func delivery(_ row: any SQLRow) throws -> WebhookDelivery {
        WebhookDelivery(
            id: try row.decode(column: "id", as: String.self),
            endpointID: try row.decode(column: "endpoint_id", as: String.self),
            eventID: try row.decode(column: "event_id", as: String.self),
            type: OutboxEventType(rawValue: try row.decode(column: "type", as: String.self)) ?? .pointsChanged,
            state: try row.decode(column: "state", as: String.self),
            attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: Date(storedMillis: try row.decode(column: "next_attempt_at", as: Int64.self)),
            lastStatus: try row.decode(column: "last_status", as: Int?.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)),
            deliveredAt: try row.decode(column: "delivered_at", as: Int64?.self).map { Date(storedMillis: $0) })
    }

    /// Sends a delivery again now: a failed one gets a new day of retries; a delivered one is
    /// sent once more (receivers drop the duplicate by the event's id).
    public func replay(_ id: String, now: Date, scope: WriteScope) async throws -> WebhookDelivery? {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = \(bind: now.storedMillis),
                    created_at = \(bind: now.storedMillis), attempts = 0
                WHERE id = \(bind: id)
                """
            ).run()
        }
        return try await delivery(id)
    }

    /// Takes up to `limit` due deliveries for `lease`: no other instance takes them meanwhile.
    public func claimDue(now: Date, lease: TimeInterval, limit: Int, scope: WriteScope) async throws -> [DueDelivery] {
        // A read first: an idle outbox costs no write transaction (on SQLite, no turn of the
        // single writer) per pass.
        let anyDue = try await database.withConnection { db in
            try await db.raw(
                """
                SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= \(bind: now.storedMillis) LIMIT 1
                """
            ).first() != nil
        }
        guard anyDue else { return [] }
        return try await database.transaction(scope) { db in
            let lock = database.flavor == .postgres ? "FOR UPDATE OF d SKIP LOCKED" : ""
            let rows = try await db.raw(
                """
                SELECT d.id, w.url, w.secret, e.body, d.attempts, d.created_at
                FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN outbox_events e ON e.id = d.event_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= \(bind: now.storedMillis)
                ORDER BY d.next_attempt_at LIMIT \(bind: limit) \(unsafeRaw: lock)
                """
            ).all()
            let due = try rows.map { row in
                DueDelivery(
                    id: try row.decode(column: "id", as: String.self),
                    url: try row.decode(column: "url", as: String.self),
                    secret: try row.decode(column: "secret", as: String.self),
                    body: try row.decode(column: "body", as: String.self),
                    attempts: try row.decode(column: "attempts", as: Int.self),
                    createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)))
            }
            for delivery in due {
                try await db.raw(
                    """
                    UPDATE webhook_deliveries SET next_attempt_at = \(bind: now.addingTimeInterval(lease).storedMillis)
                    WHERE id = \(bind: delivery.id)
                    """
                ).run()
            }
            return due
        }
    }

    /// Records an attempt: delivered, or failed with the next try at `retryAt` (nil: given up).
    public func attempted(
        _ id: String, status: Int?, error: String?, delivered: Bool, retryAt: Date?, now: Date, scope: WriteScope
    ) async throws {
        let state = delivered ? "delivered" : retryAt == nil ? "failed" : "pending"
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                UPDATE webhook_deliveries SET state = \(bind: state), attempts = attempts + 1,
                    next_attempt_at = \(bind: (retryAt ?? now).storedMillis), last_status = \(bind: status),
                    last_error = \(bind: error.map { String($0.prefix(500)) }),
                    delivered_at = \(bind: delivered ? now.storedMillis : nil)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// The oldest pending delivery's age in seconds (`questline_outbox_lag_seconds`), 0 if none.
    public func lag(now: Date) async throws -> Double {
        try await database.withConnection { db in
            let oldest = try await db.raw(
                "SELECT MIN(created_at) AS oldest FROM webhook_deliveries WHERE state = 'pending'"
            ).first()?.decode(column: "oldest", as: Int64?.self)
            return oldest.map { max(0, now.timeIntervalSince(Date(storedMillis: $0))) } ?? 0
        }
    }

    /// Deletes events older than `cutoff` whose deliveries are all finished; returns how many.
    @discardableResult
    public func purge(olderThan cutoff: Date) async throws -> Int {
        try await database.transaction(.system) { db in
            let rows = try await db.raw(
                """
                DELETE FROM outbox_events WHERE occurred_at < \(bind: cutoff.storedMillis)
                    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = outbox_events.id AND d.state = 'pending')
                RETURNING id
                """
            ).all()
            return rows.count
        }
    }
}

/// The `data` of each event type (the contract's `Webhook*` schemas).
public enum OutboxData {
    public struct QuestCompleted: Codable, Sendable, Equatable {
        public let memberId: String
        public let questId: String
        public let period: String
        public let bonus: Int
        /// When the app may push it to the member (the end of their quiet hours, or now);
        /// absent when they turned quest updates off.
        public let notifyAt: String?
        public init(memberId: String, questId: String, period: String, bonus: Int, notifyAt: Date?) {
            self.memberId = memberId
            self.questId = questId
            self.period = period
            self.bonus = bonus
            self.notifyAt = notifyAt?.formatted(.iso8601)
        }
    }

    /// A league week closed: the member's place on each board they played.
    public struct LeagueClosed: Codable, Sendable, Equatable {
        public struct Board: Codable, Sendable, Equatable {
            public let board: String
            public let rank: Int
            public let points: Int
            public let movement: String
            public let tier: String?
            public init(board: String, rank: Int, points: Int, movement: String, tier: String?) {
                self.board = board
                self.rank = rank
                self.points = points
                self.movement = movement
                self.tier = tier
            }
        }
        public let memberId: String
        public let week: String
        public let boards: [Board]
        public init(memberId: String, week: String, boards: [Board]) {
            self.memberId = memberId
            self.week = week
            self.boards = boards
        }
    }

    /// A co-op quest reached its target: one event per contributor, with their share and bonus.
    public struct CoopQuestCompleted: Codable, Sendable, Equatable {
        public let memberId: String
        public let coopQuestId: String
        /// The week's Monday.
        public let week: String
        public let contribution: Int
        public let bonus: Int
        /// As in `QuestCompleted`.
        public let notifyAt: String?
        public init(
            memberId: String, coopQuestId: String, week: String, contribution: Int, bonus: Int, notifyAt: Date?
        ) {
            self.memberId = memberId
            self.coopQuestId = coopQuestId
            self.week = week
            self.contribution = contribution
            self.bonus = bonus
            self.notifyAt = notifyAt?.formatted(.iso8601)
        }
    }

    public struct BadgeAwarded: Codable, Sendable, Equatable {
        public let memberId: String
        public let badgeId: String
        public let feature: String
        public init(memberId: String, badgeId: String, feature: String) {
            self.memberId = memberId
            self.badgeId = badgeId
            self.feature = feature
        }
    }

    public struct PointsChanged: Codable, Sendable, Equatable {
        public struct Entry: Codable, Sendable, Equatable {
            public let kind: String
            public let points: Int
            public let reason: String
        }
        public let memberId: String
        public let delta: Int
        public let balance: Int
        public let entries: [Entry]
    }

    public struct RewardUnlocked: Codable, Sendable, Equatable {
        public let memberId: String
        public let appToken: String
        public let minutes: Int
        public let startsAt: String
        public let expiresAt: String
        public let questId: String?
        /// As in `QuestCompleted`.
        public let notifyAt: String?
        public init(
            memberId: String, appToken: String, minutes: Int, startsAt: Date, expiresAt: Date, questId: String?,
            notifyAt: Date?
        ) {
            self.memberId = memberId
            self.appToken = appToken
            self.minutes = minutes
            self.startsAt = startsAt.formatted(.iso8601)
            self.expiresAt = expiresAt.formatted(.iso8601)
            self.questId = questId
            self.notifyAt = notifyAt?.formatted(.iso8601)
        }
    }

    public struct ReadingChallengeCompleted: Codable, Sendable, Equatable {
        public let memberId: String
        public let campaignId: String
        public let completedOn: String
        public init(memberId: String, campaignId: String, completedOn: String) {
            self.memberId = memberId
            self.campaignId = campaignId
            self.completedOn = completedOn
        }
    }

    public struct StoryRewardsCollected: Codable, Sendable, Equatable {
        public let memberId: String
        public let storyId: String
        public let points: Int
        public let cardId: String?
        public let badgeId: String?
        public init(memberId: String, storyId: String, points: Int, cardId: String?, badgeId: String?) {
            self.memberId = memberId
            self.storyId = storyId
            self.points = points
            self.cardId = cardId
            self.badgeId = badgeId
        }
    }

    public struct MemberDeleted: Codable, Sendable, Equatable {
        public let memberId: String
        public init(memberId: String) { self.memberId = memberId }
    }
}
