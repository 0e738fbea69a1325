public import Foundation
public import QuestlineCore
import SQLKit

enum ReadingSchema: StoreModule {
    /// Analytics events keep counting without the deleted member: their subject becomes an
    /// opaque id.
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws {
        let opaque = "deleted-" + UUID().uuidString.lowercased()
        try await db.raw(
            "UPDATE analytics_events SET subject = \(bind: opaque) WHERE subject = \(bind: member.id.rawValue)"
        ).run()
    }

    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(
            table: "reading_events", column: "owner", export: (.reading, "reads"), withoutForeignKey: true),
        PersonalData.Holding(
            table: "reading_days", column: "owner", export: (.reading, "days"), withoutForeignKey: true),
        PersonalData.Holding(table: "challenge_enrollments", column: "member_id", export: (.reading, "challenges")),
        PersonalData.Holding(table: "campaign_announcements", column: "member_id", export: (.reading, "announcements")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 200, name: "reading_challenge",
            [
                """
                CREATE TABLE reading_events (
                    owner TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    article_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    language TEXT NOT NULL,
                    read_at BIGINT NOT NULL,
                    time_zone TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    thumbnail_url TEXT,
                    recorded_at BIGINT NOT NULL,
                    PRIMARY KEY (owner, event_id)
                )
                """,
                "CREATE INDEX reading_events_by_owner_time ON reading_events (owner, read_at)",
                """
                CREATE TABLE reading_days (
                    owner TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    reads BIGINT NOT NULL,
                    PRIMARY KEY (owner, local_day)
                )
                """,
                """
                CREATE TABLE campaigns (
                    id TEXT PRIMARY KEY,
                    body TEXT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE challenge_enrollments (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    campaign_id TEXT NOT NULL,
                    joined_at BIGINT NOT NULL,
                    join_day TEXT NOT NULL,
                    completed_on TEXT,
                    claimed_at BIGINT,
                    PRIMARY KEY (member_id, campaign_id)
                )
                """,
                """
                CREATE TABLE device_pending_joins (
                    device_id TEXT NOT NULL,
                    campaign_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (device_id, campaign_id)
                )
                """,
                """
                CREATE TABLE badges (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    badge_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    awarded_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, badge_id)
                )
                """,
                """
                CREATE TABLE analytics_events (
                    id TEXT PRIMARY KEY,
                    subject TEXT NOT NULL,
                    name TEXT NOT NULL,
                    campaign_id TEXT,
                    properties TEXT NOT NULL,
                    occurred_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX analytics_events_by_campaign ON analytics_events (campaign_id, name, subject)",
            ]),
        // The join announcement, shown once per member and campaign.
        Migration(
            version: 210, name: "campaign_announcements",
            [
                """
                CREATE TABLE campaign_announcements (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    campaign_id TEXT NOT NULL,
                    shown_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, campaign_id)
                )
                """
            ]),
    ]
}

/// Who owns reads: a member, or a device that has not signed in yet.
public enum ReadOwner: Sendable, Hashable {
    case member(MemberID)
    case device(String)

    /// What a device's key starts with (a member's is their id).
    static let devicePrefix = "device:"

    public var key: String {
        switch self {
        case .member(let id): return id.rawValue
        case .device(let id): return Self.devicePrefix + id
        }
    }
}

public struct Enrollment: Sendable, Equatable {
    public let campaignID: String
    public let joinedAt: Date
    public let joinDay: LocalDay
    public let completedOn: LocalDay?
    public let claimedAt: Date?
}

public struct SeenArticle: Sendable, Equatable {
    public let articleID: String
    public let title: String
    public let language: String
    public let thumbnailURL: String?
    public let lastReadAt: Date

    public init(articleID: String, title: String, language: String, thumbnailURL: String?, lastReadAt: Date) {
        self.articleID = articleID
        self.title = title
        self.language = language
        self.thumbnailURL = thumbnailURL
        self.lastReadAt = lastReadAt
    }
}

/// One analytics event (docs/measurement-plan.md). Its properties are encoded as JSON when
/// written, not when the event happens: a widget view only appends one of these to a buffer.
public struct AnalyticsEvent: Sendable, Equatable {
    public let id: String
    public let subject: String
    public let name: String
    public let campaign: String?
    public let properties: [String: String]
    public let at: Date

    public init(id: String, subject: String, name: String, campaign: String?, properties: [String: String], at: Date) {
        self.id = id
        self.subject = subject
        self.name = name
        self.campaign = campaign
        self.properties = properties
        self.at = at
    }
}

public struct Badge: Sendable, Equatable {
    public let id: String
    public let title: String
    public let awardedAt: Date
}

/// Reads, campaigns, enrollments, badges and analytics events.
/// What recording reads did: the event ids newly recorded, and the days on which the owner had
/// no read before (the only change that can move a streak or a challenge).
public struct RecordedReads: Sendable, Equatable {
    public let eventIDs: Set<String>
    public let newDays: Set<LocalDay>
    /// The campaign's completion day, when these reads completed it (recorded with them).
    public let completedOn: LocalDay?
    /// Whether they changed what the owner's widget is computed from: a day read for the first
    /// time, or a day's reads reaching `StreakAllowances.repairReads` (most reads change neither).
    public let changedFacts: Bool

    public init(
        eventIDs: Set<String>, newDays: Set<LocalDay>, completedOn: LocalDay? = nil, changedFacts: Bool = false
    ) {
        self.eventIDs = eventIDs
        self.newDays = newDays
        self.completedOn = completedOn
        self.changedFacts = changedFacts
    }
}

/// What the store needs to record a campaign's completion with the reads that reach it: the
/// member, the campaign of their today, that day, and the badge's title (kept as its stored
/// message, made only when the campaign completes).
public struct CompletionCheck: Sendable {
    public let member: MemberID
    public let campaign: Campaign
    public let today: LocalDay
    public let badge: Message

    public init(member: MemberID, campaign: Campaign, today: LocalDay, badge: Message) {
        self.member = member
        self.campaign = campaign
        self.today = today
        self.badge = badge
    }
}

public struct ReadingStore: Sendable {
    let database: Database
    /// Reads sent at the same time share a transaction, and widgets asked for at the same time
    /// one query (see `Coalescer`).
    private let reads: Coalescer<PendingReads, RecordedReads>
    private let widgets: Coalescer<WidgetFactsRequest, WidgetFacts>

    /// Where a completion's `reading.challenge_completed` and `badge.awarded` go.
    let outbox: Outbox?

    public init(_ database: Database, outbox: Outbox? = nil) {
        self.outbox = outbox
        self.database = database
        let flavor = database.flavor
        reads = .groupCommit(database, maxItems: 64) { db, pending in
            try await Self.record(pending, flavor: flavor, outbox: outbox, on: db)
        }
        widgets = Coalescer(maxItems: 64) { requests, _ in
            try await database.withConnection { db in
                try await Self.widgetFacts(requests, flavor: database.flavor, on: db)
            }
        }
    }

    struct PendingReads: Sendable {
        let owner: String
        let reads: [NewRead]
        let now: Date
        /// The reads as rows for the insert (see `record(_:flavor:on:)`), encoded by the caller.
        let rows: String
        let completion: CompletionCheck?
    }

    // MARK: Reads

    /// Records reads; each event id once per owner (a retry changes nothing). Keeps the per-day
    /// summary (`reading_days`) in the same transaction. Returns, once committed, the event ids
    /// newly recorded and the owner's days that had no read before.
    ///
    /// With a `completion` check (a member, the campaign of their today), a read that completes
    /// the campaign records the completion and its badge in that same transaction: the reads and
    /// the completion commit together or not at all, so a retry after a failure completes it.
    public func record(
        _ reads: [NewRead], owner: ReadOwner, now: Date, completion: CompletionCheck? = nil, scope: WriteScope
    ) async throws
        -> RecordedReads
    {
        guard !reads.isEmpty else { return RecordedReads(eventIDs: [], newDays: []) }
        let rows = Self.encodeRows(reads, owner: owner.key, now: now)
        return try await self.reads.submit(
            PendingReads(owner: owner.key, reads: reads, now: now, rows: rows, completion: completion), in: scope)
    }

    /// A request's reads as JSON rows separated by commas (`[…],[…]`; a row is its columns in
    /// table order), written on the request's own thread, so that the single writer only joins
    /// the requests' rows.
    static func encodeRows(_ reads: [NewRead], owner: String, now: Date) -> String {
        let recordedAt = now.storedMillis
        var rows = JSONRows(capacity: reads.count * 160)
        for read in reads {
            rows.beginRow()
            rows.append(owner)
            rows.append(read.eventID)
            rows.append(read.articleID)
            rows.append(read.title)
            rows.append(read.language)
            rows.append(read.at.storedMillis)
            rows.append(read.timeZone)
            rows.append(read.localDay.iso)
            rows.append(read.thumbnailURL)
            rows.append(recordedAt)
            rows.endRow()
        }
        return rows.text
    }

    /// Writes the reads of several requests: one insert of all their rows, then one upsert of
    /// the per-day counts. When two requests send the same event id for the same owner, the
    /// first one records it and the second sees a duplicate, as if sent one after the other.
    ///
    /// The rows travel as one JSON array, unpacked by the database (`json_each`,
    /// `jsonb_array_elements`), not as ten parameters a row: building a statement of 64,000
    /// parameters (a group of 64 batches of 100) and converting each one was most of the
    /// single writer's time.
    private static func record(
        _ pending: [PendingReads], flavor: SQLFlavor, outbox: Outbox?, on db: any SQLDatabase
    ) async throws
        -> [RecordedReads]
    {
        struct Row {
            let request: Int
            let read: NewRead
        }
        let rows = pending.enumerated().flatMap { index, item in item.reads.map { Row(request: index, read: $0) } }
        let json = "[" + pending.map(\.rows).joined(separator: ",") + "]"
        let columns: SQLQueryString =
            flavor == .sqlite
            ? """
            SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7,
                   value ->> 8, value ->> 9
            FROM json_each(\(bind: json)) WHERE true
            """
            : """
            SELECT e ->> 0, e ->> 1, e ->> 2, e ->> 3, e ->> 4, CAST(e ->> 5 AS BIGINT), e ->> 6, e ->> 7, e ->> 8, CAST(e ->> 9 AS BIGINT)
            FROM jsonb_array_elements(CAST(\(bind: json) AS jsonb)) AS e
            """
        // (`WHERE true`: SQLite's grammar needs it between an INSERT's SELECT and ON CONFLICT.)
        let returned = try await db.raw(
            """
            INSERT INTO reading_events (owner, event_id, article_id, title, language, read_at, time_zone, local_day, thumbnail_url, recorded_at)
            \(columns)
            ON CONFLICT (owner, event_id) DO NOTHING RETURNING owner, event_id
            """
        ).all()
        // As many rows back as sent: every one was new (the usual case), and there is nothing
        // to read in them. Otherwise they say which were.
        let allNew = returned.count == rows.count
        var inserted = Set<[String]>()  // (owner, event id)
        if !allNew {
            for row in returned {
                inserted.insert([
                    try row.decode(column: "owner", as: String.self),
                    try row.decode(column: "event_id", as: String.self),
                ])
            }
        }
        // Each inserted read belongs to the first request that sent it.
        var recorded = Array(repeating: Set<String>(), count: pending.count)
        var perDay: [[String]: Int] = [:]  // (owner, day)
        for row in rows {
            let owner = pending[row.request].owner
            guard allNew || inserted.remove([owner, row.read.eventID]) != nil else { continue }
            recorded[row.request].insert(row.read.eventID)
            perDay[[owner, row.read.localDay.iso], default: 0] += 1
        }
        guard !perDay.isEmpty else { return recorded.map { RecordedReads(eventIDs: $0, newDays: []) } }
        var upsert: SQLQueryString = "INSERT INTO reading_days (owner, local_day, reads) VALUES"
        for (index, (key, count)) in perDay.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }).enumerated() {
            upsert += index == 0 ? " " : ", "
            upsert += "(\(bind: key[0]), \(bind: key[1]), \(bind: count))"
        }
        // A day is new when its count is just what this statement added.
        upsert +=
            " ON CONFLICT (owner, local_day) DO UPDATE SET reads = reading_days.reads + excluded.reads RETURNING owner, local_day, reads"
        let summary = upsert
        var newDays = Set<[String]>()
        // Owners whose widget facts changed: a new day, or a day's reads reaching the repair count.
        var changed = Set<String>()
        for row in try await db.raw(summary).all() {
            let key = [
                try row.decode(column: "owner", as: String.self), try row.decode(column: "local_day", as: String.self),
            ]
            let total = try row.decode(column: "reads", as: Int.self)
            let added = perDay[key] ?? 0
            if total == added { newDays.insert(key) }
            if total == added || (total - added < StreakAllowances.repairReads && total >= StreakAllowances.repairReads)
            {
                changed.insert(key[0])
            }
        }
        // What other instances kept of these members' widgets is stale once this commits
        // (`LiveEventLog.StaleAnswers`): told in this transaction, delivered at its commit.
        if flavor == .postgres {
            try await LiveEventLog.notifyStale(changed.filter { !$0.hasPrefix(ReadOwner.devicePrefix) }, on: db)
        }
        var results: [RecordedReads] = []
        for (index, ids) in recorded.enumerated() {
            let owner = pending[index].owner
            let days = pending[index].reads.filter {
                ids.contains($0.eventID) && newDays.contains([owner, $0.localDay.iso])
            }.map(\.localDay)
            var completedOn: LocalDay?
            if !days.isEmpty, let check = pending[index].completion {
                completedOn = try await complete(
                    check, owner: owner, now: pending[index].now, outbox: outbox, on: db)
            }
            results.append(
                RecordedReads(
                    eventIDs: ids, newDays: Set(days), completedOn: completedOn,
                    changedFacts: !ids.isEmpty && changed.contains(owner)))
        }
        return results
    }

    /// Inside the reads' transaction: when the member is enrolled and not yet complete, and the
    /// read days now reach the goal (`Campaign.completion`), records the completion and awards
    /// the badge. Returns the completion day when recorded now.
    private static func complete(
        _ check: CompletionCheck, owner: String, now: Date, outbox: Outbox?, on db: any SQLDatabase
    )
        async throws
        -> LocalDay?
    {
        let campaign = check.campaign
        guard
            let joined = try await db.raw(
                """
                SELECT join_day FROM challenge_enrollments
                WHERE member_id = \(bind: check.member.rawValue) AND campaign_id = \(bind: campaign.id) AND completed_on IS NULL
                """
            ).first(),
            let joinDay = LocalDay(iso: try joined.decode(column: "join_day", as: String.self))
        else { return nil }
        // The read days (those read three times can repair a break) and the member's rest days
        // and pauses, in one statement.
        var readDays = Set<LocalDay>()
        var repairDays = Set<LocalDay>()
        var allowances = StreakAllowances.none
        for row in try await db.raw(
            """
            SELECT local_day AS day, reads AS n, NULL AS body FROM reading_days
            WHERE owner = \(bind: owner) AND local_day >= \(bind: campaign.startDay.iso) AND local_day <= \(bind: check.today.iso)
            UNION ALL
            SELECT NULL AS day, NULL AS n, body FROM streak_allowances WHERE member_id = \(bind: check.member.rawValue)
            """
        ).all() {
            if let body = try row.decode(column: "body", as: String?.self) {
                allowances = try StreakSettingsSchema.decode(body)
            } else if let day = LocalDay(iso: try row.decode(column: "day", as: String.self)) {
                readDays.insert(day)
                if try row.decode(column: "n", as: Int.self) >= StreakAllowances.repairReads { repairDays.insert(day) }
            }
        }
        guard
            let day = campaign.completion(
                readDays: readDays, joinDay: joinDay, today: check.today, repairDays: repairDays, allowances: allowances
            )
        else { return nil }
        return try await markCompleted(
            check.member, campaign: campaign.id, day: day, badgeTitle: check.badge.stored, now: now, outbox: outbox,
            on: db)
            ? day : nil
    }

    /// A member's enrollment in a campaign and their read days in a range: the widget's only
    /// query after authentication. Widgets asked for at the same time are looked up together,
    /// in one statement (see `Coalescer`): under load, the hop to the database and back, not
    /// the lookup, is what a widget costs.
    public func widgetFacts(_ member: MemberID, campaign: String, from: LocalDay, through: LocalDay) async throws
        -> WidgetFacts
    {
        try await widgets.submit(
            WidgetFactsRequest(member: member.rawValue, campaign: campaign, from: from, through: through))
    }

    struct WidgetFactsRequest: Sendable {
        let member: String
        let campaign: String
        let from: LocalDay
        let through: LocalDay
    }

    /// What a member's widget is computed from.
    public struct WidgetFacts: Sendable {
        public var enrollment: Enrollment?
        /// Days with a read in the range.
        public var days: Set<LocalDay> = []
        /// Of those, the days with at least three reads (they can repair a break).
        public var repairDays: Set<LocalDay> = []
        /// The member's rest days and pauses.
        public var allowances: StreakAllowances = .none
    }

    /// The facts of many widgets in one round trip: read days of every member asked for in the
    /// widest range asked for, and their enrollments in the campaigns asked for (point lookups
    /// and short ranges on the primary keys); each request then keeps its own.
    static func widgetFacts(_ requests: [WidgetFactsRequest], flavor: SQLFlavor, on db: any SQLDatabase) async throws
        -> [WidgetFacts]
    {
        let members = SQLList(Set(requests.map(\.member)).sorted().map { SQLBind($0) })
        let campaigns = SQLList(Set(requests.map(\.campaign)).sorted().map { SQLBind($0) })
        guard let from = requests.map(\.from).min(), let through = requests.map(\.through).max() else { return [] }
        // One row per member with its days joined by commas: a member with a month of reads
        // costs one row to decode, not thirty. A day read often enough to repair a break
        // (`StreakAllowances.repairReads`) is marked `+`.
        let mark = "local_day || CASE WHEN reads >= \(StreakAllowances.repairReads) THEN '+' ELSE '' END"
        let joined = SQLRaw(flavor == .postgres ? "string_agg(\(mark), ',')" : "group_concat(\(mark), ',')")
        let rows = try await db.raw(
            """
            SELECT 'day' AS kind, owner AS who, NULL AS campaign, \(joined) AS a, NULL AS b, NULL AS c, NULL AS d FROM reading_days
            WHERE owner IN (\(members)) AND local_day >= \(bind: from.iso) AND local_day <= \(bind: through.iso)
            GROUP BY owner
            UNION ALL
            SELECT 'enrollment' AS kind, member_id AS who, campaign_id AS campaign, join_day AS a, completed_on AS b,
                   CAST(joined_at AS TEXT) AS c, CAST(claimed_at AS TEXT) AS d
            FROM challenge_enrollments WHERE member_id IN (\(members)) AND campaign_id IN (\(campaigns))
            UNION ALL
            SELECT 'allowances' AS kind, member_id AS who, NULL AS campaign, body AS a, NULL AS b, NULL AS c, NULL AS d
            FROM streak_allowances WHERE member_id IN (\(members))
            """
        ).all()
        var days: [String: [(day: LocalDay, repairs: Bool)]] = [:]
        var enrollments: [String: Enrollment] = [:]
        var allowances: [String: StreakAllowances] = [:]
        for row in rows {
            let who = try row.decode(column: "who", as: String.self)
            let a = try row.decode(column: "a", as: String.self)
            let kind = try row.decode(column: "kind", as: String.self)
            if kind == "day" {
                days[who] = a.split(separator: ",").compactMap { item in
                    let repairs = item.hasSuffix("+")
                    return LocalDay(iso: repairs ? item.dropLast() : item).map { ($0, repairs) }
                }
            } else if kind == "allowances" {
                allowances[who] = try StreakSettingsSchema.decode(a)
            } else {
                let campaign = try row.decode(column: "campaign", as: String.self)
                enrollments[who + "|" + campaign] = Enrollment(
                    campaignID: campaign,
                    joinedAt: Date(storedMillis: Int64(try row.decode(column: "c", as: String.self)) ?? 0),
                    joinDay: try row.decode(column: "a", as: LocalDay.self),
                    completedOn: try row.decode(column: "b", as: String?.self).flatMap { LocalDay(iso: $0) },
                    claimedAt: try row.decode(column: "d", as: String?.self).flatMap { Int64($0) }.map(
                        Date.init(storedMillis:)))
            }
        }
        return requests.map { request in
            let inRange = days[request.member, default: []].filter {
                $0.day >= request.from && $0.day <= request.through
            }
            return WidgetFacts(
                enrollment: enrollments[request.member + "|" + request.campaign], days: Set(inRange.map(\.day)),
                repairDays: Set(inRange.filter(\.repairs).map(\.day)),
                allowances: allowances[request.member] ?? .none)
        }
    }

    /// Local days with a read between two days (inclusive), and those with at least three
    /// (they can repair a break), from the per-day summary.
    public func readHistory(_ owner: ReadOwner, from: LocalDay, through: LocalDay) async throws -> (
        days: Set<LocalDay>, repairDays: Set<LocalDay>
    ) {
        try await database.withConnection { db in
            var days: Set<LocalDay> = []
            var repairDays: Set<LocalDay> = []
            for row in try await db.raw(
                """
                SELECT local_day, reads FROM reading_days
                WHERE owner = \(bind: owner.key) AND local_day >= \(bind: from.iso) AND local_day <= \(bind: through.iso)
                """
            ).all() {
                guard let day = LocalDay(iso: try row.decode(column: "local_day", as: String.self)) else { continue }
                days.insert(day)
                if try row.decode(column: "reads", as: Int.self) >= StreakAllowances.repairReads {
                    repairDays.insert(day)
                }
            }
            return (days, repairDays)
        }
    }

    /// Local days with a read, between two days (inclusive): a short range on the summary.
    public func readDays(_ owner: ReadOwner, from: LocalDay, through: LocalDay) async throws -> Set<LocalDay> {
        try await database.withConnection { db in
            Set(
                try await db.raw(
                    """
                    SELECT local_day FROM reading_days
                    WHERE owner = \(bind: owner.key) AND local_day >= \(bind: from.iso) AND local_day <= \(bind: through.iso)
                    """
                ).all().compactMap { LocalDay(iso: try $0.decode(column: "local_day", as: String.self)) })
        }
    }

    /// Articles the owner has opened, newest first, optionally filtered by title.
    public func seenArticles(_ owner: ReadOwner, matching query: String?, limit: Int) async throws -> [SeenArticle] {
        let pattern = query.map {
            "%" + $0.lowercased().replacingOccurrences(of: "%", with: "").replacingOccurrences(of: "_", with: "") + "%"
        }
        var sql: SQLQueryString = """
            SELECT article_id, language, MAX(title) AS title, MAX(thumbnail_url) AS thumbnail_url, MAX(read_at) AS last_read
            FROM reading_events WHERE owner = \(bind: owner.key)
            """
        if let pattern { sql += " AND LOWER(title) LIKE \(bind: pattern)" }
        sql += " GROUP BY article_id, language ORDER BY last_read DESC LIMIT \(bind: limit)"
        let query = sql
        return try await database.withConnection { db in
            try await db.raw(query).all().map { row in
                SeenArticle(
                    articleID: try row.decode(column: "article_id", as: String.self),
                    title: try row.decode(column: "title", as: String.self),
                    language: try row.decode(column: "language", as: String.self),
                    thumbnailURL: try row.decode(column: "thumbnail_url", as: String?.self),
                    lastReadAt: Date(storedMillis: try row.decode(column: "last_read", as: Int64.self)))
            }
        }
    }

    /// Moves a device's reads and pending joins to a member who just signed in on it.
    /// Returns the campaign ids the device had asked to join.
    public func adoptDevice(_ deviceID: String, member: MemberID, scope: WriteScope) async throws -> [String] {
        let device = ReadOwner.device(deviceID).key
        return try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO reading_events (owner, event_id, article_id, title, language, read_at, time_zone, local_day, thumbnail_url, recorded_at)
                SELECT \(bind: member.rawValue), event_id, article_id, title, language, read_at, time_zone, local_day, thumbnail_url, recorded_at
                FROM reading_events WHERE owner = \(bind: device)
                ON CONFLICT (owner, event_id) DO NOTHING
                """
            ).run()
            try await db.raw("DELETE FROM reading_events WHERE owner = \(bind: device)").run()
            try await db.raw(
                "DELETE FROM reading_days WHERE owner = \(bind: device) OR owner = \(bind: member.rawValue)"
            ).run()
            try await db.raw(
                """
                INSERT INTO reading_days (owner, local_day, reads)
                SELECT owner, local_day, COUNT(*) FROM reading_events WHERE owner = \(bind: member.rawValue) GROUP BY owner, local_day
                """
            ).run()
            let pending = try await db.raw(
                "SELECT campaign_id FROM device_pending_joins WHERE device_id = \(bind: deviceID)"
            ).all()
                .map { try $0.decode(column: "campaign_id", as: String.self) }
            try await db.raw("DELETE FROM device_pending_joins WHERE device_id = \(bind: deviceID)").run()
            return pending
        }
    }

    public func addPendingJoin(device: String, campaign: String, now: Date, scope: WriteScope) async throws {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO device_pending_joins (device_id, campaign_id, created_at) VALUES (\(bind: device), \(bind: campaign), \(bind: now.storedMillis))
                ON CONFLICT (device_id, campaign_id) DO NOTHING
                """
            ).run()
        }
    }

    public func hasPendingJoin(device: String, campaign: String) async throws -> Bool {
        try await database.withConnection { db in
            try await db.raw(
                "SELECT 1 AS one FROM device_pending_joins WHERE device_id = \(bind: device) AND campaign_id = \(bind: campaign)"
            ).first() != nil
        }
    }

    // MARK: Campaigns

    public func campaigns() async throws -> [Campaign] {
        try await database.withConnection { db in
            try await db.raw("SELECT body FROM campaigns ORDER BY id").all().map { row in
                try JSONDecoder().decode(
                    Campaign.self, from: Data(try row.decode(column: "body", as: String.self).utf8))
            }
        }
    }

    /// Stores a campaign; `replace: false` keeps an existing one with the same id.
    public func saveCampaign(_ campaign: Campaign, replace: Bool, now: Date, scope: WriteScope) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = String(decoding: try encoder.encode(campaign), as: UTF8.self)
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO campaigns (id, body, updated_at) VALUES (\(bind: campaign.id), \(bind: body), \(bind: now.storedMillis))
                ON CONFLICT (id) DO \(unsafeRaw: replace ? "UPDATE SET body = excluded.body, updated_at = excluded.updated_at" : "NOTHING")
                """
            ).run()
        }
    }

    // MARK: Enrollment

    public func enrollment(_ member: MemberID, campaign: String) async throws -> Enrollment? {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT campaign_id, joined_at, join_day, completed_on, claimed_at FROM challenge_enrollments
                WHERE member_id = \(bind: member.rawValue) AND campaign_id = \(bind: campaign)
                """
            ).first().map(Self.decodeEnrollment)
        }
    }

    static func decodeEnrollment(_ row: any SQLRow) throws -> Enrollment {
        Enrollment(
            campaignID: try row.decode(column: "campaign_id", as: String.self),
            joinedAt: Date(storedMillis: try row.decode(column: "joined_at", as: Int64.self)),
            joinDay: try row.decode(column: "join_day", as: LocalDay.self),
            completedOn: try row.decode(column: "completed_on", as: String?.self).flatMap { LocalDay(iso: $0) },
            claimedAt: try row.decode(column: "claimed_at", as: Int64?.self).map(Date.init(storedMillis:)))
    }

    /// Joins (once; joining again keeps the first join). Returns the enrollment and whether it is new.
    public func join(_ member: MemberID, campaign: String, day: LocalDay, now: Date, scope: WriteScope) async throws
        -> (
            Enrollment, created: Bool
        )
    {
        try await database.transaction(scope) { db in
            let inserted = try await db.raw(
                """
                INSERT INTO challenge_enrollments (member_id, campaign_id, joined_at, join_day)
                VALUES (\(bind: member.rawValue), \(bind: campaign), \(bind: now.storedMillis), \(bind: day.iso))
                ON CONFLICT (member_id, campaign_id) DO NOTHING
                RETURNING member_id
                """
            ).first()
            let enrollment = try await db.raw(
                """
                SELECT campaign_id, joined_at, join_day, completed_on, claimed_at FROM challenge_enrollments
                WHERE member_id = \(bind: member.rawValue) AND campaign_id = \(bind: campaign)
                """
            ).first().map(Self.decodeEnrollment).orNoRow("the enrollment just written")
            return (enrollment, inserted != nil)
        }
    }

    /// Records completion the first time (terminal) and awards the badge in the same
    /// transaction. Returns true when it was recorded now.
    /// Records that the member was shown the campaign's join announcement: true the first time
    /// (the caller shows it), false after (also when another instance showed it a moment ago).
    public func announceOnce(_ member: MemberID, campaign: String, now: Date, scope: WriteScope) async throws -> Bool {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO campaign_announcements (member_id, campaign_id, shown_at)
                VALUES (\(bind: member.rawValue), \(bind: campaign), \(bind: now.storedMillis))
                ON CONFLICT (member_id, campaign_id) DO NOTHING RETURNING member_id
                """
            ).first() != nil
        }
    }

    public func recordCompletion(
        _ member: MemberID, campaign: String, day: LocalDay, badgeTitle: String, now: Date, scope: WriteScope
    )
        async throws -> Bool
    {
        try await database.transaction(scope) { db in
            try await Self.markCompleted(
                member, campaign: campaign, day: day, badgeTitle: badgeTitle, now: now, outbox: outbox, on: db)
        }
    }

    /// The completion's two writes, in the caller's transaction.
    private static func markCompleted(
        _ member: MemberID, campaign: String, day: LocalDay, badgeTitle: String, now: Date, outbox: Outbox?,
        on db: any SQLDatabase
    ) async throws -> Bool {
        let updated = try await db.raw(
            """
            UPDATE challenge_enrollments SET completed_on = \(bind: day.iso)
            WHERE member_id = \(bind: member.rawValue) AND campaign_id = \(bind: campaign) AND completed_on IS NULL
            RETURNING member_id
            """
        ).first()
        guard updated != nil else { return false }
        let badge = "reading-challenge-" + campaign
        let awarded = try await BadgeQueries.award(member, .reading, badge: badge, title: badgeTitle, now: now, on: db)
        try await outbox?.record(
            .readingChallengeCompleted, member: member,
            data: OutboxData.ReadingChallengeCompleted(
                memberId: member.rawValue, campaignId: campaign, completedOn: day.iso),
            id: UUID().uuidString.lowercased(), now: now, on: db)
        if awarded {
            try await outbox?.record(
                .badgeAwarded, member: member,
                data: OutboxData.BadgeAwarded(memberId: member.rawValue, badgeId: badge, feature: "reading"),
                id: UUID().uuidString.lowercased(), now: now, on: db)
        }
        return true
    }

    /// Claims the prize once. Returns false when it had been claimed already.
    public func claim(_ member: MemberID, campaign: String, now: Date, scope: WriteScope) async throws -> Bool {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                UPDATE challenge_enrollments SET claimed_at = \(bind: now.storedMillis)
                WHERE member_id = \(bind: member.rawValue) AND campaign_id = \(bind: campaign)
                  AND completed_on IS NOT NULL AND claimed_at IS NULL
                RETURNING member_id
                """
            ).first() != nil
        }
    }

    public func badges(_ member: MemberID) async throws -> [Badge] {
        try await database.withConnection { db in
            try await BadgeQueries.list(member, .reading, on: db).map {
                Badge(id: $0.id, title: $0.title ?? $0.id, awardedAt: $0.awardedAt)
            }
        }
    }

    // MARK: Analytics

    /// Writes events in one transaction, 500 rows a statement (the buffered analytics path
    /// writes 500 at a time). Properties are stored as JSON with sorted keys.
    public func trackBatch(_ events: [AnalyticsEvent]) async throws {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let properties = try events.map { String(decoding: try encoder.encode($0.properties), as: UTF8.self) }
        try await database.transaction(.system) { db in
            for start in stride(from: 0, to: events.count, by: 500) {
                var sql: SQLQueryString =
                    "INSERT INTO analytics_events (id, subject, name, campaign_id, properties, occurred_at) VALUES"
                for index in start..<min(start + 500, events.count) {
                    let event = events[index]
                    sql += index == start ? " " : ", "
                    sql +=
                        "(\(bind: event.id), \(bind: event.subject), \(bind: event.name), \(bind: event.campaign), \(bind: properties[index]), \(bind: event.at.storedMillis))"
                }
                let query = sql
                try await db.raw(query).run()
            }
        }
    }

    /// Distinct subjects per event name for a campaign (the funnel's raw counts).
    public func distinctSubjects(campaign: String) async throws -> [String: Int] {
        try await database.withConnection { db in
            Dictionary(
                uniqueKeysWithValues: try await db.raw(
                    """
                    SELECT name, COUNT(DISTINCT subject) AS n FROM analytics_events WHERE campaign_id = \(bind: campaign) GROUP BY name
                    """
                ).all().map {
                    (try $0.decode(column: "name", as: String.self), try $0.decode(column: "n", as: Int.self))
                })
        }
    }

    /// Whether a subject already has an event of this name for the campaign.
    public func hasEvent(subject: String, name: String, campaign: String) async throws -> Bool {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT 1 AS one FROM analytics_events WHERE campaign_id = \(bind: campaign) AND name = \(bind: name) AND subject = \(bind: subject) LIMIT 1
                """
            ).first() != nil
        }
    }
}
