public import Foundation
public import QuestlineCore
public import QuestlineStore

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
}

/// What one usage upload did.
public struct UsageOutcome: Sendable {
    public let accepted: Int
    public let duplicates: Int
    public let pointsEarned: Int
    public let completed: [(quest: QuestID, periodKey: String, bonus: Int)]
    public let badges: [String]
    /// Use in these reports of a reward app while it was shielded (`RewardUse`).
    public let blocked: [BlockedUse]
}

/// Family quests: catalogs, quests, usage, progress and completion, the ledger, unlocks,
/// badges, and the live events that keep a family's devices in step.
///
/// Flow of a write: load what the rule needs and decide (core) and write, in one transaction;
/// after the commit, tell the household's connected devices.
public struct QuestsFeature: Sendable {
    let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    public let live: LiveHub
    /// Reports older than this are refused: progress periods that long ago are settled.
    public static let maxReports = 500
    /// Caps that keep every list a screen shows bounded.
    public static let maxApps = 100
    public static let maxQuests = 100

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        live = LiveHub(log: store.live)
    }

    // MARK: Who may

    /// The child `id`, after checking that `actor` may read (or, with `manage`, change) its quests.
    public func child(_ id: MemberID, as actor: MemberRecord, manage: Bool = false) async throws -> MemberRecord {
        guard let target = try await store.accounts.member(id) else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try AccessPolicy.check(actor.actor, .readMember(target.scope))
        guard target.role == .child, let household = target.householdID else {
            throw DomainError.notFound(Message("quests.error.notAChild"))
        }
        if manage { try AccessPolicy.check(actor.actor, .manageHousehold(household)) }
        return target
    }

    private func questAndChild(_ id: QuestID, as actor: MemberRecord, manage: Bool) async throws -> (
        Quest, MemberRecord
    ) {
        guard let quest = try await store.quests.read({ try await $0.quest(id) }) else {
            throw DomainError.notFound(Message("quests.error.noSuchQuest"))
        }
        guard actor.householdID == quest.householdID else {
            throw DomainError.notFound(Message("quests.error.noSuchQuest"))
        }
        let child = try await self.child(quest.spec.assignee, as: actor, manage: manage)
        return (quest, child)
    }

    /// Tells the household's devices, with the write (see `LiveAnnouncer`).
    private func announce(
        _ q: QuestQueries, _ kind: LiveEventKind, child: MemberRecord, quest: QuestID? = nil, now: Date
    ) async throws {
        guard let household = child.householdID else { return }
        try await q.live?.announce(kind, household: household, child: child.id, quest: quest, now: now)
    }

    // MARK: App catalog

    public func apps(_ childID: MemberID, as actor: MemberRecord) async throws -> [QuestApp] {
        let child = try await child(childID, as: actor)
        return try await store.quests.read { try await $0.apps(child.id) }
    }

    public func putApp(
        _ childID: MemberID, as actor: MemberRecord, token: String, name: String, icon: String?, role: String,
        pointsPerMinute: Int?
    ) async throws -> QuestApp {
        let child = try await child(childID, as: actor, manage: true)
        let app = try QuestApp.validated(
            token: token, name: name, icon: icon, role: role, pointsPerMinute: pointsPerMinute)
        try await store.quests.write { q in
            let apps = try await q.apps(child.id)
            if apps.count >= Self.maxApps, !apps.contains(where: { $0.token == app.token }) {
                throw DomainError.conflict(
                    field: "token", message: Message("quests.error.tooManyApps", ["count": .number(Self.maxApps)]))
            }
            if let existing = apps.first(where: { $0.token == app.token }), existing.role != app.role,
                try await q.quests(assignee: child.id).contains(where: { Self.uses($0.spec, app.token) })
            {
                throw DomainError.conflict(
                    field: "role",
                    message: Message("quests.error.appRoleInUse", ["app": .text(existing.name)]))
            }
            let now = clock.now()
            try await q.putApp(child.id, app, now: now)
            try await announce(q, .catalog, child: child, now: now)
        }
        return app
    }

    public func deleteApp(_ childID: MemberID, token: String, as actor: MemberRecord) async throws {
        let child = try await child(childID, as: actor, manage: true)
        try await store.quests.write { q in
            if let quest = try await q.quests(assignee: child.id).first(where: { Self.uses($0.spec, token) }) {
                throw DomainError.conflict(
                    field: "token",
                    message: Message("quests.error.appInUse", ["quest": .text(quest.spec.title)]))
            }
            guard try await q.deleteApp(child.id, token: token) else {
                throw DomainError.notFound(Message("quests.error.noSuchApp", ["token": .text(token)]))
            }
            try await announce(q, .catalog, child: child, now: clock.now())
        }
    }

    static func uses(_ spec: QuestSpec, _ token: String) -> Bool {
        spec.learningApps.contains(token) || spec.rewardApps.contains { $0.token == token }
    }

    // MARK: Household rules

    public func rules(_ household: HouseholdID, as actor: MemberRecord) async throws -> RedemptionRules {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        return try await store.quests.read { try await $0.rules(household) }
    }

    public func setRules(
        _ household: HouseholdID, as actor: MemberRecord, pointsPerMinute: Int, minMinutes: Int, maxMinutes: Int
    ) async throws -> RedemptionRules {
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        let rules = try RedemptionRules.validated(
            pointsPerMinute: pointsPerMinute, minMinutes: minMinutes, maxMinutes: maxMinutes)
        try await store.quests.write { q in
            try await q.setRules(household, rules)
            try await q.live?.announce(.rules, household: household, now: clock.now())
        }
        return rules
    }

    // MARK: Quests

    /// Sets a quest; answers with the quest as the child's board now shows it, read in the same
    /// transaction (`written`).
    public func createQuest(for childID: MemberID, draft: QuestDraft, as actor: MemberRecord) async throws
        -> QuestView
    {
        let child = try await child(childID, as: actor, manage: true)
        let now = clock.now()
        let today = LocalDay(now, in: child.zone)
        return try await store.quests.write { q in
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
                id: ids.make(), householdID: child.householdID!, spec: spec, status: .active, createdBy: actor.id,
                createdAt: now)
            try await q.insertQuest(quest)
            _ = try await settle(q, child: child, touching: [], now: now, catalog: catalog)
            try await announce(q, .quest, child: child, quest: quest.id, now: now)
            return try await written(q, quest.id, child: child, apps: catalog, now: now)
        }
    }

    /// Replaces a quest's fields. Progress is recomputed under the new rules from the same
    /// usage; periods already completed stay completed and are not paid again.
    public func updateQuest(_ id: QuestID, draft: QuestDraft, as actor: MemberRecord) async throws -> QuestView {
        let (existing, child) = try await questAndChild(id, as: actor, manage: true)
        let now = clock.now()
        let today = LocalDay(now, in: child.zone)
        return try await store.quests.write { q in
            let catalog = try await q.apps(child.id)
            let spec = try draft.spec(assignee: child.id, catalog: catalog, today: today)
            if spec.startDay < today, spec.startDay != existing.spec.startDay {
                throw DomainError.invalid(field: "startDate", Message("quests.error.startPast"))
            }
            var updated = existing
            updated.spec = spec
            try await q.updateQuest(updated, now: now)
            _ = try await settle(q, child: child, touching: [], now: now, catalog: catalog)
            try await announce(q, .quest, child: child, quest: id, now: now)
            return try await written(q, id, child: child, apps: catalog, now: now)
        }
    }

    /// Pauses or resumes. A paused quest does not complete; usage keeps being recorded, and on
    /// resume the current period counts all of its usage (progress is recomputed from usage).
    public func setStatus(_ id: QuestID, _ status: QuestStatus, as actor: MemberRecord) async throws -> QuestView {
        let (existing, child) = try await questAndChild(id, as: actor, manage: true)
        let now = clock.now()
        return try await store.quests.write { q in
            var updated = existing
            updated.status = status
            try await q.updateQuest(updated, now: now)
            let catalog = try await q.apps(child.id)
            if status == .active { _ = try await settle(q, child: child, touching: [], now: now, catalog: catalog) }
            try await announce(q, .quest, child: child, quest: id, now: now)
            return try await written(q, id, child: child, apps: catalog, now: now)
        }
    }

    /// Deletes a quest: it leaves both screens and stops counting. Points and unlocks it already
    /// paid stay (the ledger is append-only), and so do badges.
    public func deleteQuest(_ id: QuestID, as actor: MemberRecord) async throws {
        let (_, child) = try await questAndChild(id, as: actor, manage: true)
        let now = clock.now()
        try await store.quests.write { q in
            _ = try await q.deleteQuest(id, now: now)
            try await announce(q, .quest, child: child, quest: id, now: now)
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

    /// Settles a child's current periods again after its time zone was set: a period that the
    /// new zone's today makes complete pays now, not at the next upload.
    public func childZoneChanged(_ child: MemberRecord) async throws {
        guard child.role == .child, child.householdID != nil else { return }
        let now = clock.now()
        try await store.quests.write { q in
            let plan = try await settle(q, child: child, touching: [], now: now)
            if !plan.writesNothing { try await announce(q, .progress, child: child, now: now) }
        }
    }

    // MARK: Usage

    /// A session of one app that ends now, as a person reports it on the child's device page
    /// (`UsageReports.session`): the child's zone, whoever reports it, since the device is the
    /// child's.
    public func reportSession(_ childID: MemberID, appToken: String, minutes: Int?, as actor: MemberRecord)
        async throws -> UsageOutcome
    {
        let child = try await child(childID, as: actor)
        let report = try UsageReports.session(
            id: UUID.random().uuidString.lowercased(), appToken: appToken, minutes: minutes, endingAt: clock.now(),
            timeZone: child.timeZone)
        return try await reportUsage(childID, reports: [report], as: actor)
    }

    /// Records usage reports and settles what they change. Reports are validated first (all
    /// or nothing); a report id seen before is a duplicate and changes nothing.
    public func reportUsage(_ childID: MemberID, reports: [UsageReportInput], as actor: MemberRecord) async throws
        -> UsageOutcome
    {
        let child = try await child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .reportUsage(child.scope))
        guard !reports.isEmpty, reports.count <= Self.maxReports else {
            throw DomainError.invalid(
                field: "reports",
                Message("quests.error.reportsCount", ["min": .number(1), "max": .number(Self.maxReports)]))
        }
        let now = clock.now()
        // Checked against the catalogue inside the write, which settlement then reuses: one
        // read of it, not two (each statement is a round trip; docs/performance.md).
        return try await store.quests.write { q -> UsageOutcome in
            let catalog = try await q.apps(child.id)
            let records = try UsageReports.validate(reports, catalog: catalog, now: now)
            let (new, conflicting) = try await q.insertReports(child.id, records, now: now)
            if let id = conflicting.first, let index = reports.firstIndex(where: { $0.id == id }) {
                throw DomainError.conflict(
                    field: "reports[\(index)].id", message: Message("quests.error.reportConflict", ["id": .text(id)]))
            }
            guard !new.isEmpty else {
                return UsageOutcome(
                    accepted: 0, duplicates: reports.count, pointsEarned: 0, completed: [], badges: [], blocked: [])
            }
            let days = Set(records.filter { new.contains($0.id) }.flatMap(\.record.localDays))
            let plan = try await settle(q, child: child, touching: days, now: now, catalog: catalog)
            try await announce(q, .progress, child: child, now: now)
            return UsageOutcome(
                accepted: new.count, duplicates: reports.count - new.count, pointsEarned: plan.earned,
                completed: plan.completions.map { ($0.quest, $0.periodKey, $0.bonus) }, badges: plan.badges,
                blocked: try await blockedUse(
                    q, child: child, of: records.filter { new.contains($0.id) }.map(\.record), catalog: catalog,
                    now: now))
        }
    }

    /// The blocked use among `reports` (new reports of reward apps only: learning apps are never
    /// blocked; nothing is read when there are none).
    private func blockedUse(
        _ q: QuestQueries, child: MemberRecord, of reports: [UsageRecord], catalog: [QuestApp], now: Date
    ) async throws -> [BlockedUse] {
        let rewardApps = Set(catalog.filter { $0.role == .reward }.map(\.token))
        let rewardReports = reports.filter { rewardApps.contains($0.token) }
        guard let since = rewardReports.map(\.start).min() else { return [] }
        let account = try await rewardAccount(
            q, child: child, since: since, now: now, needsBlocked: true, apps: catalog)
        let ends = Set(rewardReports.map { "\($0.token)|\($0.end.timeIntervalSince1970)" })
        return account.blocked.filter { ends.contains("\($0.token)|\($0.at.timeIntervalSince1970)") }
    }

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
            plan.completions.isEmpty && plan.grants.isEmpty ? nil : try await questUpdateAt(q, record, now: now)
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
        if !plan.grants.isEmpty { try await announce(q, .policy, child: record, now: now) }
        for badge in plan.badges {
            try await events.record(
                .badgeAwarded, member: child,
                data: OutboxData.BadgeAwarded(memberId: child.rawValue, badgeId: badge, feature: "quests"), now: now)
        }
    }

    /// When a quest update may reach the member's phone (see `NotificationPreferences`).
    func questUpdateAt(_ q: QuestQueries, _ member: MemberRecord, now: Date) async throws -> Date? {
        let preferences =
            try await q.notificationPreferences(member.id) ?? .defaults(isChild: member.role == .child)
        return preferences.questUpdateAt(now, in: member.zone)
    }

    private static func stats(_ totals: ChildTotals, today: LocalDay) -> QuestStats {
        let summary = totals.summary
        return QuestStats(
            questsCompleted: summary.completions, bestStreak: summary.bestStreak,
            currentStreak: DayRun.current(latest: summary.latestRun, today: today),
            learningMinutes: summary.learningMinutes, pointsEarned: totals.pointsEarned)
    }

    // MARK: Points

    /// Turns points into minutes of a reward app, at the household's rate; the balance never
    /// goes below zero, however many requests arrive at once.
    public func redeem(_ childID: MemberID, token: String, minutes: Int, as actor: MemberRecord) async throws -> (
        GrantBalance, Int
    ) {
        let child = try await child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .actAsChild(child.scope, .redeemPoints))
        let now = clock.now()
        let result = try await store.quests.write { q -> (GrantBalance, Int) in
            let rules = try await q.rules(child.householdID!)
            guard let app = try await q.apps(child.id).first(where: { $0.token == token }), app.role == .reward else {
                throw DomainError.invalid(field: "appToken", Message("quests.error.chooseRewardApp"))
            }
            // The same decision as the device's: minutes bought now would be shielded (and
            // expire at midnight), so they are not sold now.
            let shield = try await q.shieldRules(child.id)
            if let reason = shield.restriction(at: now, zone: child.zone) {
                throw DomainError.conflict(
                    field: "appToken",
                    message: Self.redeemWaits(
                        Self.restrictionMessage(
                            reason, until: shield.restrictionEnds(after: now, zone: child.zone), zone: child.zoneID,
                            now: now)))
            }
            let cost = try rules.cost(minutes: minutes)
            // The grant and what its event needs come before the balance: the balance row is the
            // child's one row that every spend and credit waits for, held from its write to the
            // commit, so its write is among the transaction's last (a short balance rolls all
            // of it back).
            let grant = UnlockGrant(
                id: ids.makeUUID().uuidString.lowercased(), token: token, minutes: minutes, startsAt: now,
                expiresAt: UnlockGrant.expiry(now: now, zone: child.zone), questID: nil)
            try await q.insertGrant(child.id, grant, now: now)
            let notifyAt = try await questUpdateAt(q, child, now: now)
            let balance: Int
            do {
                balance = try await q.points.append(
                    child.id, kind: .redeem, points: -cost,
                    reason: Message(
                        "quests.ledger.redeemed",
                        ["minutes": .message(.count(minutes, .minutes)), "app": .text(app.name)]
                    ).stored,
                    by: actor.id, id: ids.makeUUID().uuidString.lowercased(), now: now)
            } catch PointsError.insufficientPoints(let have) {
                throw DomainError.conflict(
                    field: "minutes",
                    message: Message(
                        "quests.error.notEnoughPoints",
                        ["minutes": .message(.count(minutes, .minutes)), "cost": .number(cost), "have": .number(have)]))
            }
            try await q.live?.record(
                .rewardUnlocked, member: child.id,
                data: OutboxData.RewardUnlocked(
                    memberId: child.id.rawValue, appToken: token, minutes: minutes, startsAt: grant.startsAt,
                    expiresAt: grant.expiresAt, questId: nil, notifyAt: notifyAt), now: now)
            try await announce(q, .points, child: child, now: now)
            try await announce(q, .policy, child: child, now: now)
            return (GrantBalance(grant: grant, secondsLeft: minutes * 60), balance)
        }
        return result
    }

    /// "Reward apps are blocked now (downtime until 07:00 tomorrow)." (the child's local time).
    public static func restrictionMessage(_ reason: ShieldPolicy.Reason, until: Date?, zone: TimeZoneID, now: Date)
        -> Message
    {
        let downtime = reason == .downtime
        guard let until else {
            return Message(downtime ? "quests.shield.blockedDowntime" : "quests.shield.blockedOffToday")
        }
        return Message(
            downtime ? "quests.shield.blockedDowntimeUntil" : "quests.shield.blockedOffTodayUntil",
            ["until": .message(.until(until, now: now, in: zone))])
    }

    /// The restriction, and that redemption waits for its end ("… Redeem your points after that.").
    public static func redeemWaits(_ restriction: Message) -> Message {
        Message("quests.error.redeemWaits", ["restriction": .message(restriction)])
    }

    /// A guardian's correction, with a reason.
    public func adjust(_ childID: MemberID, points: Int, reason: String, as actor: MemberRecord) async throws -> Int {
        let child = try await child(childID, as: actor, manage: true)
        var v = FieldValidation()
        v.check { () throws(DomainError) in
            guard points != 0, (-100_000...100_000).contains(points) else {
                throw .invalid(
                    field: "points",
                    Message("quests.error.adjustPoints", ["min": .number(-100_000), "max": .number(100_000)]))
            }
        }
        let reason = reason.trimmed()
        v.check { () throws(DomainError) in
            guard (1...200).contains(reason.count) else {
                throw .invalid(field: "reason", Message("quests.error.adjustReason", ["max": .number(200)]))
            }
        }
        try v.finish()
        let now = clock.now()
        return try await store.quests.write { q in
            let balance: Int
            do {
                balance = try await q.points.append(
                    child.id, kind: .adjust, points: points, reason: reason, by: actor.id,
                    id: ids.makeUUID().uuidString.lowercased(), now: now)
            } catch PointsError.insufficientPoints(let have) {
                throw DomainError.conflict(
                    field: "points", message: Message("quests.error.belowZero", ["balance": .number(have)]))
            }
            try await announce(q, .points, child: child, now: now)
            return balance
        }
    }

    public func ledger(_ childID: MemberID, as actor: MemberRecord, limit: Int, offset: Int) async throws -> (
        entries: [LedgerEntry], balance: Int
    ) {
        let child = try await child(childID, as: actor)
        return try await store.quests.read { q in
            (
                try await q.points.entries(child.id, limit: limit, offset: offset),
                try await q.points.balance(child.id).balance
            )
        }
    }

    /// The reward apps a child may open now, with the minutes left: what the device enforces.
    public func grants(_ childID: MemberID, as actor: MemberRecord) async throws -> [GrantBalance] {
        let child = try await child(childID, as: actor)
        return try await store.quests.read { q in try await activeGrants(q, child: child, now: clock.now()) }
    }

    /// The usage that reward accounting reads: from half a day before the first grant (or
    /// `since`) to a day after now.
    private static func rewardWindow(grants: [UnlockGrant], since: Date, now: Date) -> (from: Date, to: Date) {
        let first = min(grants.map(\.startsAt).min() ?? since, since)
        return (first.addingTimeInterval(-43_200), now.addingTimeInterval(86_400))
    }

    private func activeGrants(_ q: QuestQueries, child: MemberRecord, now: Date) async throws -> [GrantBalance] {
        try await rewardAccount(q, child: child, since: now, now: now).balances.filter { $0.isActive(at: now) }
    }

    /// Reward apps' use charged to the grants not yet expired at `since` (`RewardUse`, the one
    /// accounting): what is left of each, and the use that was blocked since `since`. With no
    /// grant and `needsBlocked` false, nothing more is read.
    /// `grants`: the grants unexpired at `since`, and `usage`: reports read for a span that
    /// covers `rewardWindow`, when the caller read them already.
    private func rewardAccount(
        _ q: QuestQueries, child: MemberRecord, since: Date, now: Date, needsBlocked: Bool = false,
        apps: [QuestApp]? = nil, rules: ShieldRules? = nil, grants known: [UnlockGrant]? = nil,
        usage: UsageSpan? = nil
    ) async throws -> RewardUse.Account {
        let grants = if let known { known } else { try await q.grants(child.id, unexpiredAt: since) }
        guard !grants.isEmpty || needsBlocked else { return RewardUse.Account(balances: [], blocked: []) }
        var catalog = apps ?? []
        if apps == nil { catalog = try await q.apps(child.id) }
        var shield = rules ?? .open
        if rules == nil { shield = try await q.shieldRules(child.id) }
        let window = Self.rewardWindow(grants: grants, since: since, now: now)
        let reports =
            if let read = usage?.records(from: window.from, to: window.to) { read } else {
                try await q.reports(child.id, from: window.from, to: window.to)
            }
        let account = RewardUse.account(
            grants: grants, reports: reports, rewardApps: Set(catalog.filter { $0.role == .reward }.map(\.token)),
            rules: shield, zone: child.zone)
        return RewardUse.Account(balances: account.balances, blocked: account.blocked.filter { $0.at > since })
    }

    // MARK: The device's app catalog

    /// The child's device reports what is installed (replacing what it said before); the
    /// guardians' builder picks from it.
    public func reportDeviceApps(_ childID: MemberID, as actor: MemberRecord, apps items: [DeviceCatalog.Item])
        async throws -> Int
    {
        let child = try await child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .actAsChild(child.scope, .reportDeviceApps))
        let apps = try DeviceCatalog.validate(items)
        let now = clock.now()
        try await store.quests.write { q in
            try await q.replaceDeviceApps(child.id, apps, now: now)
            try await announce(q, .catalog, child: child, now: now)
        }
        return apps.count
    }

    public func deviceApps(_ childID: MemberID, as actor: MemberRecord) async throws -> [(
        app: DeviceApp, hasIcon: Bool
    )] {
        let child = try await child(childID, as: actor)
        return try await store.quests.read { q in try await q.deviceApps(child.id) }
    }

    public func deviceIcon(_ childID: MemberID, token: String, as actor: MemberRecord) async throws -> [UInt8] {
        let child = try await child(childID, as: actor)
        guard let icon = try await store.quests.read({ try await $0.deviceIcon(child.id, token: token) }) else {
            throw DomainError.notFound(Message("quests.error.noIcon"))
        }
        return icon
    }

    // MARK: Weekly report

    /// The week ending on `last` (the child's today when nil), for the household.
    /// The child's week (Monday to Sunday) holding `day` (today when nil; never a week to come).
    public func weeklyReport(_ childID: MemberID, as actor: MemberRecord, week day: LocalDay?) async throws
        -> WeeklyReport
    {
        let child = try await child(childID, as: actor)
        let zone = child.zone
        let today = LocalDay(clock.now(), in: zone)
        let first = min(day ?? today, today).monday
        let last = first.adding(days: 6)
        let rows = try await store.quests.read { q in
            try await q.reportRows(
                child.id, first: first, last: last, from: first.start(in: zone),
                to: last.adding(days: 1).start(in: zone))
        }
        return WeeklyReport(
            week: first, zone: zone, learning: rows.learning, completions: rows.completions, ledger: rows.ledger)
    }

    // MARK: Asking for more time

    /// The child asks for minutes of a reward app, with a note; the household hears of it.
    public func askForTime(_ childID: MemberID, as actor: MemberRecord, appToken: String, minutes: Int, note: String)
        async throws -> TimeRequest
    {
        let child = try await child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .actAsChild(child.scope, .askForTime))
        let now = clock.now()
        let zone = child.zone
        let today = LocalDay(now, in: zone)
        return try await store.quests.write { q in
            try await q.points.lock(child.id)  // one request at a time per child: the limits hold
            let rewardApps = Set(try await q.apps(child.id).filter { $0.role == .reward }.map(\.token))
            let counts = try await q.requestCounts(child.id, since: today.start(in: zone))
            let checked = try TimeRequest.check(
                appToken: appToken, minutes: minutes, note: note, rewardApps: rewardApps, pending: counts.pending,
                today: counts.since,
                secondsToTomorrow: Int(today.adding(days: 1).start(in: zone).timeIntervalSince(now)))
            let request = TimeRequest(
                id: ids.makeUUID().uuidString.lowercased(), child: child.id, appToken: appToken,
                minutes: checked.minutes, note: checked.note, state: .pending, createdAt: now, decidedAt: nil)
            try await q.insertRequest(request)
            try await announce(q, .request, child: child, now: now)
            return request
        }
    }

    /// The child's requests, newest first (the child and the household's guardians).
    public func timeRequests(_ childID: MemberID, as actor: MemberRecord) async throws -> [TimeRequest] {
        let child = try await child(childID, as: actor)
        return try await store.quests.read { q in try await q.requests(child.id) }
    }

    /// A request waiting for a guardian's answer, with the child and the app's name.
    public struct WaitingRequest: Sendable, Equatable {
        public let request: TimeRequest
        public let child: MemberRecord
        public let appName: String
    }

    /// The requests for more time waiting for an answer from the actor: every child's of their
    /// household when they are a guardian of it (none otherwise), oldest first. `children`: the
    /// household's children when the caller has them already.
    public func waitingRequests(as actor: MemberRecord, children known: [MemberRecord]? = nil) async throws
        -> [WaitingRequest]
    {
        guard let household = actor.householdID, AccessPolicy.allows(actor.actor, .manageHousehold(household)) else {
            return []
        }
        let children: [MemberRecord]
        if let known { children = known } else { children = try await self.children(as: actor) }
        let byID = Dictionary(children.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return try await store.quests.read { q in
            try await q.pendingRequests(children.map(\.id)).compactMap { pending in
                byID[pending.request.child].map {
                    WaitingRequest(
                        request: pending.request, child: $0, appName: pending.appName ?? pending.request.appToken)
                }
            }
        }
    }

    /// A guardian approves (which grants the minutes until the end of the child's day) or denies;
    /// a request is answered once, whoever answers first.
    public func decide(_ requestID: String, approve: Bool, as actor: MemberRecord) async throws -> TimeRequest {
        guard let uuid = UUID(uuidString: requestID),
            let found = try await store.quests.read({ try await $0.request(uuid.uuidString.lowercased()) })
        else { throw DomainError.notFound(Message("quests.error.noSuchRequest")) }
        let child = try await child(found.child, as: actor, manage: true)
        let now = clock.now()
        return try await store.quests.write { q in
            var grantID: String?
            if approve {
                let grant = UnlockGrant(
                    id: ids.makeUUID().uuidString.lowercased(), token: found.appToken, minutes: found.minutes,
                    startsAt: now, expiresAt: UnlockGrant.expiry(now: now, zone: child.zone), questID: nil)
                grantID = grant.id
                try await q.insertGrant(child.id, grant, now: now)
            }
            guard
                try await q.decide(
                    found.id, state: approve ? .approved : .denied, by: actor.id, grant: grantID, now: now)
            else {
                throw DomainError.conflict(field: nil, message: Message("quests.error.requestAnswered"))
            }
            if grantID != nil {
                try await q.live?.record(
                    .rewardUnlocked, member: child.id,
                    data: OutboxData.RewardUnlocked(
                        memberId: child.id.rawValue, appToken: found.appToken, minutes: found.minutes, startsAt: now,
                        expiresAt: UnlockGrant.expiry(now: now, zone: child.zone), questId: nil,
                        notifyAt: try await questUpdateAt(q, child, now: now)), now: now)
                try await announce(q, .policy, child: child, now: now)
            }
            try await announce(q, .request, child: child, now: now)
            return try await q.request(found.id) ?? found
        }
    }

    // MARK: Shield policy

    /// What the child's device enforces now (`ShieldPolicy.compute` over the grants and rules).
    public func policy(_ childID: MemberID, as actor: MemberRecord) async throws -> ShieldPolicy {
        let child = try await child(childID, as: actor)
        let now = clock.now()
        return try await store.quests.read { q in
            let apps = try await q.apps(child.id)
            let rules = try await q.shieldRules(child.id)
            let account = try await rewardAccount(q, child: child, since: now, now: now, apps: apps, rules: rules)
            return ShieldPolicy.compute(
                rewardApps: apps.filter { $0.role == .reward }.map(\.token), balances: account.balances, rules: rules,
                now: now, zone: child.zone)
        }
    }

    public func shieldRules(_ childID: MemberID, as actor: MemberRecord) async throws -> ShieldRules {
        let child = try await child(childID, as: actor)
        return try await store.quests.read { q in try await q.shieldRules(child.id) }
    }

    /// A guardian sets the child's rules; the devices hear of it (a `policy` live event).
    public func setShieldRules(
        _ childID: MemberID, as actor: MemberRecord, rewardDays: [Int], downtimeStart: Int?, downtimeEnd: Int?
    ) async throws -> ShieldRules {
        let child = try await child(childID, as: actor, manage: true)
        let rules = try ShieldRules.validated(
            rewardDays: rewardDays, downtimeStart: downtimeStart, downtimeEnd: downtimeEnd)
        let now = clock.now()
        try await store.quests.write { q in
            try await q.setShieldRules(child.id, rules, now: now)
            try await announce(q, .policy, child: child, now: now)
        }
        return rules
    }

    // MARK: Screens

    /// Everything the child's board shows (the guardian's view of a child uses the same).
    public func board(_ childID: MemberID, as actor: MemberRecord) async throws -> QuestBoard {
        let child = try await child(childID, as: actor)
        let now = clock.now()
        let zone = child.zone
        let today = LocalDay(now, in: zone)
        return try await store.quests.read { q in
            let apps = try await q.apps(child.id)
            let quests = try await q.quests(assignee: child.id)
            let scope = SettlementScope(quests: quests, touching: [], now: now, zone: zone)
            // One read of the usage for both progress and reward accounting.
            let since = today.start(in: zone)
            let grants = try await q.grants(child.id, unexpiredAt: since)
            let window = Self.rewardWindow(grants: grants, since: since, now: now)
            let usage = try await q.usage(
                child.id, from: min(scope.usageFrom, window.from), to: max(scope.usageTo, window.to))
            let views = try await views(q, of: quests, child: child, apps: apps, now: now, usage: usage)
            let totals = try await q.totals(child.id, today: today)
            let shieldRules = try await q.shieldRules(child.id)
            let account = try await rewardAccount(
                q, child: child, since: since, now: now, needsBlocked: true, apps: apps, rules: shieldRules,
                grants: grants, usage: usage)
            let active = account.balances.filter { $0.isActive(at: now) }
            return QuestBoard(
                child: child, quests: views, balance: totals.balance, stats: Self.stats(totals, today: today),
                badges: QuestBadge.all.map { ($0, totals.badges[$0.id]) },
                grants: UnlockLedger.perApp(active), apps: apps, rules: try await q.rules(child.householdID!),
                policy: ShieldPolicy.compute(
                    rewardApps: apps.filter { $0.role == .reward }.map(\.token), balances: active, rules: shieldRules,
                    now: now, zone: zone),
                restriction: shieldRules.restriction(at: now, zone: zone).map {
                    ($0, shieldRules.restrictionEnds(after: now, zone: zone))
                },
                blockedToday: account.blocked)
        }
    }

    /// What the guardian's console shows of each child of the actor's household, read for the
    /// whole household at once (the quests, their shown periods' completions, and one statement
    /// of balances, apps and streaks), not as one board per child.
    public func household(as actor: MemberRecord) async throws -> [ChildSummary] {
        let children = try await children(as: actor)
        for child in children { try AccessPolicy.check(actor.actor, .readMember(child.scope)) }
        guard let household = actor.householdID, !children.isEmpty else { return [] }
        let now = clock.now()
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
        guard let household = actor.householdID else { return [] }
        return try await store.accounts.household(household)?.members.filter { $0.role == .child } ?? []
    }
}
