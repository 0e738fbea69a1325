public import Foundation

public enum QuestTag {}
public typealias QuestID = Identifier<QuestTag>

/// What an app in a child's catalog is for.
public enum AppRole: String, Sendable, CaseIterable, Codable {
    /// Usage earns points and counts toward quests.
    case learning
    /// Unlocked by completing quests or redeeming points.
    case reward
}

/// One app in a child's catalog. `token` is opaque: the device's ApplicationToken, as the
/// device reports it.
public struct QuestApp: Sendable, Equatable, Hashable, Codable {
    public let token: String
    public let name: String
    /// An emoji drawn as the app's icon.
    public let icon: String
    public let role: AppRole
    /// Points per learning minute (learning apps; reward apps earn nothing).
    public let pointsPerMinute: Int

    public init(token: String, name: String, icon: String, role: AppRole, pointsPerMinute: Int) {
        self.token = token
        self.name = name
        self.icon = icon
        self.role = role
        self.pointsPerMinute = pointsPerMinute
    }

    /// Validates a catalog entry; field names are the API's.
    public static func validated(token: String, name: String, icon: String?, role: String, pointsPerMinute: Int?)
        throws(DomainError) -> QuestApp
    {
        var validation = FieldValidation()
        let token = token.trimmed(newlines: false)
        validation.check { () throws(DomainError) in try AppToken.check(token, field: "token") }
        let name = name.trimmed()
        validation.check { () throws(DomainError) in
            guard (1...60).contains(name.count) else {
                throw .invalid(field: "name", Message("quests.error.appName", ["max": .number(60)]))
            }
        }
        let icon = (icon ?? "").trimmed(newlines: false)
        validation.check { () throws(DomainError) in
            guard icon.count <= 2, icon.utf8.count <= 32 else {
                throw .invalid(field: "icon", Message("quests.error.appIcon"))
            }
        }
        let role = validation.check { () throws(DomainError) -> AppRole in
            guard let role = AppRole(rawValue: role) else {
                throw .invalid(field: "role", Message("quests.error.appRole"))
            }
            return role
        }
        let rate = pointsPerMinute ?? 1
        validation.check { () throws(DomainError) in
            guard (1...100).contains(rate) else {
                throw .invalid(
                    field: "pointsPerMinute", Message("quests.error.appRate", ["min": .number(1), "max": .number(100)]))
            }
        }
        let checkedRole = try validation.finish(role)
        return QuestApp(
            token: token, name: name, icon: icon.isEmpty ? (checkedRole == .learning ? "📘" : "🎮") : icon,
            role: checkedRole, pointsPerMinute: checkedRole == .reward ? 0 : rate)
    }
}

/// What a quest asks for (spec "Challenges").
public enum GoalType: String, Sendable, CaseIterable, Codable {
    case dailyMinutes, weeklyMinutes, specificApps, streak, pointsTarget
    case appDiversity, dailyConsistency, timeWindow, efficiency
    /// A milestone chain: ordered steps, one a day, each a number of minutes (`QuestSpec.steps`).
    case milestones

    /// The unit of the target and of progress.
    public var unit: QuestUnit {
        switch self {
        case .dailyMinutes, .weeklyMinutes, .specificApps, .timeWindow: return .minutes
        case .streak, .dailyConsistency: return .days
        case .pointsTarget, .efficiency: return .points
        case .appDiversity: return .apps
        case .milestones: return .steps
        }
    }

    /// The periods a guardian may choose; the first is the default.
    public var periods: [QuestPeriod] {
        switch self {
        case .dailyMinutes, .timeWindow, .efficiency: return [.day]
        case .weeklyMinutes, .dailyConsistency: return [.week]
        case .specificApps, .appDiversity: return [.day, .week]
        case .streak: return [.run]
        case .pointsTarget: return [.week, .whole]
        case .milestones: return [.chain]
        }
    }

    /// The goal type's name, as the builder and the cards show it.
    public var title: Message {
        switch self {
        case .dailyMinutes: Message("quests.goal.dailyMinutes")
        case .weeklyMinutes: Message("quests.goal.weeklyMinutes")
        case .specificApps: Message("quests.goal.specificApps")
        case .streak: Message("quests.goal.streak")
        case .pointsTarget: Message("quests.goal.pointsTarget")
        case .appDiversity: Message("quests.goal.appDiversity")
        case .dailyConsistency: Message("quests.goal.dailyConsistency")
        case .timeWindow: Message("quests.goal.timeWindow")
        case .efficiency: Message("quests.goal.efficiency")
        case .milestones: Message("quests.goal.milestones")
        }
    }
}

public enum QuestUnit: String, Sendable {
    case minutes, days, points, apps, steps

    /// "3 minutes", "1 step": a number of this unit, in the reader's language.
    public func count(_ number: Int) -> Message {
        switch self {
        case .minutes: .count(number, .minutes)
        case .days: .count(number, .days)
        case .points: .count(number, .points)
        case .apps: .count(number, .apps)
        case .steps: .count(number, .steps)
        }
    }

    /// The unit's name alone ("minutes"), as the builder shows it beside a target.
    public var name: Message {
        switch self {
        case .minutes: Message("quests.unitName.minutes")
        case .days: Message("quests.unitName.days")
        case .points: Message("quests.unitName.points")
        case .apps: Message("quests.unitName.apps")
        case .steps: Message("quests.unitName.steps")
        }
    }
}

/// How often a quest can complete.
public enum QuestPeriod: String, Sendable, CaseIterable, Codable {
    /// Each local day.
    case day
    /// Each local week, Monday to Sunday.
    case week
    /// Once, from the start date to the end date: the quest's whole run (`challenge` on the
    /// wire and in stored specs, as decisions.md keeps the old names).
    case whole = "challenge"
    /// A streak: each run of consecutive days that reaches the target completes once; the count then starts again.
    case run
    /// A milestone chain: one step on each of the next active days from the start date, as many
    /// days as steps; then the next chain starts (`QuestSpec.chainCycle(containing:)`).
    case chain
}

/// A daily time window in local wall-clock minutes, `[start, end)`, within one day.
public struct DailyWindow: Sendable, Equatable, Hashable, Codable {
    public let startMinute: Int
    public let endMinute: Int

    public init?(startMinute: Int, endMinute: Int) {
        guard 0 <= startMinute, startMinute < endMinute, endMinute <= 1440 else { return nil }
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// Parses "HH:MM".
    public static func minute(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0...24).contains(h), (0...59).contains(m), h * 60 + m <= 1440
        else { return nil }
        return h * 60 + m
    }

    public static func text(_ minute: Int) -> String {
        String(format: "%02d:%02d", minute / 60, minute % 60)
    }

    public var description: String { "\(Self.text(startMinute))–\(Self.text(endMinute))" }

    /// A minute of the day as a time argument ("16:00", "4:00 PM"), in the reader's way.
    public static func time(_ minute: Int) -> Message.Argument {
        .time(LocalDay(dayNumber: 0).start(in: .gmt).addingTimeInterval(Double(minute) * 60), .utc)
    }

    /// "16:00–18:00", in the reader's way of writing times.
    public var message: Message {
        Message("quests.window", ["from": Self.time(startMinute), "to": Self.time(endMinute)])
    }
}

/// A reward app a quest unlocks, and for how long.
public struct RewardUnlock: Sendable, Equatable, Hashable, Codable {
    public let token: String
    public let minutes: Int

    public init(token: String, minutes: Int) {
        self.token = token
        self.minutes = minutes
    }

    /// The minutes one unlock may last.
    public static let minutesRange = 1...240

    /// The reward apps a quest unlocks, each a reward app of `catalog`, once, for 1 to 240
    /// minutes: every quest's rule, a co-op quest's for each of its children (`ofEveryChild`: the
    /// message says "every chosen child's apps", not "this child's").
    /// `names`: apps' names known beyond `catalog` (the other children's), so a refusal names an
    /// app as people know it, never by its token.
    public static func check(
        _ unlocks: [RewardUnlock], catalog: [QuestApp], ofEveryChild: Bool = false, names: [String: String] = [:]
    )
        throws(DomainError)
    {
        let byToken = Dictionary(catalog.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        for unlock in unlocks {
            guard let app = byToken[unlock.token] else {
                throw .invalid(field: "rewardApps", notInCatalog(names[unlock.token], ofEveryChild: ofEveryChild))
            }
            guard app.role == .reward else {
                throw .invalid(field: "rewardApps", Message("quests.error.notRewardApp", ["app": .text(app.name)]))
            }
            guard minutesRange.contains(unlock.minutes) else {
                throw .invalid(
                    field: "rewardApps",
                    Message(
                        "quests.error.unlockMinutes",
                        [
                            "min": .number(minutesRange.lowerBound),
                            "max": .message(.count(minutesRange.upperBound, .minutes)),
                        ]))
            }
        }
        if Set(unlocks.map(\.token)).count != unlocks.count {
            throw .invalid(field: "rewardApps", Message("quests.error.appTwice"))
        }
    }

    /// "Minecraft is not in this child's apps." (or "This app…" when its name is not known).
    static func notInCatalog(_ name: String?, ofEveryChild: Bool) -> Message {
        guard let name else {
            return Message(ofEveryChild ? "quests.error.appNotInEveryChild" : "quests.error.appNotInChild")
        }
        return Message(
            ofEveryChild ? "quests.error.namedAppNotInEveryChild" : "quests.error.namedAppNotInChild",
            ["app": .text(name)])
    }
}

/// Everything a guardian sets in the quest builder.
public struct QuestSpec: Sendable, Equatable, Codable {
    public var title: String
    public var description: String?
    public var goal: GoalType
    public var target: Int
    public var period: QuestPeriod
    /// The daily minimum in minutes (streak, dailyConsistency).
    public var dailyMinimumMinutes: Int?
    /// The minutes of use within which the points must be earned (efficiency).
    public var withinMinutes: Int?
    /// The minutes each step of a milestone chain asks for, in order, one step an active day.
    public var steps: [Int]?
    /// Learning apps that count; empty means all the child's learning apps.
    public var learningApps: [String]
    public var rewardApps: [RewardUnlock]
    public var bonusPercent: Int
    /// ISO weekdays (1 = Monday) on which usage counts.
    public var weekdays: Set<Int>
    public var window: DailyWindow?
    public var startDay: LocalDay
    public var endDay: LocalDay?
    public var assignee: MemberID

    public init(
        title: String, description: String? = nil, goal: GoalType, target: Int, period: QuestPeriod? = nil,
        dailyMinimumMinutes: Int? = nil, withinMinutes: Int? = nil, steps: [Int]? = nil, learningApps: [String] = [],
        rewardApps: [RewardUnlock] = [],
        bonusPercent: Int = 10, weekdays: Set<Int> = Set(1...7), window: DailyWindow? = nil, startDay: LocalDay,
        endDay: LocalDay? = nil, assignee: MemberID
    ) {
        self.title = title
        self.description = description
        self.goal = goal
        self.target = target
        self.period = period ?? goal.periods[0]
        self.dailyMinimumMinutes = dailyMinimumMinutes
        self.withinMinutes = withinMinutes
        self.steps = steps
        self.learningApps = learningApps
        self.rewardApps = rewardApps
        self.bonusPercent = bonusPercent
        self.weekdays = weekdays
        self.window = window
        self.startDay = startDay
        self.endDay = endDay
        self.assignee = assignee
    }

    public static let bonusChoices = [5, 10, 15, 20, 25]
    /// The minutes a day may be asked to reach (streaks, consistency, a co-op quest's days).
    public static let dailyMinimumRange = 1...1440

    /// A quest's title, trimmed: 1 to 80 characters (every quest's rule, co-op quests' too).
    @discardableResult
    public static func checkedTitle(_ title: String) throws(DomainError) -> String {
        let trimmed = title.trimmed()
        guard (1...80).contains(trimmed.count) else {
            throw .invalid(field: "title", Message("quests.error.title", ["max": .number(80)]))
        }
        return trimmed
    }

    /// The bonus percent a guardian may choose.
    public static func checkBonus(_ percent: Int) throws(DomainError) {
        guard bonusChoices.contains(percent) else {
            throw .invalid(field: "bonusPercent", Message("quests.error.bonus"))
        }
    }

    /// "Use a target from 1 to 1440 minutes." for `range` in `unit`.
    static func targetRangeMessage(_ range: ClosedRange<Int>, _ unit: QuestUnit) -> Message {
        Message(
            "quests.error.targetRange",
            ["min": .number(range.lowerBound), "max": .message(unit.count(range.upperBound))])
    }

    /// "Give the minutes a day must reach (1 to 1440)."
    static var dailyMinimumMessage: Message {
        Message(
            "quests.error.dailyMinimum",
            ["min": .number(dailyMinimumRange.lowerBound), "max": .number(dailyMinimumRange.upperBound)])
    }
    /// How many steps a milestone chain may have: at least two, at most a week's worth.
    public static let chainSteps = 2...7

    /// The target's allowed range for this goal and period.
    public var targetRange: ClosedRange<Int> {
        switch goal {
        case .dailyMinutes, .timeWindow: return 1...1440
        case .weeklyMinutes: return 1...10080
        case .specificApps: return period == .week ? 1...10080 : 1...1440
        case .streak: return 1...365
        case .pointsTarget, .efficiency: return 1...100_000
        case .appDiversity: return 1...50
        case .dailyConsistency: return 1...7
        case .milestones: return QuestSpec.chainSteps
        }
    }

    /// Checks every field against the child's catalog; all problems are reported at once,
    /// named as the API names them. `today` is the child's local day (a new quest may not
    /// end before it).
    public func validate(catalog: [QuestApp], today: LocalDay?) throws(DomainError) {
        var v = FieldValidation()
        _ = v.check { () throws(DomainError) in try QuestSpec.checkedTitle(title) }
        v.check { () throws(DomainError) in
            if let description, description.count > 500 {
                throw .invalid(field: "description", Message("quests.error.maxCharacters", ["max": .number(500)]))
            }
        }
        v.check { () throws(DomainError) in
            guard goal.periods.contains(period) else {
                let periods = goal.periods.map { Message.Argument.text($0.rawValue) }
                throw .invalid(
                    field: "period",
                    periods.count == 1
                        ? Message("quests.error.periodOne", ["goal": .message(goal.title), "period": periods[0]])
                        : Message(
                            "quests.error.periodTwo",
                            ["goal": .message(goal.title), "first": periods[0], "second": periods[periods.count - 1]]))
            }
            if period == .whole, endDay == nil {
                throw .invalid(field: "endDate", Message("quests.error.endDateNeeded"))
            }
        }
        v.check { () throws(DomainError) in
            // A chain's target follows its steps, checked with them below.
            guard goal == .milestones || targetRange.contains(target) else {
                throw .invalid(field: "target", QuestSpec.targetRangeMessage(targetRange, goal.unit))
            }
        }
        v.check { () throws(DomainError) in try QuestSpec.checkBonus(bonusPercent) }
        v.check { () throws(DomainError) in
            guard !weekdays.isEmpty else { throw .invalid(field: "weekdays", Message("quests.error.weekdaysNone")) }
            guard weekdays.allSatisfy({ (1...7).contains($0) }) else {
                throw .invalid(field: "weekdays", Message("quests.error.weekdaysRange"))
            }
        }
        v.check { () throws(DomainError) in
            if goal == .dailyConsistency, target > weekdays.count {
                throw .invalid(
                    field: "target",
                    Message("quests.error.consistencyTarget", ["days": .message(.count(weekdays.count, .days))]))
            }
        }
        v.check { () throws(DomainError) in
            if goal == .timeWindow, window == nil {
                throw .invalid(field: "window", Message("quests.error.windowNeeded"))
            }
        }
        v.check { () throws(DomainError) in
            if goal == .streak || goal == .dailyConsistency {
                guard let minimum = dailyMinimumMinutes, QuestSpec.dailyMinimumRange.contains(minimum) else {
                    throw .invalid(field: "dailyMinimumMinutes", QuestSpec.dailyMinimumMessage)
                }
            }
        }
        v.check { () throws(DomainError) in
            if goal == .efficiency {
                guard let within = withinMinutes, (1...600).contains(within) else {
                    throw .invalid(
                        field: "withinMinutes",
                        Message("quests.error.withinMinutes", ["min": .number(1), "max": .number(600)]))
                }
            }
        }
        v.check { () throws(DomainError) in
            guard goal == .milestones else { return }
            guard let steps, QuestSpec.chainSteps.contains(steps.count) else {
                throw .invalid(
                    field: "steps",
                    Message(
                        "quests.error.chainSteps",
                        [
                            "min": .number(QuestSpec.chainSteps.lowerBound),
                            "max": .message(.count(QuestSpec.chainSteps.upperBound, .steps)),
                        ]))
            }
            guard steps.allSatisfy({ (1...1440).contains($0) }) else {
                throw .invalid(
                    field: "steps",
                    Message("quests.error.stepMinutes", ["min": .number(1), "max": .message(.count(1440, .minutes))]))
            }
            guard target == steps.count else {
                throw .invalid(field: "target", Message("quests.error.chainTarget", ["count": .number(steps.count)]))
            }
        }
        let byToken = Dictionary(catalog.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        v.check { () throws(DomainError) in
            for token in learningApps where byToken[token]?.role != .learning {
                throw .invalid(
                    field: "learningApps",
                    byToken[token].map { Message("quests.error.notLearningApp", ["app": .text($0.name)]) }
                        ?? RewardUnlock.notInCatalog(nil, ofEveryChild: false))
            }
            if Set(learningApps).count != learningApps.count {
                throw .invalid(field: "learningApps", Message("quests.error.appTwice"))
            }
            if goal == .specificApps, learningApps.isEmpty {
                throw .invalid(field: "learningApps", Message("quests.error.specificAppsNone"))
            }
        }
        v.check { () throws(DomainError) in
            if goal == .appDiversity {
                let available =
                    learningApps.isEmpty ? catalog.filter { $0.role == .learning }.count : learningApps.count
                guard target <= available else {
                    throw .invalid(
                        field: "target", Message("quests.error.diversityTarget", ["count": .number(available)]))
                }
            }
        }
        v.check { () throws(DomainError) in try RewardUnlock.check(rewardApps, catalog: catalog) }
        v.check { () throws(DomainError) in
            if let endDay, endDay < startDay {
                throw .invalid(field: "endDate", Message("quests.error.endBeforeStart"))
            }
            if let endDay, let today, endDay < today {
                throw .invalid(field: "endDate", Message("quests.error.endPassed"))
            }
        }
        try v.finish()
    }

    /// Trims the text fields.
    public var normalized: QuestSpec {
        var copy = self
        copy.title = title.trimmed()
        let description = description?.trimmed()
        copy.description = description?.isEmpty == false ? description : nil
        if goal != .streak, goal != .dailyConsistency { copy.dailyMinimumMinutes = nil }
        if goal != .efficiency { copy.withinMinutes = nil }
        if goal != .milestones { copy.steps = nil }
        return copy
    }
}

public enum QuestStatus: String, Sendable, Codable {
    case active, paused
}

/// A stored quest.
public struct Quest: Sendable, Equatable {
    public let id: QuestID
    public let householdID: HouseholdID
    public var spec: QuestSpec
    public var status: QuestStatus
    /// Who set the quest; nil once their account was deleted (the quest stays the child's).
    public let createdBy: MemberID?
    public let createdAt: Date
    /// The periods completed so far (kept with the quest, so a board need not count them).
    public let completions: Int

    public init(
        id: QuestID, householdID: HouseholdID, spec: QuestSpec, status: QuestStatus, createdBy: MemberID?,
        createdAt: Date,
        completions: Int = 0
    ) {
        self.id = id
        self.householdID = householdID
        self.spec = spec
        self.status = status
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.completions = completions
    }
}

/// The builder's fields as they arrive (from the API or a web form), before parsing.
public struct QuestDraft: Sendable, Equatable {
    public var title: String
    public var description: String?
    public var goalType: String
    public var target: Int?
    public var period: String?
    public var dailyMinimumMinutes: Int?
    public var withinMinutes: Int?
    /// A milestone chain's minutes per step, in order.
    public var steps: [Int]
    public var learningApps: [String]
    public var rewardApps: [RewardUnlock]
    public var bonusPercent: Int?
    public var weekdays: [Int]
    public var windowStart: String?
    public var windowEnd: String?
    public var startDate: String?
    public var endDate: String?

    public init(
        title: String, description: String? = nil, goalType: String, target: Int?, period: String? = nil,
        dailyMinimumMinutes: Int? = nil, withinMinutes: Int? = nil, steps: [Int] = [], learningApps: [String] = [],
        rewardApps: [RewardUnlock] = [],
        bonusPercent: Int? = nil, weekdays: [Int] = Array(1...7), windowStart: String? = nil, windowEnd: String? = nil,
        startDate: String? = nil, endDate: String? = nil
    ) {
        self.title = title
        self.description = description
        self.goalType = goalType
        self.target = target
        self.period = period
        self.dailyMinimumMinutes = dailyMinimumMinutes
        self.withinMinutes = withinMinutes
        self.steps = steps
        self.learningApps = learningApps
        self.rewardApps = rewardApps
        self.bonusPercent = bonusPercent
        self.weekdays = weekdays
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.startDate = startDate
        self.endDate = endDate
    }

    public init(_ spec: QuestSpec) {
        self.init(
            title: spec.title, description: spec.description, goalType: spec.goal.rawValue, target: spec.target,
            period: spec.period.rawValue, dailyMinimumMinutes: spec.dailyMinimumMinutes,
            withinMinutes: spec.withinMinutes, steps: spec.steps ?? [],
            learningApps: spec.learningApps, rewardApps: spec.rewardApps, bonusPercent: spec.bonusPercent,
            weekdays: spec.weekdays.sorted(), windowStart: spec.window.map { DailyWindow.text($0.startMinute) },
            windowEnd: spec.window.map { DailyWindow.text($0.endMinute) }, startDate: spec.startDay.iso,
            endDate: spec.endDay?.iso)
    }

    /// Parses and validates every field against the child's catalog. `today` is the child's
    /// local day: the default start date, and a new quest may not end before it.
    public func spec(assignee: MemberID, catalog: [QuestApp], today: LocalDay) throws(DomainError) -> QuestSpec {
        var v = FieldValidation()
        let goal = v.check { () throws(DomainError) -> GoalType in
            guard let goal = GoalType(rawValue: goalType) else {
                throw .invalid(
                    field: "goalType",
                    Message(
                        "quests.error.chooseOneOf",
                        ["choices": .text(GoalType.allCases.map(\.rawValue).joined(separator: ", "))]))
            }
            return goal
        }
        let period = v.check { () throws(DomainError) -> QuestPeriod? in
            guard let raw = self.period, !raw.isEmpty else { return nil }
            guard let parsed = QuestPeriod(rawValue: raw) else {
                throw .invalid(field: "period", Message("quests.error.periodChoice"))
            }
            return parsed
        }
        let target = v.check { () throws(DomainError) -> Int in
            // A milestone chain's target is its number of steps; it may be left out.
            if self.target == nil, goal == .milestones { return steps.count }
            guard let value = self.target else {
                throw .invalid(field: "target", Message("quests.error.targetMissing"))
            }
            return value
        }
        let window = v.check { () throws(DomainError) -> DailyWindow? in
            let start = windowStart.flatMap { $0.isEmpty ? nil : $0 }
            let end = windowEnd.flatMap { $0.isEmpty ? nil : $0 }
            if start == nil, end == nil { return nil }
            guard let start, let end, let from = DailyWindow.minute(start), let to = DailyWindow.minute(end) else {
                throw .invalid(field: "window", Message("quests.error.windowFormat"))
            }
            guard let window = DailyWindow(startMinute: from, endMinute: to) else {
                throw .invalid(field: "window", Message("quests.error.windowOrder"))
            }
            return window
        }
        let startDay = v.check { () throws(DomainError) -> LocalDay in
            guard let startDate, !startDate.isEmpty else { return today }
            return try DateWindow.day(startDate, field: "startDate")
        }
        let endDay = v.check { () throws(DomainError) -> LocalDay? in
            guard let endDate, !endDate.isEmpty else { return nil }
            return try DateWindow.day(endDate, field: "endDate")
        }
        let (checkedGoal, checkedTarget, checkedStart) = try v.finish(goal, target, startDay)
        let spec = QuestSpec(
            title: title, description: description, goal: checkedGoal, target: checkedTarget, period: period ?? nil,
            dailyMinimumMinutes: dailyMinimumMinutes, withinMinutes: withinMinutes, steps: steps,
            learningApps: learningApps, rewardApps: rewardApps, bonusPercent: bonusPercent ?? 10,
            weekdays: Set(weekdays), window: window ?? nil,
            startDay: checkedStart, endDay: endDay ?? nil, assignee: assignee
        ).normalized
        try spec.validate(catalog: catalog, today: today)
        return spec
    }
}

/// The one rule for an app's token, wherever a token comes in (a guardian's catalog, a device's
/// list of installed apps): 1 to 200 visible ASCII characters, none of `/ \\ ? # %`, and not `.`
/// or `..`. A token is a path segment of the addresses handed out for it (an app's icon), so a
/// token that could not travel in one is refused at input rather than stored.
public enum AppToken {
    static let forbidden: Set<Unicode.Scalar> = ["/", "\\", "?", "#", "%"]

    public static func check(_ token: String, field: String) throws(DomainError) {
        guard (1...200).contains(token.utf8.count),
            token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !forbidden.contains($0) }),
            token != ".", token != ".."
        else {
            throw .invalid(field: field, Message("quests.error.appToken"))
        }
    }
}
