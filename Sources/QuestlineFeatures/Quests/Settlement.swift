import Foundation
import QuestlineCore
import QuestlineStore

/// Settlement: brings a child's ledger, completions, unlocks, badges and co-op payouts in line
/// with the stored usage, in the transaction of the write that changed it (a usage upload, a
/// quest's edit, a zone change, a co-op quest set). The core plans (`QuestSettlement`,
/// `CoopSettlement`); the store applies the plan.
struct Settlement: Sendable {
    let store: Store
    let ids: any IDGenerator

    /// Brings the ledger, completions, grants and badges in line with the usage, for the days
    /// `touching` (and today): the core plans from what is stored, the store applies the plan.
    /// Idempotent: run twice, it changes nothing the second time.
    /// `catalog`: the child's apps, when already read in this transaction.
    func settle(
        _ q: QuestQueries, child: MemberRecord, touching days: Set<LocalDay>, now: Date, catalog: [QuestApp]? = nil
    ) async throws -> SettlementPlan {
        // The co-op quests whose weeks these days fall in, held before any points lock: their
        // settlement credits the other children too (see `lockCoopQuests`).
        let coop = try await q.lockCoopQuests(
            child: child.id, days: Self.coopDays(days, today: LocalDay(now, in: child.zone)))
        try await q.points.lock(child.id)
        let quests = try await q.quests(assignee: child.id).filter { $0.status == .active }
        let scope = SettlementScope(quests: quests, touching: days, now: now, zone: child.zone)
        let input = try await q.settlementInput(
            child.id, zone: child.zone, quests: quests, scope: scope, now: now, catalog: catalog)
        var plan = QuestSettlement.plan(input)
        if plan.changesTotals {
            let totals = try await q.settlementTotals(child.id, for: plan, today: scope.today)
            plan = QuestSettlement.withTotals(plan, totals, today: scope.today)
        }
        try await q.apply(plan, child: child.id, now: now) { ids.makeUUID().uuidString.lowercased() }
        try await recordOutcomes(q, plan: plan, child: child, now: now)
        // Co-op progress is the children's stored learning: settled after this child's is stored.
        if !plan.earnings.isEmpty { try await settleCoop(q, coop, members: nil, now: now) }
        return plan
    }

    /// What the app team's systems hear of a settlement (the outbox): each completion, each
    /// unlock it pays, each badge. Completions and unlocks say when the app may push them
    /// (the child's preferences and quiet hours).
    private func recordOutcomes(_ q: QuestQueries, plan: SettlementPlan, child record: MemberRecord, now: Date)
        async throws
    {
        guard let events = q.live else { return }
        let child = record.id
        let notifyAt =
            plan.completions.isEmpty && plan.grants.isEmpty ? nil : try await q.questUpdateAt(record, now: now)
        for completion in plan.completions {
            try await events.record(
                .questCompleted, member: child,
                data: OutboxData.QuestCompleted(
                    memberId: child.rawValue, questId: completion.quest.rawValue, period: completion.periodKey,
                    bonus: completion.bonus, notifyAt: notifyAt), now: now)
        }
        for grant in plan.grants {
            try await events.record(
                .rewardUnlocked, member: child,
                data: OutboxData.RewardUnlocked(
                    memberId: child.rawValue, appToken: grant.token, minutes: grant.minutes, startsAt: now,
                    expiresAt: grant.expiresAt, questId: grant.quest.rawValue, notifyAt: notifyAt), now: now)
        }
        // A new unlock changes what the device enforces.
        if !plan.grants.isEmpty { try await q.announce(.policy, child: record, now: now) }
        for badge in plan.badges {
            try await events.record(
                .badgeAwarded, member: child,
                data: OutboxData.BadgeAwarded(memberId: child.rawValue, badgeId: badge, feature: "quests"), now: now)
        }
    }

    // MARK: Co-op quests

    /// The span of local days a settlement of `days` touches (with the child's today).
    static func coopDays(_ days: Set<LocalDay>, today: LocalDay) -> ClosedRange<LocalDay> {
        let all = days.union([today])
        return all.min()!...all.max()!
    }

    /// Pays what the quests' progress now owes (`CoopSettlement`), in the write's transaction.
    /// The quests must be held (`lockCoopQuests`, or just inserted). Reads the learning days and
    /// payouts in one statement; writes only when something is owed.
    func settleCoop(_ q: QuestQueries, _ quests: [CoopQuest], members known: [MemberRecord]?, now: Date)
        async throws
    {
        guard !quests.isEmpty else { return }
        let facts = try await q.coopFacts(quests)
        var members = known
        for quest in quests {
            let progress = CoopProgress(quest.spec, days: facts.days, paid: facts.paid[quest.id] ?? [:])
            let planned = CoopSettlement.plan(quest, progress)
            guard !planned.isEmpty else { continue }
            if members == nil { members = try await store.accounts.household(quest.householdID)?.members ?? [] }
            let byID = Dictionary((members ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            // A child who has left the household is not paid (nor recorded as paid).
            let payouts = planned.filter { byID[$0.child] != nil }
            try await q.recordCoopPayouts(quest.id, payouts, now: now)
            for payout in payouts {
                guard let child = byID[payout.child] else { continue }
                try await payCoop(q, quest, payout, child: child, now: now)
            }
        }
    }

    /// One contributor's payout: the bonus (or what it grew by) on their ledger; on the first,
    /// the reward apps unlock until the end of their day and the app team hears of it.
    private func payCoop(
        _ q: QuestQueries, _ quest: CoopQuest, _ payout: CoopSettlement.Payout, child: MemberRecord, now: Date
    ) async throws {
        let title = quest.spec.title
        try await q.points.append(
            child.id, kind: .bonus, points: payout.credit,
            reason: Message(
                payout.first ? "quests.ledger.coopCompleted" : "quests.ledger.coopBonusGrew", ["quest": .text(title)]
            ).stored,
            id: ids.makeUUID().uuidString.lowercased(), now: now)
        guard payout.first else {
            try await q.live?.announce(.progress, household: quest.householdID, child: child.id, now: now)
            return
        }
        let notifyAt = try await q.questUpdateAt(child, now: now)
        let expiry = UnlockGrant.expiry(now: now, zone: child.zone)
        for unlock in quest.spec.rewardApps {
            try await q.insertGrant(
                child.id,
                UnlockGrant(
                    id: ids.makeUUID().uuidString.lowercased(), token: unlock.token, minutes: unlock.minutes,
                    startsAt: now, expiresAt: expiry, questID: nil), now: now)
            try await q.live?.record(
                .rewardUnlocked, member: child.id,
                data: OutboxData.RewardUnlocked(
                    memberId: child.id.rawValue, appToken: unlock.token, minutes: unlock.minutes, startsAt: now,
                    expiresAt: expiry, questId: nil, notifyAt: notifyAt), now: now)
        }
        try await q.live?.record(
            .coopQuestCompleted, member: child.id,
            data: OutboxData.CoopQuestCompleted(
                memberId: child.id.rawValue, coopQuestId: quest.id.rawValue, week: quest.spec.weekStart.iso,
                contribution: payout.value, bonus: payout.bonus, notifyAt: notifyAt), now: now)
        try await q.live?.announce(.progress, household: quest.householdID, child: child.id, now: now)
        if !quest.spec.rewardApps.isEmpty {
            try await q.live?.announce(.policy, household: quest.householdID, child: child.id, now: now)
        }
    }
}
