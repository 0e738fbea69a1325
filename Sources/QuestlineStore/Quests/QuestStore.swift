public import Foundation
public import QuestlineCore
import SQLKit

enum QuestSchema: StoreModule {
    /// Other members' ledger entries and quests forget that the deleted member made them.
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws {
        let id = member.id.rawValue
        try await db.raw("UPDATE points_ledger SET created_by = NULL WHERE created_by = \(bind: id)").run()
        // A quest keeps '' as its maker (read as nil): the column predates deletions.
        try await db.raw("UPDATE challenges SET created_by = '' WHERE created_by = \(bind: id)").run()
    }

    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "points_balances", column: "member_id", export: (.points, "balance")),
        PersonalData.Holding(table: "points_ledger", column: "member_id", export: (.points, "ledger")),
        PersonalData.Holding(table: "quest_apps", column: "child_id", export: (.quests, "apps")),
        PersonalData.Holding(table: "challenges", column: "assignee_id", export: (.quests, "quests")),
        PersonalData.Holding(table: "usage_reports", column: "child_id", export: (.quests, "usage")),
        PersonalData.Holding(table: "quest_earnings", column: "child_id", export: (.quests, "earnings")),
        PersonalData.Holding(
            table: "quest_completions", column: "child_id", export: (.quests, "completions"), withoutForeignKey: true),
        PersonalData.Holding(table: "quest_learning_runs", column: "child_id", export: (.quests, "learningRuns")),
        PersonalData.Holding(table: "quest_stats", column: "child_id", export: (.quests, "stats")),
        PersonalData.Holding(table: "unlock_grants", column: "child_id", export: (.quests, "unlocks")),
        PersonalData.Holding(table: "shield_rules", column: "child_id", export: (.quests, "screenTimeRules")),
        PersonalData.Holding(table: "time_requests", column: "child_id", export: (.quests, "timeRequests")),
        PersonalData.Holding(table: "device_apps", column: "child_id", export: (.quests, "deviceApps")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 400, name: "family_quests",
            [
                """
                CREATE TABLE quest_apps (
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    name TEXT NOT NULL,
                    icon TEXT NOT NULL,
                    role TEXT NOT NULL CHECK (role IN ('learning', 'reward')),
                    points_per_minute BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (child_id, token)
                )
                """,
                """
                CREATE TABLE quest_settings (
                    household_id TEXT PRIMARY KEY REFERENCES households(id) ON DELETE CASCADE,
                    points_per_minute BIGINT NOT NULL,
                    min_minutes BIGINT NOT NULL,
                    max_minutes BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE challenges (
                    id TEXT PRIMARY KEY,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    assignee_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    spec TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('active', 'paused')),
                    created_by TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    deleted_at BIGINT,
                    position BIGINT NOT NULL
                )
                """,
                "CREATE INDEX challenges_by_assignee ON challenges (assignee_id)",
                "CREATE INDEX challenges_by_household ON challenges (household_id)",
                """
                CREATE TABLE usage_reports (
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    report_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    started_at BIGINT NOT NULL,
                    seconds BIGINT NOT NULL,
                    time_zone TEXT NOT NULL,
                    received_at BIGINT NOT NULL,
                    PRIMARY KEY (child_id, report_id)
                )
                """,
                "CREATE INDEX usage_reports_by_child_time ON usage_reports (child_id, started_at)",
                """
                CREATE TABLE quest_earnings (
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    minutes BIGINT NOT NULL,
                    points BIGINT NOT NULL,
                    PRIMARY KEY (child_id, token, local_day)
                )
                """,
                """
                CREATE TABLE points_balances (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    balance BIGINT NOT NULL CHECK (balance >= 0),
                    earned BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE points_ledger (
                    id TEXT PRIMARY KEY,
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('earn', 'bonus', 'redeem', 'adjust', 'story', 'task', 'purchase')),
                    points BIGINT NOT NULL,
                    balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
                    reason TEXT NOT NULL,
                    challenge_id TEXT,
                    created_by TEXT,
                    created_at BIGINT NOT NULL,
                    seq BIGINT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX points_ledger_by_member ON points_ledger (member_id, seq)",
                """
                CREATE TABLE quest_completions (
                    challenge_id TEXT NOT NULL REFERENCES challenges(id) ON DELETE CASCADE,
                    period_key TEXT NOT NULL,
                    child_id TEXT NOT NULL,
                    value BIGINT NOT NULL,
                    bonus BIGINT NOT NULL,
                    completed_at BIGINT NOT NULL,
                    PRIMARY KEY (challenge_id, period_key)
                )
                """,
                "CREATE INDEX quest_completions_by_child ON quest_completions (child_id)",
                """
                CREATE TABLE unlock_grants (
                    id TEXT PRIMARY KEY,
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    minutes BIGINT NOT NULL,
                    starts_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    challenge_id TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX unlock_grants_by_child ON unlock_grants (child_id, expires_at)",
                """
                CREATE TABLE quest_badges (
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    badge_id TEXT NOT NULL,
                    awarded_at BIGINT NOT NULL,
                    PRIMARY KEY (child_id, badge_id)
                )
                """,
            ]),
        // Per-child summaries kept in the same transaction as the usage that changes them, so
        // a board reads totals and streaks with point lookups instead of the child's history.
        Migration(version: 401, name: "quest_summaries") { flavor in
            // Day numbers for the gaps-and-islands backfill of learning runs.
            let dayNumber =
                flavor == .postgres
                ? "(CAST(local_day AS DATE) - DATE '1970-01-01')" : "CAST(julianday(local_day) - 2440587.5 AS INTEGER)"
            let runLength =
                flavor == .postgres
                ? "(CAST(last_day AS DATE) - CAST(first_day AS DATE) + 1)"
                : "CAST(julianday(last_day) - julianday(first_day) + 1 AS INTEGER)"
            return [
                """
                CREATE TABLE quest_learning_runs (
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    first_day TEXT NOT NULL,
                    last_day TEXT NOT NULL,
                    PRIMARY KEY (child_id, first_day)
                )
                """,
                """
                CREATE TABLE quest_stats (
                    child_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    learning_minutes BIGINT NOT NULL,
                    completions BIGINT NOT NULL,
                    best_streak BIGINT NOT NULL
                )
                """,
                "ALTER TABLE challenges ADD COLUMN completions BIGINT NOT NULL DEFAULT 0",
                """
                UPDATE challenges SET completions = (SELECT COUNT(*) FROM quest_completions c WHERE c.challenge_id = challenges.id)
                """,
                """
                INSERT INTO quest_learning_runs (child_id, first_day, last_day)
                SELECT child_id, MIN(local_day), MAX(local_day) FROM (
                    SELECT child_id, local_day, \(dayNumber) - ROW_NUMBER() OVER (PARTITION BY child_id ORDER BY local_day) AS island
                    FROM (SELECT child_id, local_day FROM quest_earnings GROUP BY child_id, local_day HAVING SUM(minutes) > 0) learning
                ) days GROUP BY child_id, island
                """,
                """
                INSERT INTO quest_stats (child_id, learning_minutes, completions, best_streak)
                SELECT child_id,
                    COALESCE((SELECT SUM(minutes) FROM quest_earnings e WHERE e.child_id = children.child_id), 0),
                    (SELECT COUNT(*) FROM quest_completions c WHERE c.child_id = children.child_id),
                    COALESCE((SELECT MAX(\(runLength)) FROM quest_learning_runs r WHERE r.child_id = children.child_id), 0)
                FROM (SELECT child_id FROM quest_earnings UNION SELECT child_id FROM quest_completions) children
                """,
            ]
        },
        // The ledger's last sequence number kept on the balance row, so that appending entries
        // is one write of the balance (returning where the sequence stands) and one insert,
        // not also a `MAX(seq)` read of the ledger.
        Migration(
            version: 840, name: "ledger_sequence",
            [
                "ALTER TABLE points_balances ADD COLUMN ledger_seq BIGINT NOT NULL DEFAULT 0",
                """
                UPDATE points_balances SET ledger_seq = (
                    SELECT COALESCE(MAX(seq), 0) FROM points_ledger l WHERE l.member_id = points_balances.member_id)
                """,
            ]),
        Migration(version: 832, name: "device_apps") { flavor in
            [
                """
                CREATE TABLE device_apps (
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    name TEXT NOT NULL,
                    category TEXT NOT NULL,
                    icon \(flavor == .postgres ? "BYTEA" : "BLOB"),
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (child_id, token)
                )
                """
            ]
        },
        Migration(
            version: 831, name: "time_requests",
            [
                """
                CREATE TABLE time_requests (
                    id TEXT PRIMARY KEY,
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    app_token TEXT NOT NULL,
                    minutes INTEGER NOT NULL,
                    note TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
                    created_at BIGINT NOT NULL,
                    decided_at BIGINT,
                    decided_by TEXT REFERENCES members(id) ON DELETE SET NULL,
                    grant_id TEXT
                )
                """,
                "CREATE INDEX time_requests_by_child ON time_requests (child_id, created_at)",
            ]),
        Migration(
            version: 830, name: "shield_rules",
            [
                """
                CREATE TABLE shield_rules (
                    child_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    reward_days TEXT NOT NULL,
                    downtime_start INTEGER,
                    downtime_end INTEGER,
                    updated_at BIGINT NOT NULL
                )
                """
            ]),
    ]
}

/// Family quests: catalogs, quests, usage reports, the points ledger, completions,
/// unlock grants and badges. Writes go through `write`, one transaction per use case.
public struct QuestStore: Sendable {
    let database: Database
    let live: LiveEventLog

    init(_ database: Database, live: LiveEventLog) {
        self.database = database
        self.live = live
    }

    public func read<T: Sendable>(_ body: (QuestQueries) async throws -> T) async throws -> T {
        try await database.withConnection { db in try await body(QuestQueries(db: db, live: nil)) }
    }

    /// One transaction; events announced through `QuestQueries.live` are published if it commits.
    public func write<T: Sendable>(_ scope: WriteScope, _ body: (QuestQueries) async throws -> T) async throws -> T {
        try await live.write(scope) { db, announcer in try await body(QuestQueries(db: db, live: announcer)) }
    }
}

/// The queries, on one connection (inside a transaction when obtained from `write`).
public struct QuestQueries: Sendable {
    let db: any SQLDatabase
    /// Announces household events with the write (nil when reading).
    public let live: LiveAnnouncer?

    /// The member's notification settings (nil until they set them): quest events say when
    /// the app may push them.
    public func notificationPreferences(_ member: MemberID) async throws -> NotificationPreferences? {
        try await NotificationStore.preferences(member, on: db)
    }

    // MARK: Shield rules

    /// The child's screen-time rules; `ShieldRules.open` until a guardian sets them.
    public func shieldRules(_ child: MemberID) async throws -> ShieldRules {
        guard
            let row = try await db.raw(
                """
                SELECT reward_days, downtime_start, downtime_end FROM shield_rules WHERE child_id = \(bind: child.rawValue)
                """
            ).first()
        else { return .open }
        let days = try row.decode(column: "reward_days", as: String.self).split(separator: ",").compactMap { Int($0) }
        let start = try row.decode(column: "downtime_start", as: Int?.self)
        let end = try row.decode(column: "downtime_end", as: Int?.self)
        return ShieldRules(
            rewardDays: Set(days), downtime: start.flatMap { start in end.map { LocalHours(start: start, end: $0) } })
    }

    public func setShieldRules(_ child: MemberID, _ rules: ShieldRules, now: Date) async throws {
        let days = rules.rewardDays.sorted().map(String.init).joined(separator: ",")
        try await db.raw(
            """
            INSERT INTO shield_rules (child_id, reward_days, downtime_start, downtime_end, updated_at)
            VALUES (\(bind: child.rawValue), \(bind: days), \(bind: rules.downtime?.start), \(bind: rules.downtime?.end), \(bind: now.storedMillis))
            ON CONFLICT (child_id) DO UPDATE SET reward_days = excluded.reward_days,
                downtime_start = excluded.downtime_start, downtime_end = excluded.downtime_end,
                updated_at = excluded.updated_at
            """
        ).run()
    }

    // MARK: The device's app catalog

    /// Replaces what the device said is installed.
    public func replaceDeviceApps(_ child: MemberID, _ apps: [DeviceApp], now: Date) async throws {
        try await db.raw("DELETE FROM device_apps WHERE child_id = \(bind: child.rawValue)").run()
        for app in apps {
            try await db.raw(
                """
                INSERT INTO device_apps (child_id, token, name, category, icon, updated_at)
                VALUES (\(bind: child.rawValue), \(bind: app.token), \(bind: app.name), \(bind: app.category),
                        \(bind: app.icon.map { Data($0) }), \(bind: now.storedMillis))
                """
            ).run()
        }
    }

    /// The device's apps in name order, without their icons (`hasIcon` says whether one is kept).
    public func deviceApps(_ child: MemberID) async throws -> [(app: DeviceApp, hasIcon: Bool)] {
        try await db.raw(
            """
            SELECT token, name, category, CASE WHEN icon IS NULL THEN 0 ELSE 1 END AS has_icon FROM device_apps
            WHERE child_id = \(bind: child.rawValue) ORDER BY name, token
            """
        ).all().map { row in
            (
                DeviceApp(
                    token: try row.decode(column: "token", as: String.self),
                    name: try row.decode(column: "name", as: String.self),
                    category: try row.decode(column: "category", as: String.self), icon: nil),
                try row.decode(column: "has_icon", as: Int.self) == 1
            )
        }
    }

    public func deviceIcon(_ child: MemberID, token: String) async throws -> [UInt8]? {
        try await db.raw(
            "SELECT icon FROM device_apps WHERE child_id = \(bind: child.rawValue) AND token = \(bind: token)"
        ).first().flatMap { try $0.decode(column: "icon", as: Data?.self) }.map { [UInt8]($0) }
    }

    // MARK: Weekly report

    /// What a week's report is made of: learning minutes by local day (`first`…`last`), and the
    /// instants of completions and ledger entries (with their points) between `from` and `to`.
    public func reportRows(_ child: MemberID, first: LocalDay, last: LocalDay, from: Date, to: Date) async throws -> (
        learning: [LocalDay: Int], completions: [Date], ledger: [(at: Date, points: Int)]
    ) {
        var learning: [LocalDay: Int] = [:]
        for row in try await db.raw(
            """
            SELECT local_day, CAST(SUM(minutes) AS BIGINT) AS minutes FROM quest_earnings
            WHERE child_id = \(bind: child.rawValue) AND local_day >= \(bind: first.iso) AND local_day <= \(bind: last.iso)
            GROUP BY local_day
            """
        ).all() {
            if let day = LocalDay(iso: try row.decode(column: "local_day", as: String.self)) {
                learning[day] = Int(try row.decode(column: "minutes", as: Int64.self))
            }
        }
        let completions = try await db.raw(
            """
            SELECT completed_at FROM quest_completions WHERE child_id = \(bind: child.rawValue)
            AND completed_at >= \(bind: from.storedMillis) AND completed_at < \(bind: to.storedMillis)
            """
        ).all().map { Date(storedMillis: try $0.decode(column: "completed_at", as: Int64.self)) }
        let ledger = try await db.raw(
            """
            SELECT created_at, points FROM points_ledger WHERE member_id = \(bind: child.rawValue)
            AND created_at >= \(bind: from.storedMillis) AND created_at < \(bind: to.storedMillis)
            """
        ).all().map {
            (
                at: Date(storedMillis: try $0.decode(column: "created_at", as: Int64.self)),
                points: Int(try $0.decode(column: "points", as: Int64.self))
            )
        }
        return (learning, completions, ledger)
    }

    /// The learning app a child used most in `first`…`last` (by earned minutes), by name.
    public func topLearningApp(_ child: MemberID, first: LocalDay, last: LocalDay) async throws -> String? {
        try await db.raw(
            """
            SELECT a.name, CAST(SUM(e.minutes) AS BIGINT) AS minutes FROM quest_earnings e
            JOIN quest_apps a ON a.child_id = e.child_id AND a.token = e.token
            WHERE e.child_id = \(bind: child.rawValue) AND e.local_day >= \(bind: first.iso) AND e.local_day <= \(bind: last.iso)
            GROUP BY a.name ORDER BY minutes DESC, a.name LIMIT 1
            """
        ).first()?.decode(column: "name", as: String.self)
    }

    // MARK: Requests for more time

    public func insertRequest(_ request: TimeRequest) async throws {
        try await db.raw(
            """
            INSERT INTO time_requests (id, child_id, app_token, minutes, note, state, created_at)
            VALUES (\(bind: request.id), \(bind: request.child.rawValue), \(bind: request.appToken), \(bind: request.minutes),
                    \(bind: request.note), 'pending', \(bind: request.createdAt.storedMillis))
            """
        ).run()
    }

    /// The child's requests, newest first.
    public func requests(_ child: MemberID, limit: Int = 50) async throws -> [TimeRequest] {
        try await db.raw(
            """
            SELECT id, child_id, app_token, minutes, note, state, created_at, decided_at FROM time_requests
            WHERE child_id = \(bind: child.rawValue) ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)
            """
        ).all().map(Self.request)
    }

    /// The requests of `children` still waiting for an answer, oldest first, each with its
    /// app's name in the child's catalogue (nil when the app is gone), in one statement.
    public func pendingRequests(_ children: [MemberID]) async throws -> [(request: TimeRequest, appName: String?)] {
        guard !children.isEmpty else { return [] }
        return try await db.raw(
            """
            SELECT r.id, r.child_id, r.app_token, r.minutes, r.note, r.state, r.created_at, r.decided_at,
                a.name AS app_name
            FROM time_requests r LEFT JOIN quest_apps a ON a.child_id = r.child_id AND a.token = r.app_token
            WHERE r.child_id IN (\(SQLList(children.map { SQLBind($0.rawValue) }))) AND r.state = 'pending'
            ORDER BY r.created_at, r.id LIMIT 100
            """
        ).all().map { row in (try Self.request(row), try row.decode(column: "app_name", as: String?.self)) }
    }

    public func request(_ id: String) async throws -> TimeRequest? {
        try await db.raw(
            """
            SELECT id, child_id, app_token, minutes, note, state, created_at, decided_at FROM time_requests
            WHERE id = \(bind: id)
            """
        ).first().map(Self.request)
    }

    static func request(_ row: any SQLRow) throws -> TimeRequest {
        TimeRequest(
            id: try row.decode(column: "id", as: String.self),
            child: try MemberID.parse(try row.decode(column: "child_id", as: String.self), field: "child"),
            appToken: try row.decode(column: "app_token", as: String.self),
            minutes: try row.decode(column: "minutes", as: Int.self),
            note: try row.decode(column: "note", as: String.self),
            state: TimeRequest.State(rawValue: try row.decode(column: "state", as: String.self)) ?? .pending,
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)),
            decidedAt: try row.decode(column: "decided_at", as: Int64?.self).map { Date(storedMillis: $0) })
    }

    /// How many of the child's requests wait for an answer, and how many were made since `since`.
    public func requestCounts(_ child: MemberID, since: Date) async throws -> (pending: Int, since: Int) {
        let row = try await db.raw(
            """
            SELECT COALESCE(SUM(CASE WHEN state = 'pending' THEN 1 ELSE 0 END), 0) AS pending,
                   COALESCE(SUM(CASE WHEN created_at >= \(bind: since.storedMillis) THEN 1 ELSE 0 END), 0) AS recent
            FROM time_requests WHERE child_id = \(bind: child.rawValue)
            """
        ).first()
        return (
            try row?.decode(column: "pending", as: Int.self) ?? 0, try row?.decode(column: "recent", as: Int.self) ?? 0
        )
    }

    /// Answers a pending request; false when it was answered already (by anyone, anywhere).
    public func decide(
        _ id: String, state: TimeRequest.State, by guardian: MemberID, grant: String?, now: Date
    ) async throws -> Bool {
        try await db.raw(
            """
            UPDATE time_requests SET state = \(bind: state.rawValue), decided_at = \(bind: now.storedMillis),
                decided_by = \(bind: guardian.rawValue), grant_id = \(bind: grant)
            WHERE id = \(bind: id) AND state = 'pending' RETURNING id
            """
        ).first() != nil
    }

    // MARK: Catalog

    public func apps(_ child: MemberID) async throws -> [QuestApp] {
        try await db.raw(
            """
            SELECT token, name, icon, role, points_per_minute FROM quest_apps WHERE child_id = \(bind: child.rawValue) ORDER BY role, name, token
            """
        ).all().map { row in
            QuestApp(
                token: try row.decode(column: "token", as: String.self),
                name: try row.decode(column: "name", as: String.self),
                icon: try row.decode(column: "icon", as: String.self),
                role: AppRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .learning,
                pointsPerMinute: Int(try row.decode(column: "points_per_minute", as: Int64.self)))
        }
    }

    /// Adds an app or replaces the one with the same token.
    public func putApp(_ child: MemberID, _ app: QuestApp, now: Date) async throws {
        try await db.raw(
            """
            INSERT INTO quest_apps (child_id, token, name, icon, role, points_per_minute, created_at)
            VALUES (\(bind: child.rawValue), \(bind: app.token), \(bind: app.name), \(bind: app.icon), \(bind: app.role.rawValue), \(bind: Int64(app.pointsPerMinute)), \(bind: now.storedMillis))
            ON CONFLICT (child_id, token) DO UPDATE SET name = excluded.name, icon = excluded.icon, role = excluded.role,
                points_per_minute = excluded.points_per_minute
            """
        ).run()
    }

    public func deleteApp(_ child: MemberID, token: String) async throws -> Bool {
        try await db.raw(
            """
            DELETE FROM quest_apps WHERE child_id = \(bind: child.rawValue) AND token = \(bind: token) RETURNING token
            """
        ).first() != nil
    }

    // MARK: Settings

    public func rules(_ household: HouseholdID) async throws -> RedemptionRules {
        guard
            let row = try await db.raw(
                """
                SELECT points_per_minute, min_minutes, max_minutes FROM quest_settings WHERE household_id = \(bind: household.rawValue)
                """
            ).first()
        else { return .standard }
        return RedemptionRules(
            pointsPerMinute: Int(try row.decode(column: "points_per_minute", as: Int64.self)),
            minMinutes: Int(try row.decode(column: "min_minutes", as: Int64.self)),
            maxMinutes: Int(try row.decode(column: "max_minutes", as: Int64.self)))
    }

    public func setRules(_ household: HouseholdID, _ rules: RedemptionRules) async throws {
        try await db.raw(
            """
            INSERT INTO quest_settings (household_id, points_per_minute, min_minutes, max_minutes)
            VALUES (\(bind: household.rawValue), \(bind: Int64(rules.pointsPerMinute)), \(bind: Int64(rules.minMinutes)), \(bind: Int64(rules.maxMinutes)))
            ON CONFLICT (household_id) DO UPDATE SET points_per_minute = excluded.points_per_minute,
                min_minutes = excluded.min_minutes, max_minutes = excluded.max_minutes
            """
        ).run()
    }

    // MARK: Quests

    static let specEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    public func insertQuest(_ quest: Quest) async throws {
        let spec = String(decoding: try Self.specEncoder.encode(quest.spec), as: UTF8.self)
        try await db.raw(
            """
            INSERT INTO challenges (id, household_id, assignee_id, spec, status, created_by, created_at, updated_at, position)
            VALUES (\(bind: quest.id.rawValue), \(bind: quest.householdID.rawValue), \(bind: quest.spec.assignee.rawValue),
                    \(bind: spec), \(bind: quest.status.rawValue), \(bind: quest.createdBy?.rawValue ?? ""),
                    \(bind: quest.createdAt.storedMillis), \(bind: quest.createdAt.storedMillis),
                    (SELECT COALESCE(MAX(position), 0) + 1 FROM challenges WHERE household_id = \(bind: quest.householdID.rawValue)))
            """
        ).run()
    }

    public func updateQuest(_ quest: Quest, now: Date) async throws {
        let spec = String(decoding: try Self.specEncoder.encode(quest.spec), as: UTF8.self)
        try await db.raw(
            """
            UPDATE challenges SET spec = \(bind: spec), status = \(bind: quest.status.rawValue),
                assignee_id = \(bind: quest.spec.assignee.rawValue), updated_at = \(bind: now.storedMillis)
            WHERE id = \(bind: quest.id.rawValue) AND deleted_at IS NULL
            """
        ).run()
    }

    /// Marks a quest deleted: it leaves every list and stops counting; its completions,
    /// ledger entries and grants stay (the ledger is append-only).
    public func deleteQuest(_ id: QuestID, now: Date) async throws -> Bool {
        try await db.raw(
            """
            UPDATE challenges SET deleted_at = \(bind: now.storedMillis) WHERE id = \(bind: id.rawValue) AND deleted_at IS NULL RETURNING id
            """
        ).first() != nil
    }

    private static let questColumns = "id, household_id, spec, status, created_by, created_at, completions"

    /// Quest specs by their stored text (see `DecodedJSONCache`).
    static let specs = DecodedJSONCache<QuestSpec>()

    private func decodeQuest(_ row: any SQLRow) throws -> Quest {
        let spec = try QuestQueries.specs.decode(try row.decode(column: "spec", as: String.self))
        return Quest(
            id: try row.decode(column: "id", as: QuestID.self),
            householdID: try row.decode(column: "household_id", as: HouseholdID.self), spec: spec,
            status: QuestStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .paused,
            // Empty once its maker's account was deleted (`QuestSchema.forget`).
            createdBy: MemberID(try row.decode(column: "created_by", as: String.self)),
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)),
            completions: Int(try row.decode(column: "completions", as: Int64.self)))
    }

    public func quest(_ id: QuestID) async throws -> Quest? {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.questColumns) FROM challenges WHERE id = \(bind: id.rawValue) AND deleted_at IS NULL
            """
        ).first().map(decodeQuest)
    }

    /// A child's live quests (active and paused), oldest first.
    public func quests(assignee: MemberID) async throws -> [Quest] {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.questColumns) FROM challenges WHERE assignee_id = \(bind: assignee.rawValue) AND deleted_at IS NULL
            ORDER BY position
            """
        ).all().map(decodeQuest)
    }

    /// Every quest of a household's children, in each child's order.
    public func quests(household: HouseholdID) async throws -> [Quest] {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.questColumns) FROM challenges
            WHERE household_id = \(bind: household.rawValue) AND deleted_at IS NULL ORDER BY position
            """
        ).all().map(decodeQuest)
    }

    /// What a guardian's console shows of each child besides its quests, for all of them in one
    /// statement (a `UNION ALL` told apart by `kind`): the balance, the number of apps, and the
    /// learning run that makes the child's current streak (each on the child's own today).
    public func consoleFacts(_ children: [(child: MemberID, today: LocalDay)]) async throws -> [MemberID: ConsoleFacts]
    {
        guard !children.isEmpty else { return [:] }
        let ids = SQLList(children.map { SQLBind($0.child.rawValue) })
        var parts: [SQLQueryString] = [
            """
            SELECT 'points' AS kind, member_id AS child, '' AS a, '' AS b, balance AS n1, CAST(0 AS BIGINT) AS n2,
                CAST(0 AS BIGINT) AS n3
            FROM points_balances WHERE member_id IN (\(ids))
            """,
            """
            SELECT 'apps' AS kind, child_id AS child, '' AS a, '' AS b, CAST(COUNT(*) AS BIGINT) AS n1,
                CAST(0 AS BIGINT) AS n2, CAST(0 AS BIGINT) AS n3
            FROM quest_apps WHERE child_id IN (\(ids)) GROUP BY child_id
            """,
        ]
        parts += children.map { Self.runStarting($0.child, onOrBefore: $0.today, as: "latest") }
        var facts: [MemberID: ConsoleFacts] = [:]
        for row in try await db.raw(parts.joined(separator: " UNION ALL ")).all() {
            let child = try row.decode(column: "child", as: MemberID.self)
            let n = Int(try row.decode(column: "n1", as: Int64.self))
            switch try row.decode(column: "kind", as: String.self) {
            case "points": facts[child, default: ConsoleFacts()].balance = n
            case "apps": facts[child, default: ConsoleFacts()].apps = n
            default:
                facts[child, default: ConsoleFacts()].latestRun = DayRun(
                    first: try row.decode(column: "a", as: LocalDay.self),
                    last: try row.decode(column: "b", as: LocalDay.self))
            }
        }
        return facts
    }

    // MARK: Usage

    /// Stores the reports not seen before; returns the ids that were new. A known id with
    /// different content is returned in `conflicting` (and nothing is stored for it). Two
    /// statements however many reports: one insert that skips known ids and returns the new ones,
    /// and, when some were known, one read of those to compare.
    public func insertReports(_ child: MemberID, _ reports: [StoredUsageReport], now: Date) async throws -> (
        new: Set<String>, conflicting: [String]
    ) {
        guard !reports.isEmpty else { return ([], []) }
        let kid = SQLBind(child.rawValue)
        let rows = reports.map { report in
            let r = report.record
            return SQLGroupExpression([
                kid, SQLBind(report.id), SQLBind(r.token), SQLBind(r.start.storedMillis), SQLBind(Int64(r.seconds)),
                SQLBind(r.zone.identifier), SQLBind(now.storedMillis),
            ])
        }
        let new = Set(
            try await db.raw(
                """
                INSERT INTO usage_reports (child_id, report_id, token, started_at, seconds, time_zone, received_at)
                VALUES \(SQLList(rows))
                ON CONFLICT (child_id, report_id) DO NOTHING RETURNING report_id
                """
            ).all().map { try $0.decode(column: "report_id", as: String.self) })
        // A report sent twice in one request is new once; its second copy is compared below.
        var seen = Set<String>()
        let known = reports.filter { !new.contains($0.id) || !seen.insert($0.id).inserted }
        guard !known.isEmpty else { return (new, []) }
        let ids = SQLList(Set(known.map(\.id)).sorted().map { SQLBind($0) })
        var stored: [String: (token: String, start: Int64, seconds: Int64, zone: String)] = [:]
        for row in try await db.raw(
            """
            SELECT report_id, token, started_at, seconds, time_zone FROM usage_reports
            WHERE child_id = \(kid) AND report_id IN (\(ids))
            """
        ).all() {
            stored[try row.decode(column: "report_id", as: String.self)] = (
                try row.decode(column: "token", as: String.self), try row.decode(column: "started_at", as: Int64.self),
                try row.decode(column: "seconds", as: Int64.self), try row.decode(column: "time_zone", as: String.self)
            )
        }
        let conflicting = known.filter { report in
            guard let kept = stored[report.id] else { return false }
            let r = report.record
            return kept.token != r.token || kept.start != r.start.storedMillis || kept.seconds != Int64(r.seconds)
                || kept.zone != r.zone.identifier
        }.map(\.id)
        return (new, conflicting)
    }

    /// Reports that started in `[from, to)`, oldest first.
    public func reports(_ child: MemberID, from: Date, to: Date) async throws -> [UsageRecord] {
        try await db.raw(
            """
            SELECT token, started_at, seconds, time_zone FROM usage_reports
            WHERE child_id = \(bind: child.rawValue) AND started_at >= \(bind: from.storedMillis) AND started_at < \(bind: to.storedMillis)
            ORDER BY started_at
            """
        ).all().map { row in
            UsageRecord(
                token: try row.decode(column: "token", as: String.self),
                start: Date(storedMillis: try row.decode(column: "started_at", as: Int64.self)),
                seconds: Int(try row.decode(column: "seconds", as: Int64.self)),
                zone: TimeZoneID(try row.decode(column: "time_zone", as: String.self)) ?? .utc)
        }
    }

    /// The reports `reports(from:to:)` gives, kept with their span for readers of parts of it.
    public func usage(_ child: MemberID, from: Date, to: Date) async throws -> UsageSpan {
        UsageSpan(from: from, to: to, records: try await reports(child, from: from, to: to))
    }

    public func reportCount(_ child: MemberID) async throws -> Int {
        Int(
            try await db.raw("SELECT COUNT(*) AS n FROM usage_reports WHERE child_id = \(bind: child.rawValue)")
                .first()?
                .decode(column: "n", as: Int64.self) ?? 0)
    }

    // MARK: Learning totals and streaks (kept as the usage is settled)

    /// The child's totals: learning minutes, completed periods, best streak, and the learning
    /// run that makes today's streak (part of `totals`).
    public func learningSummary(_ child: MemberID, today: LocalDay) async throws -> LearningSummary {
        try await totals(child, today: today).summary
    }

    /// The member's points (one ledger for the whole product), on this connection.
    public var points: PointsLedger { PointsLedger(db: db, events: live) }

    // MARK: Completions, grants, badges

    /// Which of the given periods have completed, as (quest, period key) pairs: a point
    /// lookup per pair on the primary key.
    public func completedPeriods(_ periods: [(quest: QuestID, periodKey: String)]) async throws -> Set<
        CompletedPeriod
    > {
        guard !periods.isEmpty else { return [] }
        let quests = SQLList(Set(periods.map(\.quest.rawValue)).sorted().map { SQLBind($0) })
        let keys = SQLList(Set(periods.map(\.periodKey)).sorted().map { SQLBind($0) })
        let found = try await db.raw(
            """
            SELECT challenge_id, period_key FROM quest_completions WHERE challenge_id IN (\(quests)) AND period_key IN (\(keys))
            """
        ).all().map { row in
            CompletedPeriod(
                quest: try row.decode(column: "challenge_id", as: QuestID.self),
                periodKey: try row.decode(column: "period_key", as: String.self))
        }
        let asked = Set(periods.map { CompletedPeriod(quest: $0.quest, periodKey: $0.periodKey) })
        return Set(found).intersection(asked)
    }

    public func insertGrant(_ child: MemberID, _ grant: UnlockGrant, now: Date) async throws {
        try await db.raw(
            """
            INSERT INTO unlock_grants (id, child_id, token, minutes, starts_at, expires_at, challenge_id, created_at)
            VALUES (\(bind: grant.id), \(bind: child.rawValue), \(bind: grant.token), \(bind: Int64(grant.minutes)), \(bind: grant.startsAt.storedMillis),
                    \(bind: grant.expiresAt.storedMillis), \(bind: grant.questID?.rawValue), \(bind: now.storedMillis))
            """
        ).run()
    }

    /// Grants not yet expired at `now`.
    public func grants(_ child: MemberID, unexpiredAt now: Date) async throws -> [UnlockGrant] {
        try await db.raw(
            """
            SELECT id, token, minutes, starts_at, expires_at, challenge_id FROM unlock_grants
            WHERE child_id = \(bind: child.rawValue) AND expires_at > \(bind: now.storedMillis) ORDER BY starts_at, id
            """
        ).all(decoding: GrantRow.self, keyDecodingStrategy: .convertFromSnakeCase).map(\.grant)
    }

    public func badges(_ child: MemberID) async throws -> [(id: String, awardedAt: Date)] {
        try await BadgeQueries.list(child, .quests, on: db).map { ($0.id, $0.awardedAt) }
    }
}

/// An unlock grant as stored (columns in snake case).
private struct GrantRow: Decodable {
    let id: String
    let token: String
    let minutes: Int64
    let startsAt: Int64
    let expiresAt: Int64
    let challengeId: String?

    var grant: UnlockGrant {
        UnlockGrant(
            id: id, token: token, minutes: Int(minutes), startsAt: Date(storedMillis: startsAt),
            expiresAt: Date(storedMillis: expiresAt), questID: challengeId.flatMap { QuestID($0) })
    }
}

/// Usage reports read once for a span, handed to each reader of a part of it (a board's
/// progress and its reward accounting read overlapping spans; one statement, not two).
public struct UsageSpan: Sendable {
    public let from: Date
    public let to: Date
    /// In start order, as `QuestQueries.reports` gives them.
    public let records: [UsageRecord]

    /// The reports `QuestQueries.reports(from:to:)` would give (compared in stored
    /// milliseconds, as the store does), or nil when the span does not cover it.
    public func records(from start: Date, to end: Date) -> [UsageRecord]? {
        let (low, high) = (start.storedMillis, end.storedMillis)
        guard low >= from.storedMillis, high <= to.storedMillis else { return nil }
        return records.filter { $0.start.storedMillis >= low && $0.start.storedMillis < high }
    }
}

/// What a guardian's console shows of a child besides its quests (`QuestQueries.consoleFacts`).
public struct ConsoleFacts: Sendable, Equatable {
    public var balance = 0
    public var apps = 0
    /// The learning run that makes the child's current streak.
    public var latestRun: DayRun?

    public init(balance: Int = 0, apps: Int = 0, latestRun: DayRun? = nil) {
        self.balance = balance
        self.apps = apps
        self.latestRun = latestRun
    }
}
