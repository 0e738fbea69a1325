import Foundation

/// Where a quest stands today, as its card shows it.
public enum QuestState: String, Sendable, Equatable {
    case notStarted, inProgress, completed, paused, ended

    /// Paused, not started yet, ended, or in progress; completed when the period it shows
    /// (`QuestSpec.shownKey`) completed.
    public init(spec: QuestSpec, status: QuestStatus, completedThisPeriod: Bool, today: LocalDay) {
        if status == .paused {
            self = .paused
        } else if today < spec.startDay {
            self = .notStarted
        } else if let end = spec.endDay, today > end {
            self = completedThisPeriod ? .completed : .ended
        } else {
            self = completedThisPeriod ? .completed : .inProgress
        }
    }
}

/// What a quest card shows (child's board and guardian's list alike): the screen logic, kept
/// here so it is the same everywhere and testable.
public struct QuestCard: Sendable, Equatable {
    public let state: QuestState
    public let summary: String
    public let progressText: String
    public let percent: Int
    public let periodText: String
    /// A milestone chain's steps as the card lists them (empty for other goals).
    public let steps: [StepLine]

    /// One step of a chain on a card: "Step 2 · Tue 10 Mar · 20 minutes", and where it stands.
    public struct StepLine: Sendable, Equatable {
        public let text: String
        public let minutes: Int
        public let state: MilestoneStep.State
    }

    public init(
        spec: QuestSpec, status: QuestStatus, progress: QuestProgress, completedThisPeriod: Bool, today: LocalDay,
        appNames: [String: String]
    ) {
        state = QuestState(spec: spec, status: status, completedThisPeriod: completedThisPeriod, today: today)
        summary = Self.summary(spec, appNames: appNames)
        var text = Self.progressText(spec, progress)
        let steps = progress.steps ?? []
        if state == .inProgress, let missed = steps.firstIndex(where: { $0.state(today: today) == .missed }) {
            let next = progress.period.last.adding(days: 1)
            text += " · step \(missed + 1) was missed"
            if spec.endDay.map({ next <= $0 }) ?? true { text += "; the next chain starts \(next.iso)" }
        }
        progressText = text
        percent = completedThisPeriod ? 100 : progress.percent
        periodText = Self.periodText(spec, progress.period)
        self.steps = steps.enumerated().map { index, step in
            StepLine(
                text:
                    "Step \(index + 1) · \(step.day.map(Self.dayText) ?? "after the end date") · \(step.target) minutes",
                minutes: step.minutes, state: step.state(today: today))
        }
    }

    /// "Tue 10 Mar".
    static func dayText(_ day: LocalDay) -> String {
        let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][day.isoWeekday - 1]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][day.month - 1]
        return "\(weekday) \(day.day) \(month)"
    }

    /// One sentence for what the quest asks.
    public static func summary(_ spec: QuestSpec, appNames: [String: String]) -> String {
        let apps =
            spec.learningApps.isEmpty
            ? "learning apps" : spec.learningApps.map { appNames[$0] ?? $0 }.joined(separator: ", ")
        let per = spec.period == .week ? "this week" : spec.period == .whole ? "by the end date" : "today"
        var text: String
        switch spec.goal {
        case .dailyMinutes: text = "Use \(apps) for \(spec.target) minutes a day"
        case .weeklyMinutes: text = "Complete \(spec.target) minutes of learning this week"
        case .specificApps: text = "Practice \(apps) for \(spec.target) minutes \(per)"
        case .streak:
            text = "Learn at least \(spec.dailyMinimumMinutes ?? 1) minutes a day for \(spec.target) days in a row"
        case .pointsTarget: text = "Earn \(spec.target) points \(per)"
        case .appDiversity: text = "Use \(spec.target) different learning apps \(per)"
        case .dailyConsistency:
            text =
                "Learn \(spec.dailyMinimumMinutes ?? 1) minutes on \(spec.target) of \(spec.weekdays.count) days this week"
        case .timeWindow:
            text =
                "Learn \(spec.target) minutes between \(spec.window.map { "\(DailyWindow.text($0.startMinute)) and \(DailyWindow.text($0.endMinute))" } ?? "the set hours")"
        case .efficiency:
            text = "Earn \(spec.target) points within \(spec.withinMinutes ?? 0) minutes of learning today"
        case .milestones:
            let minutes = (spec.steps ?? []).map(String.init)
            let list =
                minutes.count > 1
                ? minutes.dropLast().joined(separator: ", ") + " then \(minutes.last!)" : minutes.joined()
            text = "Learn \(list) minutes on \(minutes.count) active days in a row, one step a day"
        }
        if spec.window != nil, spec.goal != .timeWindow, let window = spec.window {
            text += " (\(window.description) only)"
        }
        return text
    }

    public static func progressText(_ spec: QuestSpec, _ progress: QuestProgress) -> String {
        let value = progress.value
        switch spec.goal.unit {
        case .minutes: return "\(value) / \(progress.target) minutes"
        case .days:
            let text = "\(value) / \(progress.target) days"
            if let run = progress.runDays, run > value { return text + " · \(run) days in a row" }
            return text
        case .points:
            return spec.goal == .efficiency
                ? "\(value) / \(progress.target) points within \(spec.withinMinutes ?? 0) minutes"
                : "\(value) / \(progress.target) points"
        case .apps: return "\(value) / \(progress.target) apps"
        case .steps: return "\(value) / \(progress.target) steps"
        }
    }

    static func periodText(_ spec: QuestSpec, _ window: PeriodWindow) -> String {
        switch spec.period {
        case .day: return "Today"
        case .week: return "This week, until Sunday"
        case .whole: return "Until \(window.last.iso)"
        case .run: return "Current streak"
        case .chain: return "This chain, until \(window.last.iso)"
        }
    }
}
