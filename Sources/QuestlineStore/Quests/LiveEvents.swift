public import Foundation
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit
public import QuestlineCore
import SQLKit

enum LiveEventSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        // Bookkeeping: deleted with the member, not exported (what a live stream needed).
        PersonalData.Holding(table: "live_events", column: "child_id", withoutForeignKey: true)
    ]

    static let migrations: [Migration] = [
        Migration(version: 700, name: "live_events") { flavor in
            [
                """
                CREATE TABLE live_events (
                    id \(flavor == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"),
                    household_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    child_id TEXT,
                    quest_id TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX live_events_by_household ON live_events (household_id, id)",
                "CREATE INDEX live_events_by_age ON live_events (created_at)",
                // The newest id the purge removed: a client resuming from an older id missed
                // events that are gone, and is told to refetch.
                """
                CREATE TABLE live_event_horizon (
                    one INTEGER PRIMARY KEY CHECK (one = 1),
                    purged_through BIGINT NOT NULL
                )
                """,
                "INSERT INTO live_event_horizon (one, purged_through) VALUES (1, 0)",
            ]
        }
    ]
}

/// What changed in a household, as its devices hear it: re-read what the kind names.
public struct LiveEvent: Sendable, Equatable, Codable {
    /// The event's place in its household's sequence (ascending in commit order within a
    /// household); a client resumes after the last id it saw (`Last-Event-ID`).
    public let id: Int64
    public let household: String
    public let kind: LiveEventKind
    public let childId: String?
    public let challengeId: String?
    public let at: Date
}

public enum LiveEventKind: String, Sendable, Codable, CaseIterable {
    case progress, points, catalog, rules, policy, request
    /// A household member cheered another (`childId` names the one cheered).
    case cheer
    /// A quest was set, changed, paused or deleted (`challenge` on the wire).
    case quest = "challenge"
}

/// Collects the events of one write transaction (see `LiveEventLog.write`).
///
/// `@unchecked Sendable` is safe: the array is behind a lock.
public final class LiveAnnouncer: @unchecked Sendable {
    let db: any SQLDatabase
    let log: LiveEventLog
    /// Announced in this transaction, written together by `flush` before it commits.
    private let pending = NIOLockedValueBox<[LiveEventLog.NewEvent]>([])
    /// Written by `flush`, published after the commit.
    private let announced = NIOLockedValueBox<[LiveEvent]>([])

    init(db: any SQLDatabase, log: LiveEventLog) {
        self.db = db
        self.log = log
    }

    /// Records an event for the app team's systems (the outbox, for webhooks) in the write's
    /// transaction.
    public func record(
        _ type: OutboxEventType, member: MemberID?, data: some Encodable & Sendable, now: Date
    ) async throws {
        try await log.outbox.record(
            type, member: member, data: data, id: UUID().uuidString.lowercased(), now: now, on: db)
    }

    /// Records the event in the write's transaction: it is published when, and only when, the
    /// write commits. The transaction's events are written together at its end (`flush`), and
    /// the same event announced twice is written once.
    public func announce(
        _ kind: LiveEventKind, household: HouseholdID, child: MemberID? = nil, quest: QuestID? = nil, now: Date
    ) async throws {
        let event = LiveEventLog.NewEvent(
            kind: kind, household: household.rawValue, child: child?.rawValue, quest: quest?.rawValue,
            at: now.storedMillis)
        pending.withLockedValue { if !$0.contains(event) { $0.append(event) } }
    }

    /// Writes the announced events, in one statement (and on PostgreSQL a lock per household
    /// and one notification statement): called by `LiveEventLog.write` once its body is done.
    func flush() async throws {
        let events = pending.withLockedValue { events in
            defer { events = [] }
            return events
        }
        guard !events.isEmpty else { return }
        let written = try await log.append(events, on: db)
        announced.withLockedValue { $0.append(contentsOf: written) }
    }

    var events: [LiveEvent] { announced.withLockedValue { $0 } }
}

/// The household event log: every event is a row written in the transaction of the change it
/// reports, kept for `retention` so that a device that reconnects gets what it missed.
///
/// Delivery to this process's listeners: on PostgreSQL, `pg_notify` in the same transaction
/// (PostgreSQL sends it at commit, to every instance that listens, this one included; see
/// `listen`); on SQLite, which only one instance serves, straight after the commit.
public final class LiveEventLog: Sendable {
    let database: Database
    let outbox: Outbox
    /// How long events are kept for reconnecting devices.
    public static let retention: TimeInterval = 24 * 3600
    static let channel = "questline_live"
    private let localDelivery = NIOLockedValueBox<[@Sendable ([LiveEvent]) -> Void]>([])
    /// Who forgets what it cached of a member when another instance changes or removes it.
    private let sessionWatchers = NIOLockedValueBox<[@Sendable (SessionChange) -> Void]>([])

    /// A change that ends what instances cached of a member's sessions.
    public enum SessionChange: Sendable, Equatable {
        /// The member changed (profile, role, household) or was deleted: drop all of theirs.
        case member(MemberID)
        /// One session ended (signed out).
        case session(tokenHash: String)
        /// The listening connection was lost: anything may have been missed.
        case everything
    }

    private struct SessionChangePayload: Codable {
        var forget: String?
        var forgetSession: String?
    }

    /// What instances kept of members' answers (their widgets) that a write made stale.
    public enum StaleAnswers: Sendable, Equatable {
        /// What a member's answers are computed from changed.
        case member(MemberID)
        /// The listening connection was made or lost: anything may have been missed.
        case everyone
    }

    /// A stale answer's notification: this prefix and the member's id, plain text, so that the
    /// listener tells it from an event without decoding JSON (one arrives per reads' commit).
    static let stalePrefix = "stale:"

    private let answerWatchers = NIOLockedValueBox<[@Sendable (StaleAnswers) -> Void]>([])
    private let eventWatchers = NIOLockedValueBox<[@Sendable ([LiveEvent]) -> Void]>([])

    /// Adds a place where every household event goes once committed: this instance's own at
    /// once after their commit (both databases), and on PostgreSQL every instance's as they are
    /// heard. What an instance kept of a household's answers forgets them here.
    public func watchEvents(_ watcher: @escaping @Sendable ([LiveEvent]) -> Void) {
        eventWatchers.withLockedValue { $0.append(watcher) }
    }

    private func eventsCommitted(_ events: [LiveEvent]) {
        for watcher in eventWatchers.withLockedValue({ $0 }) { watcher(events) }
    }
    private let listening = NIOLockedValueBox(false)

    /// Adds a place where stale answers are told, from every instance (PostgreSQL).
    public func watchAnswers(_ watcher: @escaping @Sendable (StaleAnswers) -> Void) {
        answerWatchers.withLockedValue { $0.append(watcher) }
    }

    /// Whether an instance may keep answers now: on SQLite always (it is the only instance, and
    /// its writers forget what they change); on PostgreSQL only while this instance listens to
    /// the channel on which the others say what they changed.
    public var mayKeepAnswers: Bool { !relaysThroughDatabase || listening.withLockedValue { $0 } }

    private func answersChanged(_ change: StaleAnswers) {
        for watcher in answerWatchers.withLockedValue({ $0 }) { watcher(change) }
    }

    /// Tells every instance (PostgreSQL) that what it kept of these members' answers is stale;
    /// the writer forgets its own at once. Nothing on SQLite.
    public func announceStale(_ members: [MemberID]) async throws {
        guard relaysThroughDatabase, !members.isEmpty else { return }
        try await database.withConnection { db in try await Self.notifyStale(Set(members.map(\.rawValue)), on: db) }
    }

    /// The notifications of `announceStale` in one statement, for a write to send inside its
    /// own transaction (PostgreSQL delivers them at its commit).
    static func notifyStale(_ members: Set<String>, on db: any SQLDatabase) async throws {
        guard !members.isEmpty else { return }
        try await db.raw(
            """
            SELECT count(pg_notify(\(bind: channel), \(bind: stalePrefix) || m)) AS told
            FROM unnest(CAST(\(bind: members.sorted()) AS text[])) AS m
            """
        ).run()
    }

    /// Adds a place where changes to members' sessions go, from every instance (PostgreSQL).
    public func watchSessions(_ watcher: @escaping @Sendable (SessionChange) -> Void) {
        sessionWatchers.withLockedValue { $0.append(watcher) }
    }

    /// Tells every instance (on PostgreSQL, through the channel they all listen to) that
    /// what they cached of these sessions is stale. On SQLite, which one instance serves, the
    /// instance forgets them itself.
    public func announce(_ changes: [SessionChange]) async throws {
        guard relaysThroughDatabase, !changes.isEmpty else { return }
        let encoder = JSONEncoder()
        try await database.withConnection { db in
            for change in changes {
                let payload: SessionChangePayload
                switch change {
                case .member(let id): payload = SessionChangePayload(forget: id.rawValue)
                case .session(let hash): payload = SessionChangePayload(forgetSession: hash)
                case .everything: continue
                }
                let text = String(decoding: try encoder.encode(payload), as: UTF8.self)
                try await db.raw("SELECT pg_notify(\(bind: Self.channel), \(bind: text))").run()
            }
        }
    }

    private func sessionsChanged(_ change: SessionChange) {
        for watcher in sessionWatchers.withLockedValue({ $0 }) { watcher(change) }
    }

    init(_ database: Database, outbox: Outbox) {
        self.database = database
        self.outbox = outbox
    }

    /// Whether events reach listeners through PostgreSQL (`listen`) rather than in-process.
    public var relaysThroughDatabase: Bool { database.flavor == .postgres }

    /// Adds a place where this process's committed events go when they are delivered
    /// in-process (SQLite).
    public func deliverLocally(to deliver: @escaping @Sendable ([LiveEvent]) -> Void) {
        localDelivery.withLockedValue { $0.append(deliver) }
    }

    /// Runs `body` in one transaction in `scope`, with an announcer for its events.
    func write<T: Sendable>(_ scope: WriteScope, _ body: (any SQLDatabase, LiveAnnouncer) async throws -> T)
        async throws -> T
    {
        var announcer: LiveAnnouncer?
        // The events are the transaction's last statements: on PostgreSQL their household lock
        // is then held over two round trips (the events' statement and COMMIT).
        let result = try await database.transaction(
            scope, lastly: { _ in try await announcer?.flush() },
            { db in
                let live = LiveAnnouncer(db: db, log: self)
                announcer = live
                return try await body(db, live)
            })
        if let events = announcer?.events, !events.isEmpty {
            eventsCommitted(events)
            if !relaysThroughDatabase {
                for deliver in localDelivery.withLockedValue({ $0 }) { deliver(events) }
            }
        }
        return result
    }

    /// An event announced in a write, before it has its id.
    struct NewEvent: Equatable {
        let kind: LiveEventKind
        let household: String
        let child: String?
        let quest: String?
        /// Stored milliseconds.
        let at: Int64
    }

    /// Writes `events` in one statement and returns them with their ids, in id order.
    ///
    /// On PostgreSQL the same statement takes the household's lock and sends each event's
    /// notification (`pg_notify`, delivered at commit to every instance that listens), so the
    /// lock is held over this statement and COMMIT only. Events of several households (rare)
    /// take their locks first, in order, one statement each.
    fileprivate func append(_ events: [NewEvent], on db: any SQLDatabase) async throws -> [LiveEvent] {
        let rows = events.map {
            SQLGroupExpression([
                SQLBind($0.household), SQLBind($0.kind.rawValue), SQLBind($0.child), SQLBind($0.quest), SQLBind($0.at),
            ])
        }
        let written: [LiveEvent]
        if database.flavor == .postgres {
            written = try await appendNotifying(events, rows: rows, on: db)
        } else {
            written = try await db.raw(
                """
                INSERT INTO live_events (household_id, kind, child_id, quest_id, created_at) VALUES \(SQLList(rows))
                RETURNING id, household_id, kind, child_id, quest_id, created_at
                """
            ).all().map(Self.event(from:)).sorted { $0.id < $1.id }
        }
        guard written.count == events.count else { throw StoreError.noRowReturned("INSERT INTO live_events") }
        return written
    }

    /// PostgreSQL: one writer of a household's events at a time until commit, so that its ids
    /// grow in commit order and "after id N" never skips an event that committed later. The
    /// lock is a materialized CTE the inserted rows are joined with, so it is taken before the
    /// first id is drawn. The notification is built from the written row (`LiveEvent`'s JSON:
    /// `at` in seconds since 2001, as `JSONEncoder` writes a date, computed the way `Date` does).
    private func appendNotifying(
        _ events: [NewEvent], rows: [SQLGroupExpression], on db: any SQLDatabase
    ) async throws -> [LiveEvent] {
        let households = Set(events.map(\.household)).sorted()
        let lock: SQLQueryString
        if households.count == 1 {
            lock = "SELECT pg_advisory_xact_lock(7426002, hashtext(\(bind: households[0])))"
        } else {
            for household in households {
                try await db.raw("SELECT pg_advisory_xact_lock(7426002, hashtext(\(bind: household)))").run()
            }
            lock = "SELECT 1"
        }
        return try await db.raw(
            """
            WITH locked AS MATERIALIZED (\(lock)),
            written AS (
                INSERT INTO live_events (household_id, kind, child_id, quest_id, created_at)
                SELECT v.household_id, v.kind, v.child_id, v.quest_id, v.created_at
                FROM (VALUES \(SQLList(rows))) AS v (household_id, kind, child_id, quest_id, created_at)
                CROSS JOIN locked
                RETURNING id, household_id, kind, child_id, quest_id, created_at
            )
            SELECT id, household_id, kind, child_id, quest_id, created_at,
                pg_notify(\(bind: Self.channel), json_build_object(
                    'id', id, 'household', household_id, 'kind', kind, 'childId', child_id,
                    'challengeId', quest_id, 'at', created_at::float8 / 1000 - 978307200)::text) AS notified
            FROM (SELECT * FROM written ORDER BY id) AS ordered
            """
        ).all().map(Self.event(from:)).sorted { $0.id < $1.id }
    }

    private static func event(from row: any SQLRow) throws -> LiveEvent {
        LiveEvent(
            id: try row.decode(column: "id", as: Int64.self),
            household: try row.decode(column: "household_id", as: String.self),
            kind: try row.decode(column: "kind", as: LiveEventKind.self),
            childId: try row.decode(column: "child_id", as: String?.self),
            challengeId: try row.decode(column: "quest_id", as: String?.self),
            at: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    /// The household's events after `id`, oldest first (at most `limit`), and whether events
    /// after `id` may have been purged (then the caller should refetch everything).
    public func events(of household: HouseholdID, after id: Int64, limit: Int = 1_000) async throws -> (
        events: [LiveEvent], gap: Bool
    ) {
        try await database.withConnection { db in
            let horizon =
                try await db.raw("SELECT purged_through FROM live_event_horizon WHERE one = 1").first()?
                .decode(column: "purged_through", as: Int64.self) ?? 0
            let rows = try await db.raw(
                """
                SELECT id, kind, child_id, quest_id, created_at FROM live_events
                WHERE household_id = \(bind: household.rawValue) AND id > \(bind: id)
                ORDER BY id LIMIT \(bind: limit)
                """
            ).all()
            let events = try rows.compactMap { row -> LiveEvent? in
                guard let kind = LiveEventKind(rawValue: try row.decode(column: "kind", as: String.self)) else {
                    return nil
                }
                return LiveEvent(
                    id: try row.decode(column: "id", as: Int64.self), household: household.rawValue, kind: kind,
                    childId: try row.decode(column: "child_id", as: String?.self),
                    challengeId: try row.decode(column: "quest_id", as: String?.self),
                    at: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)))
            }
            return (events, id < horizon || rows.count == limit)
        }
    }

    /// Deletes events older than `cutoff`; returns how many.
    @discardableResult
    public func purge(olderThan cutoff: Date) async throws -> Int {
        try await database.transaction(.system) { db in
            let newest = try await db.raw(
                "SELECT MAX(id) AS id FROM live_events WHERE created_at < \(bind: cutoff.storedMillis)"
            ).first()?.decode(column: "id", as: Int64?.self)
            guard let newest else { return 0 }
            let count =
                try await db.raw("SELECT COUNT(*) AS n FROM live_events WHERE id <= \(bind: newest)").first()?
                .decode(column: "n", as: Int64.self) ?? 0
            try await db.raw("DELETE FROM live_events WHERE id <= \(bind: newest)").run()
            try await db.raw(
                "UPDATE live_event_horizon SET purged_through = \(bind: newest) WHERE one = 1 AND purged_through < \(bind: newest)"
            ).run()
            return Int(count)
        }
    }

    /// No more word from the other instances: nothing kept may be trusted, nor kept.
    private func stopListening() {
        listening.withLockedValue { $0 = false }
        answersChanged(.everyone)
    }

    /// PostgreSQL: holds one connection that LISTENs for every instance's events and hands each
    /// to `deliver`, until the task is cancelled. After a lost connection it reconnects (waiting
    /// up to 5 s between tries) and calls `reconnected`, so that listeners can catch up from the
    /// log. Returns at once on SQLite.
    public func listen(
        logger: Logger, reconnected: @escaping @Sendable () async -> Void,
        deliver: @escaping @Sendable (LiveEvent) -> Void
    ) async {
        guard let configuration = database.postgresConfiguration else { return }
        let decoder = JSONDecoder()
        var wait = Duration.milliseconds(200)
        var first = true
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration.coreConfiguration,
                    id: 0, logger: logger)
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        // Answers kept before now may have missed a word: none is kept unheard.
                        listening.withLockedValue { $0 = true }
                        answersChanged(.everyone)
                        if !first {
                            sessionsChanged(.everything)
                            await reconnected()
                        }
                        first = false
                        wait = .milliseconds(200)
                        for try await notification in notifications {
                            if notification.payload.hasPrefix(Self.stalePrefix) {
                                if let id = MemberID(String(notification.payload.dropFirst(Self.stalePrefix.count))) {
                                    answersChanged(.member(id))
                                }
                                continue
                            }
                            let payload = Data(notification.payload.utf8)
                            if let event = try? decoder.decode(LiveEvent.self, from: payload) {
                                eventsCommitted([event])
                                deliver(event)
                            } else if let change = try? decoder.decode(SessionChangePayload.self, from: payload) {
                                if let id = change.forget.flatMap({ MemberID($0) }) { sessionsChanged(.member(id)) }
                                if let hash = change.forgetSession { sessionsChanged(.session(tokenHash: hash)) }
                            }
                        }
                    }
                    try? await connection.close()
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                if Task.isCancelled {
                    stopListening()
                    return
                }
                logger.warning("Live events: listening connection lost", metadata: ["error": "\(error)"])
            }
            stopListening()
            first = false
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, .seconds(5))
        }
    }
}
