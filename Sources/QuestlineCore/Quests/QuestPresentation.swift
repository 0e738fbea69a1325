import Foundation

/// Where a quest stands today, as its card shows it.
public enum QuestState: String, Sendable, Equatable {
    case notStarted, inProgress, completed, paused, ended
}

/// What a quest card shows (child's board and guardian's list alike): the screen logic, kept
/// here so it is the same everywhere and testable.
public struct QuestCard: Sendable, Equatable {
    public let state: QuestState
    public let summary: String
    public let progressText: String
    public let percent: Int
    public let periodText: String

    public init(
        spec: QuestSpec, status: QuestStatus, progress: QuestProgress, completedThisPeriod: Bool, today: LocalDay,
        appNames: [String: String]
    ) {
        if status == .paused {
            state = .paused
        } else if today < spec.startDay {
            state = .notStarted
        } else if let end = spec.endDay, today > end {
            state = completedThisPeriod ? .completed : .ended
        } else {
            state = completedThisPeriod ? .completed : .inProgress
        }
        summary = Self.summary(spec, appNames: appNames)
        progressText = Self.progressText(spec, progress)
        percent = completedThisPeriod ? 100 : progress.percent
        periodText = Self.periodText(spec, progress.period)
    }

    /// One sentence for what the quest asks.
    public static func summary(_ spec: QuestSpec, appNames: [String: String]) -> String {
        let apps =
            spec.learningApps.isEmpty
            ? "learning apps" : spec.learningApps.map { appNames[$0] ?? $0 }.joined(separator: ", ")
        let per = spec.period == .week ? "this week" : spec.period == .challenge ? "by the end date" : "today"
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
        }
    }

    static func periodText(_ spec: QuestSpec, _ window: PeriodWindow) -> String {
        switch spec.period {
        case .day: return "Today"
        case .week: return "This week, until Sunday"
        case .challenge: return "Until \(window.last.iso)"
        case .run: return "Current streak"
        }
    }
}
