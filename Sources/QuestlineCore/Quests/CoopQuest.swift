public import Foundation

public enum CoopQuestTag {}
public typealias CoopQuestID = Identifier<CoopQuestTag>

/// What a co-op quest counts: the children's learning minutes together, or their learning
/// days together (days with at least the daily minimum), in one week.
public enum CoopGoal: String, Sendable, CaseIterable, Codable {
    case minutes, days

    public var unit: QuestUnit { self == .minutes ? .minutes : .days }

    /// The target's range: a week of several children.
    public var targetRange: ClosedRange<Int> { self == .minutes ? 1...50_000 : 1...56 }
}

/// What a guardian sets: one target for several children, one week (Monday to Sunday, each
/// child's local days), a bonus on each contributor's own points, reward apps each unlocks.
public struct CoopQuestSpec: Sendable, Equatable, Codable {
    public var title: String
    public var goal: CoopGoal
    public var target: Int
    /// A learning day's minutes (goal `days`).
    public var dailyMinimumMinutes: Int
    public var weekStart: LocalDay
    public var children: [MemberID]
    public var bonusPercent: Int
    public var rewardApps: [RewardUnlock]

    public static let children = 2...8

    public init(
        title: String, goal: CoopGoal, target: Int, dailyMinimumMinutes: Int = 15, weekStart: LocalDay,
        children: [MemberID], bonusPercent: Int = 10, rewardApps: [RewardUnlock] = []
    ) {
        self.title = title
        self.goal = goal
        self.target = target
        self.dailyMinimumMinutes = dailyMinimumMinutes
        self.weekStart = weekStart
        self.children = children
        self.bonusPercent = bonusPercent
        self.rewardApps = rewardApps
    }

    public var weekEnd: LocalDay { weekStart.adding(days: 6) }
    public var days: ClosedRange<LocalDay> { weekStart...weekEnd }

    /// Checks every field, named as the API names them: the children are two to eight of
    /// `household` (each with its catalog), the week this one or the next in the guardian's
    /// `today`, each reward app a reward app of every child. The title, bonus, daily minimum and
    /// reward apps follow every quest's rules (`QuestSpec`, `RewardUnlock`).
    public func validated(household: [MemberID: [QuestApp]], today: LocalDay) throws(DomainError) -> CoopQuestSpec {
        var v = FieldValidation()
        var spec = self
        if let title = v.check({ () throws(DomainError) in try QuestSpec.checkedTitle(title) }) { spec.title = title }
        v.check { () throws(DomainError) in
            guard goal.targetRange.contains(target) else {
                throw .invalid(field: "target", QuestSpec.targetRangeMessage(goal.targetRange, goal.unit))
            }
            if goal == .days, target > 7 * children.count {
                throw .invalid(
                    field: "target",
                    Message(
                        "quests.error.coopDaysPerWeek",
                        ["count": .number(children.count), "days": .message(.count(7 * children.count, .days))]))
            }
        }
        v.check { () throws(DomainError) in
            guard QuestSpec.dailyMinimumRange.contains(dailyMinimumMinutes) else {
                throw .invalid(field: "dailyMinimumMinutes", QuestSpec.dailyMinimumMessage)
            }
        }
        v.check { () throws(DomainError) in
            let thisWeek = today.monday
            guard weekStart == thisWeek || weekStart == thisWeek.adding(days: 7) else {
                throw .invalid(
                    field: "weekStart", Message("quests.error.coopWeek", ["day": .day(thisWeek, .long)]))
            }
        }
        v.check { () throws(DomainError) in
            guard Self.children.contains(children.count), Set(children).count == children.count else {
                throw .invalid(
                    field: "children",
                    Message(
                        "quests.error.coopChildrenCount",
                        ["min": .number(Self.children.lowerBound), "max": .number(Self.children.upperBound)]))
            }
            guard children.allSatisfy({ household[$0] != nil }) else {
                throw .invalid(field: "children", Message("quests.error.coopChildrenHousehold"))
            }
        }
        v.check { () throws(DomainError) in try QuestSpec.checkBonus(bonusPercent) }
        v.check { () throws(DomainError) in
            let names = Dictionary(
                household.values.joined().map { ($0.token, $0.name) }, uniquingKeysWith: { first, _ in first })
            for child in children {
                guard let catalog = household[child] else { continue }
                try RewardUnlock.check(rewardApps, catalog: catalog, ofEveryChild: true, names: names)
            }
        }
        try v.finish()
        return spec
    }
}

public enum CoopQuestStatus: String, Sendable, Codable {
    case active, cancelled
}

/// A stored co-op quest.
public struct CoopQuest: Sendable, Equatable {
    public let id: CoopQuestID
    public let householdID: HouseholdID
    public let spec: CoopQuestSpec
    public let status: CoopQuestStatus
    public let createdAt: Date
    public let completedAt: Date?

    public init(
        id: CoopQuestID, householdID: HouseholdID, spec: CoopQuestSpec, status: CoopQuestStatus, createdAt: Date,
        completedAt: Date?
    ) {
        self.id = id
        self.householdID = householdID
        self.spec = spec
        self.status = status
        self.createdAt = createdAt
        self.completedAt = completedAt
    }
}

/// A child's learning on one local day, as settlement stored it (`quest_earnings`, summed).
public struct LearningDay: Sendable, Equatable {
    public let child: MemberID
    public let day: LocalDay
    public let minutes: Int
    public let points: Int

    public init(child: MemberID, day: LocalDay, minutes: Int, points: Int) {
        self.child = child
        self.day = day
        self.minutes = minutes
        self.points = points
    }
}

/// What a co-op quest's board shows and its settlement decides from.
public struct CoopProgress: Sendable, Equatable {
    public struct Share: Sendable, Equatable {
        public let child: MemberID
        /// Minutes, or learning days, counted toward the target.
        public let value: Int
        /// Points earned in the week: the bonus is a share of them.
        public let points: Int
        /// The bonus paid so far (nil: not paid).
        public let paid: Int?
    }

    public let value: Int
    public let target: Int
    public let shares: [Share]

    public var completed: Bool { value >= target }
    public var percent: Int { min(100, value * 100 / max(target, 1)) }

    /// Each child's part from their learning days within the week.
    public init(_ spec: CoopQuestSpec, days: [LearningDay], paid: [MemberID: Int]) {
        var minutes: [MemberID: Int] = [:]
        var points: [MemberID: Int] = [:]
        var learningDays: [MemberID: Int] = [:]
        for day in days where spec.days.contains(day.day) && spec.children.contains(day.child) {
            minutes[day.child, default: 0] += day.minutes
            points[day.child, default: 0] += day.points
            if day.minutes >= spec.dailyMinimumMinutes { learningDays[day.child, default: 0] += 1 }
        }
        shares = spec.children.map { child in
            Share(
                child: child,
                value: spec.goal == .minutes ? minutes[child, default: 0] : learningDays[child, default: 0],
                points: points[child, default: 0], paid: paid[child])
        }
        value = shares.reduce(0) { $0 + $1.value }
        target = spec.target
    }
}

/// Co-op settlement: once the children together reach the target, each child who contributed
/// is paid the bonus on their own points of the week and unlocks the reward apps; a child who
/// contributes later (a late report) is paid then, and a contributor's bonus grows with late
/// points, never shrinks. Progress only grows with usage, so what is paid in the end is the
/// same whatever order the reports arrive in. Pure; the store applies the plan.
public enum CoopSettlement {
    public struct Payout: Sendable, Equatable {
        public let child: MemberID
        public let value: Int
        /// The bonus in all after this plan.
        public let bonus: Int
        /// What this plan credits (the bonus, or what it grew by).
        public let credit: Int
        /// A first payout: the reward apps unlock with it.
        public let first: Bool
    }

    public static func plan(_ quest: CoopQuest, _ progress: CoopProgress) -> [Payout] {
        guard quest.status == .active, progress.completed else { return [] }
        return progress.shares.compactMap { share in
            guard share.value > 0 else { return nil }
            let bonus = QuestSpec.bonus(forPoints: share.points, percent: quest.spec.bonusPercent)
            if let paid = share.paid {
                return bonus > paid
                    ? Payout(child: share.child, value: share.value, bonus: bonus, credit: bonus - paid, first: false)
                    : nil
            }
            return Payout(child: share.child, value: share.value, bonus: bonus, credit: bonus, first: true)
        }
    }
}
