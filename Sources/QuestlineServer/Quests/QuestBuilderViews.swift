import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The quest builder, new and edit (`quest-builder.mustache`): the draft's values, the goal
/// types with their units and periods, and the child's apps to count or unlock.
struct QuestBuilderPage: Equatable {
    struct Values: Equatable {
        let title: String
        let description: String
        let target: String
        let dailyMinimumMinutes: String
        let withinMinutes: String
        /// A field per step of a milestone chain, filled with the draft's steps.
        let steps: [Step]
        let windowStart: String
        let windowEnd: String
        let startDate: String
        let endDate: String
    }

    struct Step: Equatable {
        let number: Int
        let value: String
    }

    struct Goal: Equatable {
        let value: String
        let title: String
        let unit: String
        let periods: String
        let selected: Bool
    }

    struct Choice: Equatable {
        let value: String
        let title: String
        let selected: Bool
        /// What the empty choice says when this period is the goal type's own ("Each day (the
        /// goal type's own)"): the builder's script shows it when the goal type changes.
        var defaultLabel = ""
    }

    struct Bonus: Equatable {
        let value: Int
        /// "10%".
        let label: String
        let selected: Bool
    }

    /// How often a quest can complete, as the builder words it.
    static let periodTitles: [(String, Message)] = [
        ("day", Message("quests.builder.period.day")), ("week", Message("quests.builder.period.week")),
        ("challenge", Message("quests.builder.period.whole")), ("run", Message("quests.builder.period.run")),
        ("chain", Message("quests.builder.period.chain")),
    ]

    let action: String
    let editing: Bool
    let child: ChildRef
    /// The child's name for the page's sentences, isolated from their direction.
    let childName: String
    let values: Values
    let goals: [Goal]
    let periods: [Choice]
    /// The empty choice says what it means: the goal type's own period ("Each day (the goal
    /// type's own)").
    let defaultPeriod: String
    /// The unit of the target of the goal type chosen ("minutes"); the page's script follows the choice.
    let targetUnit: String
    /// Every goal but a milestone chain takes a target; a chain's is its number of steps.
    let targetGoals: String
    let bonuses: [Bonus]
    let weekdays: [WeekdayOption]
    let learningApps: [AppView]
    let rewardApps: [AppView]
    let noLearningApps: Bool
    let noRewardApps: Bool
    let errors: [String: String]

    init(
        child: MemberRecord, apps: [QuestApp], draft: QuestDraft, action: String, editing: Bool,
        errors: [String: String], localizer l: Localizer
    ) {
        self.action = action
        self.editing = editing
        self.child = ChildRef(child)
        childName = l.isolated(child.displayName)
        values = Values(
            title: draft.title, description: draft.description ?? "", target: draft.target.map(String.init) ?? "",
            dailyMinimumMinutes: draft.dailyMinimumMinutes.map(String.init) ?? "15",
            withinMinutes: draft.withinMinutes.map(String.init) ?? "30",
            steps: (0..<QuestSpec.chainSteps.upperBound).map { index in
                Step(number: index + 1, value: index < draft.steps.count ? String(draft.steps[index]) : "")
            },
            windowStart: draft.windowStart ?? "", windowEnd: draft.windowEnd ?? "", startDate: draft.startDate ?? "",
            endDate: draft.endDate ?? "")
        goals = GoalType.allCases.map { goal in
            Goal(
                value: goal.rawValue, title: l(goal.title), unit: l(goal.unit.name),
                periods: goal.periods.map(\.rawValue).joined(separator: " "), selected: goal.rawValue == draft.goalType)
        }
        periods = Self.periodTitles.map {
            Choice(
                value: $0.0, title: l($0.1), selected: $0.0 == (draft.period ?? ""),
                defaultLabel: l("quests.builder.defaultPeriod", ["period": .message($0.1)]))
        }
        let own =
            Self.periodTitles.first {
                $0.0 == (GoalType(rawValue: draft.goalType) ?? .dailyMinutes).periods[0].rawValue
            }?.1 ?? Message("quests.builder.period.day")
        defaultPeriod = l("quests.builder.defaultPeriod", ["period": .message(own)])
        targetUnit = l((GoalType(rawValue: draft.goalType) ?? .dailyMinutes).unit.name)
        targetGoals = GoalType.allCases.filter { $0 != .milestones }.map(\.rawValue).joined(separator: " ")
        bonuses = QuestSpec.bonusChoices.map {
            Bonus(value: $0, label: l.render(.percent($0)), selected: $0 == (draft.bonusPercent ?? 10))
        }
        weekdays = WeekdayOption.week(checking: draft.weekdays, localizer: l)
        let rewardMinutes = Dictionary(draft.rewardApps.map { ($0.token, $0.minutes) }, uniquingKeysWith: { a, _ in a })
        learningApps = apps.filter { $0.role == .learning }.map { app in
            var item = AppView(app)
            item.checked = draft.learningApps.contains(app.token)
            return item
        }
        rewardApps = apps.filter { $0.role == .reward }.map { app in
            var item = AppView(app)
            item.checked = rewardMinutes[app.token] != nil
            item.minutes = rewardMinutes[app.token] ?? 30
            return item
        }
        noLearningApps = !apps.contains { $0.role == .learning }
        noRewardApps = !apps.contains { $0.role == .reward }
        self.errors = errors
    }
}

/// A quest's page (`quest-detail.mustache`): its card, what it counts and unlocks, when.
struct QuestDetailPage: Equatable {
    struct Reward: Equatable {
        let name: String
        let icon: String
        /// "20 minutes".
        let minutes: String
    }

    let live: String?
    let quest: QuestCardView
    let child: ChildRef
    let guardian: Bool
    let paused: Bool
    let description: String?
    let rewards: [Reward]
    let hasRewards: Bool
    let countedApps: String
    let days: String
    let window: String?
    let dates: String
    let bonus: Int
    /// "10% of the points earned toward it".
    let bonusText: String
    let completions: Int
    /// "Once", "3 times".
    let completionsText: String
    let notice: String?

    init(
        _ view: QuestView, child: MemberRecord, apps: [QuestApp], viewer: MemberRecord, notice: String?,
        localizer l: Localizer
    ) {
        let spec = view.quest.spec
        let byToken = Dictionary(apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        live = liveEventsPath(viewer)
        quest = QuestCardView(view, apps: apps, localizer: l)
        self.child = ChildRef(child)
        guardian = QuestsPages.manages(viewer, child)
        paused = view.quest.status == .paused
        description = spec.description
        rewards = spec.rewardApps.map {
            Reward(
                name: byToken[$0.token]?.name ?? $0.token, icon: byToken[$0.token]?.icon ?? "🎮",
                minutes: l(Message.count($0.minutes, .minutes)))
        }
        hasRewards = !spec.rewardApps.isEmpty
        countedApps =
            spec.learningApps.isEmpty
            ? l("quests.detail.allLearningApps")
            : l.render(.list(spec.learningApps.map { .text(byToken[$0]?.name ?? $0) }))
        // 5 January 2026 is a Monday: the weekdays' names in the reader's language.
        let monday = LocalDay(year: 2026, month: 1, day: 5) ?? LocalDay(dayNumber: 0)
        days =
            spec.weekdays.count == 7
            ? l("quests.detail.everyDay")
            : l.render(.list(spec.weekdays.sorted().map { .day(monday.adding(days: $0 - 1), .weekdayShort) }))
        window = spec.window.map { l($0.message) }
        // Dates in words, as every sentence gives them.
        dates =
            spec.endDay.map { l("quests.detail.dates", ["from": .day(spec.startDay, .long), "to": .day($0, .long)]) }
            ?? l("quests.detail.from", ["day": .day(spec.startDay, .long)])
        bonus = spec.bonusPercent
        bonusText = l("quests.detail.bonus", ["bonus": .percent(spec.bonusPercent)])
        completions = view.completions
        completionsText = l(Message.count(view.completions, .times))
        self.notice = notice
    }
}
