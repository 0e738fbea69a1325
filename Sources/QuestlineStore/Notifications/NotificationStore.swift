public import Foundation
public import QuestlineCore
import SQLKit

enum NotificationSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(
            table: "notification_preferences", column: "member_id", export: (.notifications, "preferences")),
        PersonalData.Holding(table: "notification_log", column: "member_id", export: (.notifications, "sent")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 810, name: "notifications",
            [
                """
                CREATE TABLE notification_preferences (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    streak_reminders INTEGER NOT NULL,
                    quiet_start INTEGER,
                    quiet_end INTEGER
                )
                """,
                """
                CREATE TABLE notification_log (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    sent_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, kind, local_day)
                )
                """,
            ]),
        Migration(
            version: 811, name: "notification_quest_updates",
            ["ALTER TABLE notification_preferences ADD COLUMN quest_updates INTEGER NOT NULL DEFAULT 1"]),
    ]
}

/// A member's notification settings.
public struct NotificationPreferences: Sendable, Equatable {
    /// "Streak at risk" and "streak lost" reminders.
    public var streakReminders: Bool
    /// "Quest completed" and "unlock granted": their events say when the app may push them.
    public var questUpdates: Bool
    /// No reminder in these hours, and quest updates wait for their end (children: 20:00 to
    /// 07:00 unless set).
    public var quietHours: LocalHours?

    public init(streakReminders: Bool, questUpdates: Bool = true, quietHours: LocalHours?) {
        self.streakReminders = streakReminders
        self.questUpdates = questUpdates
        self.quietHours = quietHours
    }

    /// A member's settings until they change them: everything on; children quiet from 20:00
    /// to 07:00.
    public static func defaults(isChild: Bool) -> NotificationPreferences {
        NotificationPreferences(streakReminders: true, questUpdates: true, quietHours: isChild ? .children : nil)
    }

    /// When the app may push a quest update to this member: `now`, or the end of the quiet
    /// hours in `zone`; nil when they turned quest updates off.
    public func questUpdateAt(_ now: Date, in zone: TimeZone) -> Date? {
        guard questUpdates else { return nil }
        return quietHours?.nextAllowed(after: now, in: zone) ?? now
    }
}

/// A member who read lately, with what the reminder needs.
public struct ReminderCandidate: Sendable, Equatable {
    public let member: MemberID
    public let timeZone: String
    public let isChild: Bool
    public let preferences: NotificationPreferences?
    public let readDays: Set<LocalDay>
    /// Of those, the days with at least three reads (they can repair a break).
    public let repairDays: Set<LocalDay>
    /// The member's rest days and pauses.
    public let allowances: StreakAllowances
}

/// Notification preferences, and the log that makes each reminder happen once per member and
/// local day, on any number of instances.
public struct NotificationStore: Sendable {
    let database: Database
    let outbox: Outbox

    init(_ database: Database, outbox: Outbox) {
        self.database = database
        self.outbox = outbox
    }

    /// The member's settings as they set them (nil until they do).
    public func preferences(_ member: MemberID) async throws -> NotificationPreferences? {
        try await database.withConnection { db in try await Self.preferences(member, on: db) }
    }

    static func preferences(_ member: MemberID, on db: any SQLDatabase) async throws -> NotificationPreferences? {
        try await db.raw(
            """
            SELECT streak_reminders, quest_updates, quiet_start, quiet_end FROM notification_preferences
            WHERE member_id = \(bind: member.rawValue)
            """
        ).first().map(Self.preferences)
    }

    static func preferences(_ row: any SQLRow) throws -> NotificationPreferences {
        let start = try row.decode(column: "quiet_start", as: Int?.self)
        let end = try row.decode(column: "quiet_end", as: Int?.self)
        return NotificationPreferences(
            streakReminders: try row.decode(column: "streak_reminders", as: Int.self) != 0,
            questUpdates: try row.decode(column: "quest_updates", as: Int.self) != 0,
            quietHours: start.flatMap { start in end.map { LocalHours(start: start, end: $0) } })
    }

    public func setPreferences(_ member: MemberID, _ preferences: NotificationPreferences, scope: WriteScope)
        async throws
    {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO notification_preferences (member_id, streak_reminders, quest_updates, quiet_start, quiet_end)
                VALUES (\(bind: member.rawValue), \(bind: preferences.streakReminders ? 1 : 0),
                    \(bind: preferences.questUpdates ? 1 : 0),
                    \(bind: preferences.quietHours?.start), \(bind: preferences.quietHours?.end))
                ON CONFLICT (member_id) DO UPDATE SET streak_reminders = excluded.streak_reminders,
                    quest_updates = excluded.quest_updates, quiet_start = excluded.quiet_start,
                    quiet_end = excluded.quiet_end
                """
            ).run()
        }
    }

    /// One page of the members with a read day on or after `since` (an ISO day, a little before
    /// anyone's yesterday), with their read days from then on: the first `limit` or so members
    /// whose id comes after `after`, in id order. `next` is where the following page starts,
    /// nil after the last one.
    ///
    /// Paged so that a pass holds one page: at a million members, reading every candidate at
    /// once took the server to 2.7 GB (docs/performance.md, "PostgreSQL at scale").
    public func candidates(since: LocalDay, after: MemberID? = nil, limit: Int = 1_000) async throws -> (
        candidates: [ReminderCandidate], next: MemberID?
    ) {
        // A member has at most a row a day since `since`, a handful: read that many rows a member.
        let rowLimit = limit * 8
        // The start is repeated on every table: PostgreSQL then merges the four key orders from
        // there; with it on `reading_days` alone it scanned the others from their first row, a
        // page costing more the further the pass got (seconds a page at a million members).
        let start = after?.rawValue ?? ""
        return try await database.withConnection { db in
            let rows = try await db.raw(
                """
                SELECT m.id, m.time_zone, hm.role, p.streak_reminders, p.quest_updates, p.quiet_start, p.quiet_end, d.local_day,
                       d.reads, sa.body AS allowances
                FROM reading_days d JOIN members m ON m.id = d.owner AND m.id > \(bind: start)
                LEFT JOIN streak_allowances sa ON sa.member_id = m.id AND sa.member_id > \(bind: start)
                LEFT JOIN household_members hm ON hm.member_id = m.id AND hm.member_id > \(bind: start)
                LEFT JOIN notification_preferences p ON p.member_id = m.id AND p.member_id > \(bind: start)
                WHERE d.owner > \(bind: start) AND d.local_day >= \(bind: since.iso)
                ORDER BY d.owner, d.local_day
                LIMIT \(bind: rowLimit)
                """
            ).all()
            var order: [String] = []
            var byMember: [String: ReminderCandidate] = [:]
            var days: [String: Set<LocalDay>] = [:]
            var repairDays: [String: Set<LocalDay>] = [:]
            for row in rows {
                let id = try row.decode(column: "id", as: String.self)
                if let day = LocalDay(iso: try row.decode(column: "local_day", as: String.self)) {
                    days[id, default: []].insert(day)
                    if try row.decode(column: "reads", as: Int.self) >= StreakAllowances.repairReads {
                        repairDays[id, default: []].insert(day)
                    }
                }
                if byMember[id] == nil {
                    order.append(id)
                    let hasPreferences = try row.decode(column: "streak_reminders", as: Int?.self) != nil
                    byMember[id] = ReminderCandidate(
                        member: try MemberID.parse(id, field: "member"),
                        timeZone: try row.decode(column: "time_zone", as: String.self),
                        isChild: try row.decode(column: "role", as: String?.self) == "child",
                        preferences: hasPreferences ? try Self.preferences(row) : nil, readDays: [], repairDays: [],
                        allowances: try StreakSettingsSchema.decode(
                            try row.decode(column: "allowances", as: String?.self)))
                }
            }
            // A full page may end inside its last member's days: that member starts the next page.
            let full = rows.count == rowLimit
            if full, order.count > 1 { order.removeLast() }
            let candidates = order.compactMap { id in
                byMember[id].map {
                    ReminderCandidate(
                        member: $0.member, timeZone: $0.timeZone, isChild: $0.isChild, preferences: $0.preferences,
                        readDays: days[id] ?? [], repairDays: repairDays[id] ?? [], allowances: $0.allowances)
                }
            }
            return (candidates, full ? candidates.last?.member : nil)
        }
    }

    /// Records that `kind` went to `member` for `day` and writes its event, in one transaction;
    /// false when it had gone already (from this instance or another).
    public func send(
        _ kind: OutboxEventType, to member: MemberID, day: LocalDay, streak: Int, eventID: String, now: Date,
        scope: WriteScope
    ) async throws -> Bool {
        try await database.transaction(scope) { db in
            guard
                try await db.raw(
                    """
                    INSERT INTO notification_log (member_id, kind, local_day, sent_at)
                    VALUES (\(bind: member.rawValue), \(bind: kind.rawValue), \(bind: day.iso), \(bind: now.storedMillis))
                    ON CONFLICT (member_id, kind, local_day) DO NOTHING RETURNING member_id
                    """
                ).first() != nil
            else { return false }
            try await outbox.record(
                kind, member: member, data: OutboxData.ReadingStreak(memberId: member.rawValue, streak: streak),
                id: eventID, now: now, on: db)
            return true
        }
    }
}

extension NotificationStore {
    /// One page of the members who read from `from` through `through` (ISO days, a little
    /// wider than any zone's month) and have had no `recap.ready` since `sentSince`, with their
    /// zones, in id order after `after`.
    public func recapCandidates(
        from: LocalDay, through: LocalDay, sentSince: LocalDay, after: MemberID?, limit: Int = 1_000
    ) async throws -> (members: [(member: MemberID, timeZone: String)], next: MemberID?) {
        let start = after?.rawValue ?? ""
        return try await database.withConnection { db in
            let rows = try await db.raw(
                """
                SELECT m.id, m.time_zone FROM members m
                WHERE m.id > \(bind: start) AND EXISTS (
                    SELECT 1 FROM reading_days d WHERE d.owner = m.id
                    AND d.local_day >= \(bind: from.iso) AND d.local_day <= \(bind: through.iso))
                AND NOT EXISTS (
                    SELECT 1 FROM notification_log l WHERE l.member_id = m.id
                    AND l.kind = \(bind: OutboxEventType.recapReady.rawValue) AND l.local_day >= \(bind: sentSince.iso))
                ORDER BY m.id LIMIT \(bind: limit)
                """
            ).all()
            let members: [(member: MemberID, timeZone: String)] = try rows.map {
                (
                    member: try MemberID.parse(try $0.decode(column: "id", as: String.self), field: "member"),
                    timeZone: try $0.decode(column: "time_zone", as: String.self)
                )
            }
            return (members, rows.count == limit ? members.last?.member : nil)
        }
    }

    /// Records that the recap of `period` was decided for `member` and, with `event`, writes its
    /// `recap.ready` event: once (the log's key is the member, the kind and `day`, the period's
    /// marker day). Without `event` (nothing to recap) the row only keeps the member out of the
    /// following passes. Returns whether an event was written now.
    public func sendRecapReady(
        _ member: MemberID, period: String, day: LocalDay, event: Bool, eventID: String, now: Date, scope: WriteScope
    ) async throws -> Bool {
        try await database.transaction(scope) { db in
            guard
                try await db.raw(
                    """
                    INSERT INTO notification_log (member_id, kind, local_day, sent_at)
                    VALUES (\(bind: member.rawValue), \(bind: OutboxEventType.recapReady.rawValue), \(bind: day.iso), \(bind: now.storedMillis))
                    ON CONFLICT (member_id, kind, local_day) DO NOTHING RETURNING member_id
                    """
                ).first() != nil
            else { return false }
            guard event else { return false }
            try await outbox.record(
                .recapReady, member: member, data: OutboxData.RecapReady(memberId: member.rawValue, period: period),
                id: eventID, now: now, on: db)
            return true
        }
    }
}

extension OutboxData {
    public struct RecapReady: Codable, Sendable, Equatable {
        public let memberId: String
        public let period: String
    }

    public struct ReadingStreak: Codable, Sendable, Equatable {
        public let memberId: String
        public let streak: Int
    }
}
