public import Foundation
public import QuestlineCore
import QuestlineStore

/// One quest with today's figures.
public struct QuestView: Sendable {
    public let quest: Quest
    public let progress: QuestProgress
    public let completedThisPeriod: Bool
    public let card: QuestCard
    public let completions: Int
}

/// What the guardian's console shows of a child (`QuestsFeature.household`).
public struct ChildSummary: Sendable, Equatable {
    public let child: MemberRecord
    public let balance: Int
    public let quests: Int
    /// Quests whose shown period completed.
    public let done: Int
    public let streak: Int
    public let apps: Int
}

/// The child's quest board; also what the guardian sees of a child.
public struct QuestBoard: Sendable {
    public let child: MemberRecord
    public let quests: [QuestView]
    public let balance: Int
    public let stats: QuestStats
    public let badges: [(badge: QuestBadge, awardedAt: Date?)]
    /// Active unlocks, summed per reward app.
    public let grants: [GrantBalance]
    public let apps: [QuestApp]
    public let rules: RedemptionRules
    /// What the device enforces now (`ShieldPolicy`): the board's "Unlocked now" is its
    /// unblocked apps, as on the device page and the policy endpoint.
    public let policy: ShieldPolicy
    /// Why reward apps are shielded now whatever the grants (downtime, a day without rewards),
    /// and until when: redemption waits for then.
    public let restriction: (reason: ShieldPolicy.Reason, until: Date?)?
    /// Reported use of reward apps while they were blocked, today.
    public let blockedToday: [BlockedUse]
    /// Until when this board stays true with no write (`UnlockLedger.trueUntil`): a grant's
    /// start or expiry, the shield's next change, the child's next midnight.
    public let trueUntil: Date
}

/// Quests: a guardian's quests for a child (their specs, status and progress), co-op quests and
/// the family streak, and the screens that show them: the child's board and the guardian's console.
public struct QuestsFeature: FamilyPart {
    let parts: FamilyFeatures.Parts
    public static let maxQuests = 100

    init(_ parts: FamilyFeatures.Parts) { self.parts = parts }

    // MARK: Quests

    private func questAndChild(_ id: QuestID, as actor: MemberRecord, manage: Bool) async throws -> (
        Quest, MemberRecord
    ) {
        guard let quest = try await store.quests.read({ try await $0.quest(id) }) else {
            throw DomainError.notFound(Message("quests.error.noSuchQuest"))
        }
        guard actor.householdID == quest.householdID else {
            throw DomainError.notFound(Message("quests.error.noSuchQuest"))
        }
        let child = try await access.child(quest.spec.assignee, as: actor, manage: manage)
        return (quest, child)
    }

    /// Sets a quest; answers with the quest as the child's board now shows it, read in the same
    /// transaction (`written`).
    public func createQuest(for childID: MemberID, draft: QuestDraft, as actor: MemberRecord, scope: WriteScope)
        async throws
        -> QuestView
    {
        let child = try await access.child(childID, as: actor, manage: true)
        let now = clock.now()
        let today = LocalDay(now, in: child.zone)
        return try await store.quests.write(scope) { q in
            let catalog = try await q.apps(child.id)
            let spec = try draft.spec(assignee: child.id, catalog: catalog, today: today)
            if spec.startDay < today {
                throw DomainError.invalid(field: "startDate", Message("quests.error.startPast"))
            }
            if try await q.quests(assignee: child.id).count >= Self.maxQuests {
                throw DomainError.conflict(
                    field: nil, message: Message("quests.error.tooManyQuests", ["count": .number(Self.maxQuests)]))
            }
            let quest = Quest(
                id: ids.make(), householdID: try child.childsHousehold(), spec: spec, status: .active,
                createdBy: actor.id,
                createdAt: now)
            try await q.insertQuest(quest)
            _ = try await settlement.settle(q, child: child, touching: [], now: now, catalog: catalog)
            try await q.announce(.quest, child: child, quest: quest.id, now: now)
            return try await written(q, quest.id, child: child, apps: catalog, now: now)
        }
    }

    /// Replaces a quest's fields. Progress is recomputed under the new rules from the same
    /// usage; periods already completed stay completed and are not paid again.
    public func updateQuest(_ id: QuestID, draft: QuestDraft, as actor: MemberRecord, scope: WriteScope) async throws
        -> QuestView
    {
        let (existing, child) = try await questAndChild(id, as: actor, manage: true)
        let now = clock.now()
        let today = LocalDay(now, in: child.zone)
        return try await store.quests.write(scope) { q in
            let catalog = try await q.apps(child.id)
            let spec = try draft.spec(assignee: child.id, catalog: catalog, today: today)
            if spec.startDay < today, spec.startDay != existing.spec.startDay {
                throw DomainError.invalid(field: "startDate", Message("quests.error.startPast"))
            }
            var updated = existing
            updated.spec = spec
            try await q.updateQuest(updated, now: now)
            _ = try await settlement.settle(q, child: child, touching: [], now: now, catalog: catalog)
            try await q.announce(.quest, child: child, quest: id, now: now)
            return try await written(q, id, child: child, apps: catalog, now: now)
        }
    }

    /// Pauses or resumes. A paused quest does not complete; usage keeps being recorded, and on
    /// resume the current period counts all of its usage (progress is recomputed from usage).
    public func setStatus(_ id: QuestID, _ status: QuestStatus, as actor: MemberRecord, scope: WriteScope) async throws
        -> QuestView
    {
        let (existing, child) = try await questAndChild(id, as: actor, manage: true)
        let now = clock.now()
        return try await store.quests.write(scope) { q in
            var updated = existing
            updated.status = status
            try await q.updateQuest(updated, now: now)
            let catalog = try await q.apps(child.id)
            if status == .active {
                _ = try await settlement.settle(q, child: child, touching: [], now: now, catalog: catalog)
            }
            try await q.announce(.quest, child: child, quest: id, now: now)
            return try await written(q, id, child: child, apps: catalog, now: now)
        }
    }

    /// Deletes a quest: it leaves both screens and stops counting. Points and unlocks it already
    /// paid stay (the ledger is append-only), and so do badges.
    public func deleteQuest(_ id: QuestID, as actor: MemberRecord, scope: WriteScope) async throws {
        let (_, child) = try await questAndChild(id, as: actor, manage: true)
        let now = clock.now()
        try await store.quests.write(scope) { q in
            _ = try await q.deleteQuest(id, now: now)
            try await q.announce(.quest, child: child, quest: id, now: now)
        }
    }

    /// One quest as the child's board shows it, with its child and the child's apps: the quest
    /// and its usage only, not the whole board.
    public func quest(_ id: QuestID, as actor: MemberRecord) async throws -> (QuestView, MemberRecord, [QuestApp]) {
        let (quest, child) = try await questAndChild(id, as: actor, manage: false)
        let now = clock.now()
        return try await store.quests.read { q in
            let apps = try await q.apps(child.id)
            let view = try await views(q, of: [quest], child: child, apps: apps, now: now).first!
            return (view, child, apps)
        }
    }

    /// The quest `id` as a write left it (read again in the write's transaction: settling may
    /// have completed it).
    private func written(_ q: QuestQueries, _ id: QuestID, child: MemberRecord, apps: [QuestApp], now: Date)
        async throws -> QuestView
    {
        guard let quest = try await q.quest(id) else { throw DomainError.notFound(Message("quests.error.noSuchQuest")) }
        return try await views(q, of: [quest], child: child, apps: apps, now: now).first!
    }

    /// Each quest as a screen shows it today: its progress in the period it shows (a streak's
    /// key is the day it completed on), whether that period completed, its card. `usage`: the
    /// reports already read for a span covering the quests' (`SettlementScope`); else read here.
    private func views(
        _ q: QuestQueries, of quests: [Quest], child: MemberRecord, apps: [QuestApp], now: Date,
        usage: UsageSpan? = nil
    ) async throws -> [QuestView] {
        let zone = child.zone
        let today = LocalDay(now, in: zone)
        let scope = SettlementScope(quests: quests, touching: [], now: now, zone: zone)
        let records =
            if let read = usage?.records(from: scope.usageFrom, to: scope.usageTo) { read } else {
                try await q.reports(child.id, from: scope.usageFrom, to: scope.usageTo)
            }
        let evaluator = QuestEvaluator(catalog: apps, timeline: UsageTimeline(records).through(today))
        let periods = quests.map { (window: $0.spec.shownPeriod(today: today), key: $0.spec.shownKey(today: today)) }
        let completed = try await q.completedPeriods(zip(quests, periods).map { ($0.id, $1.key) })
        let names = Dictionary(apps.map { ($0.token, $0.name) }, uniquingKeysWith: { a, _ in a })
        return zip(quests, periods).map { quest, period -> QuestView in
            let spec = quest.spec
            let progress =
                spec.goal == .streak
                ? evaluator.streakRuns(spec, through: today).current : evaluator.progress(spec, in: period.window)
            let done = completed.contains(CompletedPeriod(quest: quest.id, periodKey: period.key))
            return QuestView(
                quest: quest, progress: progress, completedThisPeriod: done,
                card: QuestCard(
                    spec: spec, status: quest.status, progress: progress, completedThisPeriod: done, today: today,
                    appNames: names),
                completions: quest.completions)
        }
    }

    private static func stats(_ totals: ChildTotals, today: LocalDay) -> QuestStats {
        let summary = totals.summary
        return QuestStats(
            questsCompleted: summary.completions, bestStreak: summary.bestStreak,
            currentStreak: DayRun.current(latest: summary.latestRun, today: today),
            learningMinutes: summary.learningMinutes, pointsEarned: totals.pointsEarned)
    }

    // MARK: Screens

    /// Everything the child's board shows (the guardian's view of a child uses the same): as
    /// kept (`KeptFamilyAnswers`) while no write and no instant changed it, else computed and kept.
    public func board(_ childID: MemberID, as actor: MemberRecord) async throws -> QuestBoard {
        let child = try await access.child(childID, as: actor)
        let now = clock.now()
        if let kept = parts.kept.board(child, now: now) { return kept }
        let ticket = parts.kept.boards.ticket()
        let board = try await computedBoard(child, now: now)
        parts.kept.keep(board, from: now, ticket: ticket)
        return board
    }

    private func computedBoard(_ child: MemberRecord, now: Date) async throws -> QuestBoard {
        let zone = child.zone
        let today = LocalDay(now, in: zone)
        return try await store.quests.read { q in
            let apps = try await q.apps(child.id)
            let quests = try await q.quests(assignee: child.id)
            let scope = SettlementScope(quests: quests, touching: [], now: now, zone: zone)
            // One read of the usage for both progress and reward accounting.
            let since = today.start(in: zone)
            let grants = try await q.grants(child.id, unexpiredAt: since)
            let window = QuestQueries.rewardWindow(grants: grants, since: since, now: now)
            let usage = try await q.usage(
                child.id, from: min(scope.usageFrom, window.from), to: max(scope.usageTo, window.to))
            let views = try await views(q, of: quests, child: child, apps: apps, now: now, usage: usage)
            let totals = try await q.totals(child.id, today: today)
            let shieldRules = try await q.shieldRules(child.id)
            let account = try await q.rewardAccount(
                child: child, since: since, now: now, needsBlocked: true, apps: apps, rules: shieldRules,
                grants: grants, usage: usage)
            let active = account.balances.filter { $0.isActive(at: now) }
            let policy = ShieldPolicy.compute(
                rewardApps: apps.filter { $0.role == .reward }.map(\.token), balances: active, rules: shieldRules,
                now: now, zone: zone)
            return QuestBoard(
                child: child, quests: views, balance: totals.balance, stats: Self.stats(totals, today: today),
                badges: QuestBadge.all.map { ($0, totals.badges[$0.id]) },
                grants: UnlockLedger.perApp(active), apps: apps, rules: try await q.rules(try child.childsHousehold()),
                policy: policy,
                restriction: shieldRules.restriction(at: now, zone: zone).map {
                    ($0, shieldRules.restrictionEnds(after: now, zone: zone))
                },
                blockedToday: account.blocked,
                trueUntil: UnlockLedger.trueUntil(balances: active, policy: policy, now: now, zone: zone))
        }
    }

    /// What the guardian's console shows of each child of the actor's household, read for the
    /// whole household at once (the quests, their shown periods' completions, and one statement
    /// of balances, apps and streaks), not as one board per child; kept like the board
    /// (`KeptFamilyAnswers`) until a write or the first child's midnight changes it.
    public func household(as actor: MemberRecord) async throws -> [ChildSummary] {
        let children = try await access.children(as: actor)
        for child in children { try AccessPolicy.check(actor.actor, .readMember(child.scope)) }
        guard let household = actor.householdID, !children.isEmpty else { return [] }
        let now = clock.now()
        if let kept = parts.kept.console(household, children: children, now: now) { return kept }
        let ticket = parts.kept.consoles.ticket()
        let summaries = try await computedConsole(household, children: children, now: now)
        parts.kept.keep(summaries, of: household, children: children, now: now, ticket: ticket)
        return summaries
    }

    private func computedConsole(_ household: HouseholdID, children: [MemberRecord], now: Date) async throws
        -> [ChildSummary]
    {
        // Each child with its own today (its zone) and its quests, each with the key of the period
        // it shows today.
        typealias Shown = (quest: Quest, key: String)
        return try await store.quests.read { q in
            let byChild = Dictionary(grouping: try await q.quests(household: household), by: \.spec.assignee)
            let days = children.map { (child: $0, today: LocalDay(now, in: $0.zone)) }
            let shown = days.map { child, today in
                (byChild[child.id] ?? []).map { Shown($0, $0.spec.shownKey(today: today)) }
            }
            let completed = try await q.completedPeriods(shown.joined().map { ($0.quest.id, $0.key) })
            let facts = try await q.consoleFacts(days.map { ($0.child.id, $0.today) })
            return zip(days, shown).map { day, quests in
                let fact = facts[day.child.id] ?? ConsoleFacts()
                let done = quests.filter {
                    QuestState(
                        spec: $0.quest.spec, status: $0.quest.status,
                        completedThisPeriod: completed.contains(CompletedPeriod(quest: $0.quest.id, periodKey: $0.key)),
                        today: day.today) == .completed
                }
                return ChildSummary(
                    child: day.child, balance: fact.balance, quests: quests.count, done: done.count,
                    streak: DayRun.current(latest: fact.latestRun, today: day.today), apps: fact.apps)
            }
        }
    }

    /// The children of the actor's household (guardians and children alike may list them).
    public func children(as actor: MemberRecord) async throws -> [MemberRecord] {
        try await access.children(as: actor)
    }

    /// The child `id`, after checking that `actor` may read (or, with `manage`, change) its quests.
    public func child(_ id: MemberID, as actor: MemberRecord, manage: Bool = false) async throws -> MemberRecord {
        try await access.child(id, as: actor, manage: manage)
    }
}
