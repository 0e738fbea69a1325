public import Foundation
public import QuestlineCore
import SQLKit

/// Co-op quests: the quest (its spec as the core's JSON), its children, and what each
/// contributor was paid.
enum CoopQuestSchema: StoreModule {
    /// A deleted child's co-op quests stay the household's, without them (their share goes with
    /// `coop_members` and `coop_payouts`).
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws {
        try await QuestQueries(db: db, live: nil).removeFromCoopQuests(member.id)
    }

    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "coop_members", column: "child_id", export: (.quests, "coopQuests")),
        PersonalData.Holding(table: "coop_payouts", column: "child_id", export: (.quests, "coopPayouts")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 890, name: "coop_quests",
            [
                """
                CREATE TABLE coop_quests (
                    id TEXT PRIMARY KEY,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    spec TEXT NOT NULL,
                    week_start TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('active', 'cancelled')),
                    created_by TEXT REFERENCES members(id) ON DELETE SET NULL,
                    created_at BIGINT NOT NULL,
                    completed_at BIGINT
                )
                """,
                "CREATE INDEX coop_quests_by_household ON coop_quests (household_id, week_start)",
                """
                CREATE TABLE coop_members (
                    quest_id TEXT NOT NULL REFERENCES coop_quests(id) ON DELETE CASCADE,
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    PRIMARY KEY (quest_id, child_id)
                )
                """,
                "CREATE INDEX coop_members_by_child ON coop_members (child_id)",
                """
                CREATE TABLE coop_payouts (
                    quest_id TEXT NOT NULL REFERENCES coop_quests(id) ON DELETE CASCADE,
                    child_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    contribution BIGINT NOT NULL,
                    bonus BIGINT NOT NULL,
                    paid_at BIGINT NOT NULL,
                    PRIMARY KEY (quest_id, child_id)
                )
                """,
            ])
    ]

    static func encode(_ spec: CoopQuestSpec) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(spec), as: UTF8.self)
    }
}

extension QuestQueries {
    public func insertCoopQuest(_ quest: CoopQuest, by creator: MemberID) async throws {
        try await db.raw(
            """
            INSERT INTO coop_quests (id, household_id, spec, week_start, status, created_by, created_at)
            VALUES (\(bind: quest.id.rawValue), \(bind: quest.householdID.rawValue), \(bind: try CoopQuestSchema.encode(quest.spec)),
                    \(bind: quest.spec.weekStart.iso), \(bind: quest.status.rawValue), \(bind: creator.rawValue), \(bind: quest.createdAt.storedMillis))
            """
        ).run()
        let rows = quest.spec.children.map { SQLGroupExpression([SQLBind(quest.id.rawValue), SQLBind($0.rawValue)]) }
        try await db.raw("INSERT INTO coop_members (quest_id, child_id) VALUES \(SQLList(rows))").run()
    }

    /// Holds the household's co-op quests for the rest of the transaction (its row, `FOR UPDATE`
    /// on PostgreSQL; SQLite's write transactions are serialized already), so that the weekly
    /// cap is counted and kept by one writer at a time, on any number of instances.
    public func lockCoopQuests(of household: HouseholdID) async throws {
        guard db.dialect.name != "sqlite" else { return }
        try await db.raw("SELECT id FROM households WHERE id = \(bind: household.rawValue) FOR UPDATE").run()
    }

    /// Takes `child` out of the co-op quests they are in (their account is being deleted): the
    /// quest stays the household's, its spec without the child.
    func removeFromCoopQuests(_ child: MemberID) async throws {
        let rows = try await db.raw(
            """
            SELECT id, household_id, spec, status, created_at, completed_at FROM coop_quests
            WHERE id IN (SELECT quest_id FROM coop_members WHERE child_id = \(bind: child.rawValue))
            """
        ).all()
        for quest in try rows.map(Self.decodeCoop) {
            var spec = quest.spec
            spec.children.removeAll { $0 == child }
            try await db.raw(
                "UPDATE coop_quests SET spec = \(bind: try CoopQuestSchema.encode(spec)) WHERE id = \(bind: quest.id.rawValue)"
            ).run()
        }
    }

    public func cancelCoopQuest(_ id: CoopQuestID) async throws {
        try await db.raw("UPDATE coop_quests SET status = 'cancelled' WHERE id = \(bind: id.rawValue)").run()
    }

    /// The household's co-op quests of the weeks from `since` on, latest week first.
    public func coopQuests(_ household: HouseholdID, since: LocalDay) async throws -> [CoopQuest] {
        try await db.raw(
            """
            SELECT id, household_id, spec, status, created_at, completed_at FROM coop_quests
            WHERE household_id = \(bind: household.rawValue) AND week_start >= \(bind: since.iso)
            ORDER BY week_start DESC, created_at DESC, id
            """
        ).all().map(Self.decodeCoop)
    }

    public func coopQuest(_ id: CoopQuestID) async throws -> CoopQuest? {
        try await db.raw(
            """
            SELECT id, household_id, spec, status, created_at, completed_at FROM coop_quests
            WHERE id = \(bind: id.rawValue)
            """
        ).first().map(Self.decodeCoop)
    }

    /// The active co-op quests `child` is in whose week holds a day of `days`, held for the rest
    /// of the transaction in the order of their ids (PostgreSQL; SQLite's write transactions are
    /// serialized already), so that two children's settlements pay once. Settlement takes these
    /// before any points lock: a co-op payout credits other children, and every writer that
    /// holds a co-op quest takes points locks only after it (no deadlock).
    public func lockCoopQuests(child: MemberID, days: ClosedRange<LocalDay>) async throws -> [CoopQuest] {
        let lock = db.dialect.name == "sqlite" ? "" : " FOR UPDATE"
        return try await db.raw(
            """
            SELECT id, household_id, spec, status, created_at, completed_at FROM coop_quests
            WHERE id IN (SELECT quest_id FROM coop_members WHERE child_id = \(bind: child.rawValue))
                AND status = 'active' AND week_start <= \(bind: days.upperBound.iso)
                AND week_start >= \(bind: days.lowerBound.adding(days: -6).iso)
            ORDER BY id\(unsafeRaw: lock)
            """
        ).all().map(Self.decodeCoop)
    }

    /// Co-op quest specs by their stored text (see `DecodedJSONCache`).
    static let coopSpecs = DecodedJSONCache<CoopQuestSpec>()

    static func decodeCoop(_ row: any SQLRow) throws -> CoopQuest {
        CoopQuest(
            id: try CoopQuestID.parse(try row.decode(column: "id", as: String.self), field: "id"),
            householdID: try HouseholdID.parse(
                try row.decode(column: "household_id", as: String.self), field: "household_id"),
            spec: try Self.coopSpecs.decode(try row.decode(column: "spec", as: String.self)),
            status: CoopQuestStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .cancelled,
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)),
            completedAt: try row.decode(column: "completed_at", as: Int64?.self).map { Date(storedMillis: $0) })
    }

    /// What the quests' progress is made of, in one statement: the children's learning per
    /// local day over the quests' weeks (`quest_earnings`, summed per day), and the bonuses paid.
    public func coopFacts(_ quests: [CoopQuest]) async throws -> (
        days: [LearningDay], paid: [CoopQuestID: [MemberID: Int]]
    ) {
        guard let first = quests.map(\.spec.weekStart).min(), let last = quests.map(\.spec.weekEnd).max() else {
            return ([], [:])
        }
        let children = SQLList(
            Set(quests.flatMap(\.spec.children)).sorted { $0.rawValue < $1.rawValue }.map { SQLBind($0.rawValue) })
        let ids = SQLList(quests.map { SQLBind($0.id.rawValue) })
        let rows = try await db.raw(
            """
            SELECT 'day' AS kind, child_id AS child, local_day AS a, CAST(SUM(minutes) AS BIGINT) AS n1,
                CAST(SUM(points) AS BIGINT) AS n2
            FROM quest_earnings WHERE child_id IN (\(children)) AND local_day >= \(bind: first.iso) AND local_day <= \(bind: last.iso)
            GROUP BY child_id, local_day
            UNION ALL
            SELECT 'paid' AS kind, child_id AS child, quest_id AS a, bonus AS n1, contribution AS n2
            FROM coop_payouts WHERE quest_id IN (\(ids))
            """
        ).all()
        var days: [LearningDay] = []
        var paid: [CoopQuestID: [MemberID: Int]] = [:]
        for row in rows {
            let child = try MemberID.parse(try row.decode(column: "child", as: String.self), field: "child")
            let a = try row.decode(column: "a", as: String.self)
            let n1 = Int(try row.decode(column: "n1", as: Int64.self))
            let n2 = Int(try row.decode(column: "n2", as: Int64.self))
            if try row.decode(column: "kind", as: String.self) == "paid" {
                if let quest = CoopQuestID(a) { paid[quest, default: [:]][child] = n1 }
            } else if let day = LocalDay(iso: a) {
                days.append(LearningDay(child: child, day: day, minutes: n1, points: n2))
            }
        }
        return (days, paid)
    }

    /// Records the payouts of a settlement (new ones, and bonuses that grew) and marks the quest
    /// completed the first time.
    public func recordCoopPayouts(_ quest: CoopQuestID, _ payouts: [CoopSettlement.Payout], now: Date) async throws {
        guard !payouts.isEmpty else { return }
        let rows = payouts.map {
            SQLGroupExpression([
                SQLBind(quest.rawValue), SQLBind($0.child.rawValue), SQLBind(Int64($0.value)), SQLBind(Int64($0.bonus)),
                SQLBind(now.storedMillis),
            ])
        }
        try await db.raw(
            """
            INSERT INTO coop_payouts (quest_id, child_id, contribution, bonus, paid_at) VALUES \(SQLList(rows))
            ON CONFLICT (quest_id, child_id) DO UPDATE SET contribution = excluded.contribution, bonus = excluded.bonus
            """
        ).run()
        try await db.raw(
            """
            UPDATE coop_quests SET completed_at = \(bind: now.storedMillis)
            WHERE id = \(bind: quest.rawValue) AND completed_at IS NULL
            """
        ).run()
    }
}
