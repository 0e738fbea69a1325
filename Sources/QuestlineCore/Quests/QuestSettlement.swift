public import Foundation

/// A quest period that has completed: the quest and the period's key (its first day).
public struct CompletedPeriod: Sendable, Hashable {
    public let quest: QuestID
    public let periodKey: String

    public init(quest: QuestID, periodKey: String) {
        self.quest = quest
        self.periodKey = periodKey
    }
}

/// A child's learning totals as kept beside the usage: minutes learned, periods completed,
/// the longest run of learning days, and the latest run starting on or before the day asked
/// about (which makes the current streak).
public struct LearningSummary: Sendable, Equatable {
    public let learningMinutes: Int
    public let completions: Int
    public let bestStreak: Int
    public let latestRun: DayRun?

    public init(learningMinutes: Int, completions: Int, bestStreak: Int, latestRun: DayRun?) {
        self.learningMinutes = learningMinutes
        self.completions = completions
        self.bestStreak = bestStreak
        self.latestRun = latestRun
    }
}

/// What a settlement or a board must read, given the quests and the days some usage touched:
/// every period of those quests containing one of the days, the period each shows today, and
/// the usage from the earliest of them.
public struct SettlementScope: Sendable, Equatable {
    public let today: LocalDay
    /// The days whose earnings are recomputed: the days the new usage touched, up to today, and
    /// today (usage stamped on a later day than the child's today waits for that day, and is
    /// settled by the first settlement on it).
    public let touched: Set<LocalDay>
    /// The first day of the earliest period considered: completions from here on are read.
    public let firstDay: LocalDay
    /// The usage to read: from two days before `firstDay`'s start (a report stamped in another
    /// zone may fall on it) to a day after now (devices' clocks run ahead a little).
    public let usageFrom: Date
    public let usageTo: Date

    public init(quests: [Quest], touching touchedDays: Set<LocalDay>, now: Date, zone: TimeZone) {
        let today = LocalDay(now, in: zone)
        let days = touchedDays.filter { $0 <= today }.union([today])
        var earliest = days.min() ?? today
        for quest in quests {
            if quest.spec.goal == .streak {
                earliest = min(earliest, quest.spec.startDay)
                continue
            }
            earliest = min(earliest, quest.spec.shownPeriod(today: today).first)
            for day in days {
                if let window = quest.spec.period(containing: day) { earliest = min(earliest, window.first) }
            }
        }
        self.today = today
        touched = days
        firstDay = earliest
        usageFrom = earliest.start(in: zone).addingTimeInterval(-2 * 86_400)
        usageTo = now.addingTimeInterval(86_400)
    }
}

/// Everything settlement decides from: the child's stored state under the child's lock.
public struct SettlementInput: Sendable {
    public let now: Date
    public let zone: TimeZone
    public let scope: SettlementScope
    public let catalog: [QuestApp]
    public let quests: [Quest]
    /// Usage reports between `scope.usageFrom` and `scope.usageTo`.
    public let usage: [UsageRecord]
    /// The earnings stored for `scope.touched`.
    public let earnings: [DayEarning]
    /// The bonus paid for each completed period of these quests since `scope.firstDay`.
    public let paid: [CompletedPeriod: Int]

    public init(
        now: Date, zone: TimeZone, scope: SettlementScope, catalog: [QuestApp], quests: [Quest],
        usage: [UsageRecord], earnings: [DayEarning], paid: [CompletedPeriod: Int]
    ) {
        self.now = now
        self.zone = zone
        self.scope = scope
        self.catalog = catalog
        self.quests = quests
        self.usage = usage
        self.earnings = earnings
        self.paid = paid
    }
}

/// The child's totals, read only when a plan changes them (most repeated uploads change
/// nothing): what badges are judged on, and the learning runs a new learning day may join.
public struct SettlementTotals: Sendable {
    public let summary: LearningSummary
    /// The learning runs overlapping `SettlementPlan.runDays`.
    public let runs: [DayRun]
    /// Points earned in all so far (the ledger's credits, adjustments aside).
    public let pointsEarned: Int
    /// Badges already awarded.
    public let awarded: Set<String>

    public init(summary: LearningSummary, runs: [DayRun], pointsEarned: Int, awarded: Set<String>) {
        self.summary = summary
        self.runs = runs
        self.pointsEarned = pointsEarned
        self.awarded = awarded
    }
}

/// What settlement writes: a plan the store applies in one transaction. Applying it brings the
/// earnings, learning totals, ledger, completions, grants and badges in line with the usage;
/// planning again from the state it leaves gives an empty plan.
public struct SettlementPlan: Sendable, Equatable {
    /// A ledger credit.
    public struct Credit: Sendable, Equatable {
        public let kind: LedgerKind
        public let points: Int
        /// Kept as a message (`Message.stored`): read in the reader's language.
        public let reason: String
        public let quest: QuestID?
    }

    /// A completed period: new, or one whose bonus grows.
    public struct Completion: Sendable, Equatable {
        public let quest: QuestID
        public let periodKey: String
        public let value: Int
        public let bonus: Int
    }

    /// A reward app unlocked by a completion, from now to `expiresAt`.
    public struct Grant: Sendable, Equatable {
        public let token: String
        public let minutes: Int
        public let expiresAt: Date
        public let quest: QuestID
    }

    /// Earnings per app and day to store (new, or changed by late usage).
    public var earnings: [DayEarning] = []
    /// The change in learning minutes in all.
    public var learningMinutes = 0
    /// Days with learning minutes whose earnings this plan stores: they join the learning runs.
    public var learningDays: [LocalDay] = []
    /// Learning runs to replace: `removedRuns` go, `addedRuns` come (new days join runs).
    public var removedRuns: [DayRun] = []
    public var addedRuns: [DayRun] = []
    /// The best streak after this plan (set with the totals).
    public var bestStreak = 0
    /// Ledger credits, in order.
    public var credits: [Credit] = []
    /// Periods completed now, and completed periods whose bonus grows.
    public var completions: [Completion] = []
    public var raisedBonuses: [Completion] = []
    /// Streak completions whose key moves to the cycle it now is (`QuestSettlement.settleStreak`).
    public var rekeyed: [Rekey] = []

    /// A completed period whose key changes from `from` to `to`.
    public struct Rekey: Sendable, Equatable {
        public let quest: QuestID
        public let from: String
        public let to: String
    }
    public var grants: [Grant] = []
    /// Badges deserved and not yet awarded.
    public var badges: [String] = []
    /// The totals badges are judged on, after this plan; nil until the totals are read.
    public var stats: QuestStats?

    /// Whether the plan changes the child's totals, so that they must be read (`withTotals`).
    public var changesTotals: Bool {
        learningMinutes != 0 || !learningDays.isEmpty || !credits.isEmpty || !completions.isEmpty
    }

    /// The learning runs that may join this plan's learning days.
    public var runDays: ClosedRange<LocalDay>? {
        learningDays.min().map { $0.adding(days: -1)...learningDays.max()!.adding(days: 1) }
    }

    /// True when applying the plan would write nothing.
    public var writesNothing: Bool {
        earnings.isEmpty && learningMinutes == 0 && removedRuns.isEmpty && addedRuns.isEmpty && credits.isEmpty
            && completions.isEmpty && raisedBonuses.isEmpty && grants.isEmpty && badges.isEmpty && rekeyed.isEmpty
    }

    /// Points earned by usage (bonuses aside).
    public var earned: Int { credits.filter { $0.kind == .earn }.reduce(0) { $0 + $1.points } }
}

/// Quest settlement: from the catalog, the quests, the usage and what was settled before,
/// what to write. Pure; the store applies the plan. Two steps, so that an upload that changes
/// nothing reads nothing more: `plan` decides earnings, credits, completions and grants; when
/// that changes the totals, `withTotals` adds the learning runs, the stats and the badges.
public enum QuestSettlement {
    public static func plan(_ input: SettlementInput) -> SettlementPlan {
        var plan = SettlementPlan()
        let today = input.scope.today
        let quests = input.quests.filter { $0.status == .active }
        let evaluator = QuestEvaluator(catalog: input.catalog, timeline: UsageTimeline(input.usage).through(today))

        // Earn: whole learning minutes per app and day, credited once; later usage of the same
        // day credits only the difference.
        let stored = Dictionary(
            input.earnings.map { (EarningKey(token: $0.token, day: $0.day), $0) }, uniquingKeysWith: { a, _ in a })
        for earning in evaluator.timeline.earnings(catalog: evaluator.catalog)
        where input.scope.touched.contains(earning.day) {
            let before = stored[EarningKey(token: earning.token, day: earning.day)]
            guard before?.minutes != earning.minutes || before?.points != earning.points else { continue }
            plan.earnings.append(earning)
            plan.learningMinutes += earning.minutes - (before?.minutes ?? 0)
            if earning.minutes > 0 { plan.learningDays.append(earning.day) }
            let delta = earning.points - (before?.points ?? 0)
            if delta > 0 {
                let name = evaluator.catalog[earning.token]?.name ?? earning.token
                plan.credits.append(
                    .init(
                        kind: .earn, points: delta,
                        reason: Message("quests.ledger.earned", ["app": .text(name), "day": .day(earning.day, .long)])
                            .stored, quest: nil))
            }
        }

        // Completions: once per period, each paying its bonus and unlocking its reward apps.
        let considered = input.scope.touched
        for quest in quests {
            if quest.spec.goal == .streak {
                settleStreak(quest, evaluator.streakRuns(quest.spec, through: today), input: input, into: &plan)
                continue
            }
            for progress in evaluator.completions(quest.spec, touching: considered, today: today) {
                let bonus = quest.spec.bonus(forPoints: progress.points)
                let completion = SettlementPlan.Completion(
                    quest: quest.id, periodKey: progress.period.key, value: progress.value, bonus: bonus)
                if let paid = input.paid[CompletedPeriod(quest: quest.id, periodKey: progress.period.key)] {
                    topUp(quest, completion, paid: paid, into: &plan)
                    continue
                }
                complete(quest, completion, input: input, into: &plan)
            }
        }

        return plan
    }

    /// A period completed before: usage that arrived since (late, or out of order) can only
    /// raise its points, so its bonus is topped up to bonus% of them. The total paid is then the
    /// same whatever order the reports came in.
    private static func topUp(
        _ quest: Quest, _ completion: SettlementPlan.Completion, paid: Int, into plan: inout SettlementPlan
    ) {
        guard completion.bonus > paid else { return }
        plan.raisedBonuses.append(completion)
        plan.credits.append(
            .init(
                kind: .bonus, points: completion.bonus - paid,
                reason: Message("quests.ledger.bonusGrew", ["quest": .text(quest.spec.title)]).stored, quest: quest.id))
    }

    /// A new completion: its bonus, and its reward apps unlocked.
    private static func complete(
        _ quest: Quest, _ completion: SettlementPlan.Completion, input: SettlementInput, into plan: inout SettlementPlan
    ) {
        plan.credits.append(
            .init(
                kind: .bonus, points: completion.bonus,
                reason: Message("quests.ledger.completed", ["quest": .text(quest.spec.title)]).stored, quest: quest.id))
        for unlock in quest.spec.rewardApps {
            plan.grants.append(
                .init(
                    token: unlock.token, minutes: unlock.minutes,
                    expiresAt: UnlockGrant.expiry(now: input.now, zone: input.zone), quest: quest.id))
        }
        plan.completions.append(completion)
    }

    /// A streak pays once per full cycle of its runs. A late report can fill a gap and join two
    /// runs, which moves where the cycles end; so each run's cycles are counted, not matched by
    /// day: the run pays as many cycles as it holds, completions already paid inside it move to
    /// the cycles it now has (their key changes, nothing is paid twice), and only the cycles
    /// beyond them are new. The count, unlocks and keys then equal those of in-order arrival;
    /// a moved cycle's bonus is topped up when the cycle it became earned more, and never
    /// taken back.
    private static func settleStreak(
        _ quest: Quest, _ history: StreakHistory, input: SettlementInput, into plan: inout SettlementPlan
    ) {
        let paid = input.paid.filter { $0.key.quest == quest.id }
        for run in history.runs {
            let cycles = history.completed.filter { run.contains($0.period.last) }
            let keys = Set(cycles.map(\.period.key))
            var moving = paid.filter { period, _ in
                guard let day = LocalDay(iso: period.periodKey) else { return false }
                return run.contains(day) && !keys.contains(period.periodKey)
            }.sorted { $0.key.periodKey < $1.key.periodKey }
            for cycle in cycles {
                let bonus = quest.spec.bonus(forPoints: cycle.points)
                let completion = SettlementPlan.Completion(
                    quest: quest.id, periodKey: cycle.period.key, value: cycle.value, bonus: bonus)
                var paidBonus = paid[CompletedPeriod(quest: quest.id, periodKey: cycle.period.key)]
                if paidBonus == nil, !moving.isEmpty {
                    let moved = moving.removeFirst()
                    plan.rekeyed.append(.init(quest: quest.id, from: moved.key.periodKey, to: cycle.period.key))
                    paidBonus = moved.value
                }
                if let paidBonus {
                    topUp(quest, completion, paid: paidBonus, into: &plan)
                } else {
                    complete(quest, completion, input: input, into: &plan)
                }
            }
        }
    }

    /// Completes a plan that changes the child's totals: learning days join the runs beside
    /// them, and badges follow the totals after the plan.
    public static func withTotals(_ plan: SettlementPlan, _ totals: SettlementTotals, today: LocalDay)
        -> SettlementPlan
    {
        var plan = plan
        let known = Set(totals.runs + [totals.summary.latestRun].compactMap { $0 })
        let joined = Set(DayRun.runs(of: known.flatMap(\.days) + plan.learningDays))
        plan.removedRuns = known.subtracting(joined).sorted { $0.first < $1.first }
        plan.addedRuns = joined.subtracting(known).sorted { $0.first < $1.first }
        plan.bestStreak = max(totals.summary.bestStreak, plan.addedRuns.map(\.length).max() ?? 0)
        let runsAfter = known.subtracting(plan.removedRuns).union(plan.addedRuns)
        let stats = QuestStats(
            questsCompleted: totals.summary.completions + plan.completions.count, bestStreak: plan.bestStreak,
            currentStreak: DayRun.current(in: Array(runsAfter), today: today),
            learningMinutes: totals.summary.learningMinutes + plan.learningMinutes,
            pointsEarned: totals.pointsEarned + plan.credits.reduce(0) { $0 + $1.points })
        plan.stats = stats
        plan.badges = stats.deserved.map(\.id).filter { !totals.awarded.contains($0) }
        return plan
    }

    private struct EarningKey: Hashable {
        let token: String
        let day: LocalDay
    }
}
