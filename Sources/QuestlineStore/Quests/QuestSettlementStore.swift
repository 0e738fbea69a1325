public import Foundation
public import QuestlineCore
import SQLKit

/// What is kept of a child's quests besides the ledger (`QuestQueries.totals`).
public struct ChildTotals: Sendable {
    public let summary: LearningSummary
    /// The learning runs overlapping the days asked about (none when none were).
    public let runs: [DayRun]
    public let balance: Int
    /// Points earned in all (the ledger's credits, adjustments aside).
    public let pointsEarned: Int
    /// The quest badges awarded, with when.
    public let badges: [String: Date]
}

/// Quest settlement's two steps in the store: read what the plan is made from, and apply the
/// plan. Both run in one write transaction, under the child's points lock.
extension QuestQueries {
    /// What `QuestSettlement.plan` needs for `scope`: the child's catalog, usage, stored
    /// earnings and the bonuses paid, in two statements (the usage; the earnings and bonuses
    /// together), besides the quests the caller read and the catalog when not given.
    /// `catalog`: the child's apps when the caller read them in this transaction already.
    public func settlementInput(
        _ child: MemberID, zone: TimeZone, quests: [Quest], scope: SettlementScope, now: Date,
        catalog: [QuestApp]? = nil
    ) async throws -> SettlementInput {
        let catalog = if let catalog { catalog } else { try await apps(child) }
        let stored = try await earningsAndPaidBonuses(
            child, days: scope.touched, quests: quests.map(\.id), since: scope.firstDay)
        return SettlementInput(
            now: now, zone: zone, scope: scope, catalog: catalog, quests: quests,
            usage: try await reports(child, from: scope.usageFrom, to: scope.usageTo),
            earnings: stored.earnings, paid: stored.paid)
    }

    /// The totals `QuestSettlement.withTotals` completes `plan` with (one statement, `totals`).
    public func settlementTotals(_ child: MemberID, for plan: SettlementPlan, today: LocalDay) async throws
        -> SettlementTotals
    {
        let totals = try await totals(child, today: today, runsOverlapping: plan.runDays)
        return SettlementTotals(
            summary: totals.summary, runs: totals.runs, pointsEarned: totals.pointsEarned,
            awarded: Set(totals.badges.keys))
    }

    /// What is kept of a child's quests besides the ledger, in one statement (a `UNION ALL` told
    /// apart by `kind`): the stored totals and the learning run that makes today's streak, the
    /// balance and the points earned, the quest badges awarded, and, given `days`, the learning
    /// runs overlapping them (those starting in them and the one before). Settlement and the
    /// board read these in one statement.
    public func totals(_ child: MemberID, today: LocalDay, runsOverlapping days: ClosedRange<LocalDay>? = nil)
        async throws -> ChildTotals
    {
        let kid = child.rawValue
        var parts: [SQLQueryString] = [
            Self.runStarting(child, onOrBefore: today, as: "latest"),
            """
            SELECT 'stats' AS kind, child_id AS child, '' AS a, '' AS b, learning_minutes AS n1, completions AS n2,
                best_streak AS n3
            FROM quest_stats WHERE child_id = \(bind: kid)
            """,
            """
            SELECT 'points' AS kind, member_id AS child, '' AS a, '' AS b, earned AS n1, balance AS n2,
                CAST(0 AS BIGINT) AS n3
            FROM points_balances WHERE member_id = \(bind: kid)
            """,
            """
            SELECT 'badge' AS kind, member_id AS child, badge_id AS a, '' AS b, awarded_at AS n1, CAST(0 AS BIGINT) AS n2,
                CAST(0 AS BIGINT) AS n3
            FROM member_badges WHERE member_id = \(bind: kid) AND feature = \(bind: BadgeFeature.quests.rawValue)
            """,
        ]
        if let days {
            parts.append(Self.runStarting(child, onOrBefore: days.lowerBound, as: "before"))
            parts.append(
                """
                SELECT 'run' AS kind, child_id AS child, first_day AS a, last_day AS b, \(unsafeRaw: Self.noNumbers)
                FROM quest_learning_runs WHERE child_id = \(bind: kid)
                AND first_day > \(bind: days.lowerBound.iso) AND first_day <= \(bind: days.upperBound.iso)
                """)
        }
        var runs: [DayRun] = []
        var latest: DayRun?
        var stats = (minutes: 0, completions: 0, best: 0)
        var points = (earned: 0, balance: 0)
        var badges: [String: Date] = [:]
        for row in try await db.raw(parts.joined(separator: " UNION ALL ")).all() {
            let kind = try row.decode(column: "kind", as: String.self)
            func run() throws -> DayRun {
                DayRun(
                    first: try row.decode(column: "a", as: LocalDay.self),
                    last: try row.decode(column: "b", as: LocalDay.self))
            }
            func number(_ column: String) throws -> Int { Int(try row.decode(column: column, as: Int64.self)) }
            switch kind {
            case "latest": latest = try run()
            case "stats": stats = (try number("n1"), try number("n2"), try number("n3"))
            case "points": points = (try number("n1"), try number("n2"))
            case "badge":
                badges[try row.decode(column: "a", as: String.self)] = Date(
                    storedMillis: try row.decode(column: "n1", as: Int64.self))
            case "before":
                // The run before the days counts when it reaches into them.
                let before = try run()
                if let days, before.last >= days.lowerBound { runs.append(before) }
            default: runs.append(try run())
            }
        }
        return ChildTotals(
            summary: LearningSummary(
                learningMinutes: stats.minutes, completions: stats.completions, bestStreak: stats.best,
                latestRun: latest),
            runs: runs, balance: points.balance, pointsEarned: points.earned, badges: badges)
    }

    // The `UNION ALL` reads of a child's kept facts (`totals`, `consoleFacts`) have one shape:
    // kind, child, two texts (a, b) and three numbers (n1, n2, n3).

    /// The numbers of a branch that has none (typed, so that both databases give the columns
    /// one type).
    static let noNumbers = "CAST(0 AS BIGINT) AS n1, CAST(0 AS BIGINT) AS n2, CAST(0 AS BIGINT) AS n3"

    /// The branch giving the child's learning run that started last on or before `day`, as
    /// `kind` (its first day is the greatest one up to `day`: one index step, then a point
    /// look-up on the primary key).
    static func runStarting(_ child: MemberID, onOrBefore day: LocalDay, as kind: String) -> SQLQueryString {
        """
        SELECT \(unsafeRaw: "'\(kind)'") AS kind, child_id AS child, first_day AS a, last_day AS b, \(unsafeRaw: noNumbers)
        FROM quest_learning_runs WHERE child_id = \(bind: child.rawValue) AND first_day = (
            SELECT MAX(first_day) FROM quest_learning_runs
            WHERE child_id = \(bind: child.rawValue) AND first_day <= \(bind: day.iso))
        """
    }

    /// The child's stored earnings on `days`, and the bonus paid for each completed period of
    /// `quests` whose key is `since` or later: one statement (`UNION ALL` of the two tables,
    /// told apart by `kind`), or none when there is neither a day nor a quest to ask about.
    func earningsAndPaidBonuses(_ child: MemberID, days: Set<LocalDay>, quests: [QuestID], since: LocalDay)
        async throws -> (earnings: [DayEarning], paid: [CompletedPeriod: Int])
    {
        var parts: [SQLQueryString] = []
        if !days.isEmpty {
            let list = SQLList(days.sorted().map { SQLBind($0.iso) })
            parts.append(
                """
                SELECT 'earning' AS kind, token AS name, local_day AS day_or_period, minutes AS amount, points
                FROM quest_earnings WHERE child_id = \(bind: child.rawValue) AND local_day IN (\(list))
                """)
        }
        if !quests.isEmpty {
            let ids = SQLList(quests.map { SQLBind($0.rawValue) })
            parts.append(
                """
                SELECT 'paid' AS kind, challenge_id AS name, period_key AS day_or_period, bonus AS amount, 0 AS points
                FROM quest_completions WHERE challenge_id IN (\(ids)) AND period_key >= \(bind: since.iso)
                """)
        }
        guard !parts.isEmpty else { return ([], [:]) }
        let rows = try await db.raw(parts.joined(separator: " UNION ALL ")).all()
        var earnings: [DayEarning] = []
        var paid: [CompletedPeriod: Int] = [:]
        for row in rows {
            let name = try row.decode(column: "name", as: String.self)
            let key = try row.decode(column: "day_or_period", as: String.self)
            let amount = Int(try row.decode(column: "amount", as: Int64.self))
            if try row.decode(column: "kind", as: String.self) == "paid" {
                paid[CompletedPeriod(quest: try row.decode(column: "name", as: QuestID.self), periodKey: key)] = amount
            } else {
                earnings.append(
                    DayEarning(
                        token: name, day: try row.decode(column: "day_or_period", as: LocalDay.self), minutes: amount,
                        points: Int(try row.decode(column: "points", as: Int64.self))))
            }
        }
        return (earnings, paid)
    }

    /// Writes a settlement plan: a statement per kind of change, however many rows it has.
    /// `makeID` names the new ledger entries and grants.
    public func apply(_ plan: SettlementPlan, child: MemberID, now: Date, makeID: () -> String) async throws {
        let kid = SQLBind(child.rawValue)
        if !plan.earnings.isEmpty {
            let rows = plan.earnings.map {
                SQLGroupExpression([
                    kid, SQLBind($0.token), SQLBind($0.day.iso), SQLBind(Int64($0.minutes)), SQLBind(Int64($0.points)),
                ])
            }
            try await db.raw(
                """
                INSERT INTO quest_earnings (child_id, token, local_day, minutes, points) VALUES \(SQLList(rows))
                ON CONFLICT (child_id, token, local_day) DO UPDATE SET minutes = excluded.minutes, points = excluded.points
                """
            ).run()
        }
        if !plan.removedRuns.isEmpty {
            let firsts = SQLList(plan.removedRuns.map { SQLBind($0.first.iso) })
            try await db.raw(
                "DELETE FROM quest_learning_runs WHERE child_id = \(kid) AND first_day IN (\(firsts))"
            ).run()
        }
        if !plan.addedRuns.isEmpty {
            let rows = plan.addedRuns.map { SQLGroupExpression([kid, SQLBind($0.first.iso), SQLBind($0.last.iso)]) }
            try await db.raw(
                "INSERT INTO quest_learning_runs (child_id, first_day, last_day) VALUES \(SQLList(rows))"
            ).run()
        }
        if plan.learningMinutes != 0 || !plan.addedRuns.isEmpty || !plan.completions.isEmpty {
            try await db.raw(
                """
                INSERT INTO quest_stats (child_id, learning_minutes, completions, best_streak)
                VALUES (\(kid), \(bind: Int64(plan.learningMinutes)), \(bind: Int64(plan.completions.count)), \(bind: Int64(plan.bestStreak)))
                ON CONFLICT (child_id) DO UPDATE SET learning_minutes = quest_stats.learning_minutes + excluded.learning_minutes,
                    completions = quest_stats.completions + excluded.completions,
                    best_streak = CASE WHEN excluded.best_streak > quest_stats.best_streak
                        THEN excluded.best_streak ELSE quest_stats.best_streak END
                """
            ).run()
        }
        for rekey in plan.rekeyed {
            try await db.raw(
                """
                UPDATE quest_completions SET period_key = \(bind: rekey.to)
                WHERE challenge_id = \(bind: rekey.quest.rawValue) AND period_key = \(bind: rekey.from)
                """
            ).run()
        }
        if !plan.completions.isEmpty {
            let rows = plan.completions.map {
                SQLGroupExpression([
                    SQLBind($0.quest.rawValue), SQLBind($0.periodKey), kid, SQLBind(Int64($0.value)),
                    SQLBind(Int64($0.bonus)), SQLBind(now.storedMillis),
                ])
            }
            try await db.raw(
                """
                INSERT INTO quest_completions (challenge_id, period_key, child_id, value, bonus, completed_at)
                VALUES \(SQLList(rows))
                """
            ).run()
            for (quest, count) in Dictionary(grouping: plan.completions, by: \.quest).mapValues(\.count)
                .sorted(by: { $0.key.rawValue < $1.key.rawValue })
            {
                try await db.raw(
                    """
                    UPDATE challenges SET completions = completions + \(bind: Int64(count)) WHERE id = \(bind: quest.rawValue)
                    """
                ).run()
            }
        }
        for raised in plan.raisedBonuses {
            try await db.raw(
                """
                UPDATE quest_completions SET bonus = \(bind: Int64(raised.bonus)), value = \(bind: Int64(raised.value))
                WHERE challenge_id = \(bind: raised.quest.rawValue) AND period_key = \(bind: raised.periodKey)
                """
            ).run()
        }
        if !plan.credits.isEmpty {
            try await points.append(
                child,
                plan.credits.map {
                    NewLedgerEntry(
                        id: makeID(), kind: $0.kind, points: $0.points, reason: $0.reason, quest: $0.quest)
                }, now: now)
        }
        if !plan.grants.isEmpty {
            let rows = plan.grants.map {
                SQLGroupExpression([
                    SQLBind(makeID()), kid, SQLBind($0.token), SQLBind(Int64($0.minutes)), SQLBind(now.storedMillis),
                    SQLBind($0.expiresAt.storedMillis), SQLBind($0.quest.rawValue), SQLBind(now.storedMillis),
                ])
            }
            try await db.raw(
                """
                INSERT INTO unlock_grants (id, child_id, token, minutes, starts_at, expires_at, challenge_id, created_at)
                VALUES \(SQLList(rows))
                """
            ).run()
        }
        try await BadgeQueries.award(child, .quests, badges: plan.badges, now: now, on: db)
    }
}
