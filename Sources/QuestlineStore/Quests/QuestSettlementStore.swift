public import Foundation
public import QuestlineCore
import SQLKit

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

    /// The totals `QuestSettlement.withTotals` completes `plan` with.
    public func settlementTotals(_ child: MemberID, for plan: SettlementPlan, today: LocalDay) async throws
        -> SettlementTotals
    {
        var runs: [DayRun] = []
        if let days = plan.runDays { runs = try await self.runs(child, overlapping: days) }
        return SettlementTotals(
            summary: try await learningSummary(child, today: today), runs: runs,
            pointsEarned: try await points.balance(child).earned, awarded: Set(try await badges(child).map(\.id)))
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
                paid[CompletedPeriod(quest: QuestID(name)!, periodKey: key)] = amount
            } else {
                earnings.append(
                    DayEarning(
                        token: name, day: LocalDay(iso: key)!, minutes: amount,
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
