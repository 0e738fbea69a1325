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
    }

    struct Bonus: Equatable {
        let value: Int
        let selected: Bool
    }

    /// How often a quest can complete, as the builder words it.
    static let periodTitles = [
        ("day", "Each day"), ("week", "Each week (Monday to Sunday)"), ("challenge", "Once, by the end date"),
        ("run", "Each streak"), ("chain", "Each chain of steps"),
    ]

    let action: String
    let editing: Bool
    let child: ChildRef
    let values: Values
    let goals: [Goal]
    let periods: [Choice]
    /// The empty choice says what it means: the goal type's own period.
    let defaultPeriod: String
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
        errors: [String: String]
    ) {
        self.action = action
        self.editing = editing
        self.child = ChildRef(child)
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
                value: goal.rawValue, title: goal.title, unit: goal.unit.rawValue,
                periods: goal.periods.map(\.rawValue).joined(separator: " "), selected: goal.rawValue == draft.goalType)
        }
        periods = Self.periodTitles.map { Choice(value: $0.0, title: $0.1, selected: $0.0 == (draft.period ?? "")) }
        defaultPeriod =
            Self.periodTitles.first {
                $0.0 == (GoalType(rawValue: draft.goalType) ?? .dailyMinutes).periods[0].rawValue
            }?.1 ?? "Each day"
        targetGoals = GoalType.allCases.filter { $0 != .milestones }.map(\.rawValue).joined(separator: " ")
        bonuses = QuestSpec.bonusChoices.map { Bonus(value: $0, selected: $0 == (draft.bonusPercent ?? 10)) }
        weekdays = WeekdayOption.week(checking: draft.weekdays)
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
        let minutes: Int
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
    let completions: Int
    let notice: String?

    init(_ view: QuestView, child: MemberRecord, apps: [QuestApp], viewer: MemberRecord, notice: String?) {
        let spec = view.quest.spec
        let byToken = Dictionary(apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        live = liveEventsPath(viewer)
        quest = QuestCardView(view, apps: apps)
        self.child = ChildRef(child)
        guardian = QuestsPages.manages(viewer, child)
        paused = view.quest.status == .paused
        description = spec.description
        rewards = spec.rewardApps.map {
            Reward(name: byToken[$0.token]?.name ?? $0.token, icon: byToken[$0.token]?.icon ?? "🎮", minutes: $0.minutes)
        }
        hasRewards = !spec.rewardApps.isEmpty
        countedApps =
            spec.learningApps.isEmpty
            ? "All learning apps" : spec.learningApps.map { byToken[$0]?.name ?? $0 }.joined(separator: ", ")
        days =
            spec.weekdays.count == 7
            ? "Every day" : spec.weekdays.sorted().map { Wording.shortWeekdays[$0 - 1] }.joined(separator: ", ")
        window = spec.window?.description
        // Dates in words, as every sentence gives them.
        dates =
            spec.endDay.map { "\(Wording.date(spec.startDay)) to \(Wording.date($0))" }
            ?? "From \(Wording.date(spec.startDay))"
        bonus = spec.bonusPercent
        completions = view.completions
        self.notice = notice
    }
}
