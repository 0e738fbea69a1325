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
/// here so it is the same everywhere and testable. Its words are messages, in the reader's
/// language when shown.
public struct QuestCard: Sendable, Equatable {
    public let state: QuestState
    public let summary: Message
    public let progressText: Message
    public let percent: Int
    public let periodText: Message
    /// A milestone chain's steps as the card lists them (empty for other goals).
    public let steps: [StepLine]

    /// One step of a chain on a card: "Step 2 · Tue 10 · 20 minutes", and where it stands.
    public struct StepLine: Sendable, Equatable {
        public let text: Message
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
            var arguments: [String: Message.Argument] = ["progress": .message(text), "step": .number(missed + 1)]
            if spec.endDay.map({ next <= $0 }) ?? true {
                arguments["day"] = .day(next, .long)
                text = Message("quests.progress.stepMissedNextChain", arguments)
            } else {
                text = Message("quests.progress.stepMissed", arguments)
            }
        }
        progressText = text
        percent = completedThisPeriod ? 100 : progress.percent
        periodText = Self.periodText(spec, progress.period)
        self.steps = steps.enumerated().map { index, step in
            var arguments: [String: Message.Argument] = [
                "number": .number(index + 1), "minutes": .message(.count(step.target, .minutes)),
            ]
            let key: String
            if let day = step.day {
                arguments["day"] = .day(day, .shortMonth)
                key = "quests.card.step"
            } else {
                key = "quests.card.stepAfterEnd"
            }
            return StepLine(text: Message(key, arguments), minutes: step.minutes, state: step.state(today: today))
        }
    }

    /// One sentence for what the quest asks.
    public static func summary(_ spec: QuestSpec, appNames: [String: String]) -> Message {
        let apps = Message.Argument.list(spec.learningApps.map { .text(appNames[$0] ?? $0) })
        let allApps = spec.learningApps.isEmpty
        // The message for "today", "this week" or "by the end date".
        func per(day: String, week: String, whole: String) -> String {
            spec.period == .week ? week : spec.period == .whole ? whole : day
        }
        let minutes = Message.Argument.message(.count(spec.target, .minutes))
        let points = Message.Argument.message(.count(spec.target, .points))
        let text: Message
        switch spec.goal {
        case .dailyMinutes:
            text =
                allApps
                ? Message("quests.summary.dailyMinutes.all", ["minutes": minutes])
                : Message("quests.summary.dailyMinutes", ["apps": apps, "minutes": minutes])
        case .weeklyMinutes: text = Message("quests.summary.weeklyMinutes", ["minutes": minutes])
        case .specificApps:
            text =
                allApps
                ? Message(
                    per(
                        day: "quests.summary.specificApps.all.day", week: "quests.summary.specificApps.all.week",
                        whole: "quests.summary.specificApps.all.whole"), ["minutes": minutes])
                : Message(
                    per(
                        day: "quests.summary.specificApps.day", week: "quests.summary.specificApps.week",
                        whole: "quests.summary.specificApps.whole"), ["apps": apps, "minutes": minutes])
        case .streak:
            text = Message(
                "quests.summary.streak",
                [
                    "minutes": .message(.count(spec.dailyMinimumMinutes ?? 1, .minutes)),
                    "days": .message(.count(spec.target, .days)),
                ])
        case .pointsTarget:
            text = Message(
                per(
                    day: "quests.summary.pointsTarget.day", week: "quests.summary.pointsTarget.week",
                    whole: "quests.summary.pointsTarget.whole"), ["points": points])
        case .appDiversity:
            text = Message(
                per(
                    day: "quests.summary.appDiversity.day", week: "quests.summary.appDiversity.week",
                    whole: "quests.summary.appDiversity.whole"), ["count": .number(spec.target)])
        case .dailyConsistency:
            text = Message(
                "quests.summary.dailyConsistency",
                [
                    "minutes": .message(.count(spec.dailyMinimumMinutes ?? 1, .minutes)),
                    "target": .number(spec.target),
                    "days": .message(.count(spec.weekdays.count, .days)),
                ])
        case .timeWindow:
            if let window = spec.window {
                text = Message(
                    "quests.summary.timeWindow",
                    [
                        "minutes": minutes, "from": DailyWindow.time(window.startMinute),
                        "to": DailyWindow.time(window.endMinute),
                    ])
            } else {
                text = Message("quests.summary.timeWindow.unset", ["minutes": minutes])
            }
        case .efficiency:
            text = Message(
                "quests.summary.efficiency",
                ["points": points, "minutes": .message(.count(spec.withinMinutes ?? 0, .minutes))])
        case .milestones:
            let steps = spec.steps ?? []
            text = Message("quests.summary.milestones", ["steps": stepList(steps), "count": .number(steps.count)])
        }
        if let window = spec.window, spec.goal != .timeWindow {
            return Message(
                "quests.summary.withWindow", ["summary": .message(text), "window": .message(window.message)])
        }
        return text
    }

    /// A chain's minutes in order, "10, 20 then 30", as nested messages (each language joins
    /// them its own way).
    static func stepList(_ steps: [Int]) -> Message.Argument {
        guard let last = steps.last else { return .text("") }
        guard steps.count > 1 else { return .number(last) }
        var before = Message.Argument.number(steps[0])
        for step in steps.dropFirst().dropLast() {
            before = .message(Message("quests.summary.stepList", ["before": before, "next": .number(step)]))
        }
        return .message(Message("quests.summary.stepListLast", ["before": before, "last": .number(last)]))
    }

    public static func progressText(_ spec: QuestSpec, _ progress: QuestProgress) -> Message {
        let of = Message(
            "quests.progress.of",
            ["value": .number(progress.value), "target": .message(spec.goal.unit.count(progress.target))])
        switch spec.goal.unit {
        case .days:
            if let run = progress.runDays, run > progress.value {
                return Message(
                    "quests.progress.withRun", ["progress": .message(of), "run": .message(.count(run, .days))])
            }
            return of
        case .points where spec.goal == .efficiency:
            return Message(
                "quests.progress.efficiency",
                [
                    "value": .number(progress.value), "target": .message(.count(progress.target, .points)),
                    "minutes": .message(.count(spec.withinMinutes ?? 0, .minutes)),
                ])
        default: return of
        }
    }

    static func periodText(_ spec: QuestSpec, _ window: PeriodWindow) -> Message {
        switch spec.period {
        case .day: Message("quests.period.today")
        case .week: Message("quests.period.thisWeek")
        case .whole: Message("quests.period.until", ["day": .day(window.last, .long)])
        case .run: Message("quests.period.currentStreak")
        case .chain: Message("quests.period.thisChain", ["day": .day(window.last, .long)])
        }
    }
}
