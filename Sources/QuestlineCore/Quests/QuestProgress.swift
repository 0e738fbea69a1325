import Foundation

/// A quest's progress in one period.
public struct QuestProgress: Sendable, Equatable {
    public let period: PeriodWindow
    public let value: Int
    public let target: Int
    public let unit: QuestUnit
    /// Points earned toward this quest in the period: what the bonus is a percentage of.
    public let points: Int
    /// A streak quest's whole run of days in a row, across the cycles it has paid (nil for
    /// other goals).
    public var runDays: Int? = nil
    /// A milestone chain's steps in this period, in order (nil for other goals).
    public var steps: [MilestoneStep]? = nil

    public var completed: Bool { value >= target }
    /// 0 to 100.
    public var percent: Int { target == 0 ? 100 : min(100, value * 100 / target) }
}

/// One step of a milestone chain: the minutes it asks for on its day, and those counted.
public struct MilestoneStep: Sendable, Equatable {
    /// The step's day; nil when the end date cut the chain short before it.
    public let day: LocalDay?
    public let target: Int
    public let minutes: Int

    public init(day: LocalDay?, target: Int, minutes: Int) {
        self.day = day
        self.target = target
        self.minutes = minutes
    }

    public var met: Bool { minutes >= target }

    public enum State: String, Sendable {
        case met, missed, today, upcoming
    }

    /// Where the step stands on `today`: a step whose day has passed unmet is missed.
    public func state(today: LocalDay) -> State {
        if met { return .met }
        guard let day else { return .missed }
        return day < today ? .missed : day == today ? .today : .upcoming
    }
}

/// A streak quest's history: the cycles completed (each keyed by the day it completed on), the
/// current cycle, and the runs of days meeting the daily minimum (first to last met day).
public struct StreakHistory: Sendable, Equatable {
    public let completed: [QuestProgress]
    public let current: QuestProgress
    public let runs: [DayRun]
}

/// Computes quest progress from a usage timeline. Pure; the same inputs always give the
/// same figures, for the guardian and the child alike.
public struct QuestEvaluator: Sendable {
    public let catalog: [String: QuestApp]
    public let timeline: UsageTimeline

    public init(catalog: [QuestApp], timeline: UsageTimeline) {
        self.catalog = Dictionary(catalog.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        self.timeline = timeline
    }

    /// The pieces of usage that count toward `spec` within `window`: counted apps, active
    /// weekdays, inside the daily time window.
    func counted(_ spec: QuestSpec, first: LocalDay, last: LocalDay) -> [UsagePiece] {
        var result: [UsagePiece] = []
        var instants = DayStarts()
        for piece in timeline.pieces where first <= piece.day && piece.day <= last {
            guard spec.weekdays.contains(piece.day.isoWeekday), spec.counts(catalog[piece.token]) else { continue }
            if let window = spec.window {
                let from = instants.instant(piece.day, minute: window.startMinute, zone: piece.zone)
                let to = instants.instant(piece.day, minute: window.endMinute, zone: piece.zone)
                let start = max(piece.start, from)
                let end = min(piece.end, to)
                if start < end {
                    result.append(
                        UsagePiece(token: piece.token, day: piece.day, start: start, end: end, zone: piece.zone))
                }
            } else {
                result.append(piece)
            }
        }
        return result
    }

    /// Seconds per (app, day) of counted usage.
    private func secondsByAppDay(_ pieces: [UsagePiece]) -> [UsageTimeline.DayKey: Double] {
        var seconds: [UsageTimeline.DayKey: Double] = [:]
        for piece in pieces { seconds[.init(token: piece.token, day: piece.day), default: 0] += piece.seconds }
        return seconds
    }

    private func points(_ byAppDay: [UsageTimeline.DayKey: Double]) -> Int {
        byAppDay.reduce(0) { $0 + Int($1.value / 60) * (catalog[$1.key.token]?.pointsPerMinute ?? 0) }
    }

    /// Whole minutes per day: each app's seconds on the day rounded down, then added (as the
    /// ledger counts them).
    private func minutesByDay(_ byAppDay: [UsageTimeline.DayKey: Double]) -> [LocalDay: Int] {
        var minutes: [LocalDay: Int] = [:]
        for (key, value) in byAppDay { minutes[key.day, default: 0] += Int(value / 60) }
        return minutes
    }

    /// The most points earned in any span of `minutes` starting on a whole minute: usage inside
    /// the span counts in whole minutes per app and day, as the ledger does. More usage never
    /// lowers it, so it does not depend on the order reports arrive in.
    func bestSpanPoints(_ pieces: [UsagePiece], minutes: Int) -> Int {
        guard minutes > 0 else { return 0 }
        let span = Double(minutes * 60)
        let sorted = pieces.filter { $0.end > $0.start }.sorted { $0.start < $1.start }
        var starts = Set<Int>()
        for piece in sorted {
            let first = Int(((piece.start.timeIntervalSince1970 - span) / 60).rounded(.down))
            let last = Int((piece.end.timeIntervalSince1970 / 60).rounded(.down))
            if first <= last { starts.formUnion(first...last) }
        }
        // A piece lies within one local day (the timeline cuts at midnight), so none longer than
        // 26 hours: the spans are visited in order and pieces that start earlier are skipped for good.
        var best = 0
        var first = 0
        for minute in starts.sorted() {
            let from = Date(timeIntervalSince1970: Double(minute) * 60)
            let to = from.addingTimeInterval(span)
            while first < sorted.count, sorted[first].start < from.addingTimeInterval(-26 * 3_600) { first += 1 }
            var seconds: [UsageTimeline.DayKey: Double] = [:]
            for piece in sorted[first...] {
                if piece.start >= to { break }
                let overlap = min(to, piece.end).timeIntervalSince(max(from, piece.start))
                if overlap > 0 { seconds[.init(token: piece.token, day: piece.day), default: 0] += overlap }
            }
            best = max(best, points(seconds))
        }
        return best
    }

    /// Progress of a non-streak quest in `window`.
    public func progress(_ spec: QuestSpec, in window: PeriodWindow) -> QuestProgress {
        let pieces = counted(spec, first: window.first, last: window.last)
        let byAppDay = secondsByAppDay(pieces)
        let points = points(byAppDay)
        let value: Int
        switch spec.goal {
        case .dailyMinutes, .weeklyMinutes, .specificApps, .timeWindow:
            value = minutesByDay(byAppDay).values.reduce(0, +)
        case .pointsTarget:
            value = points
        case .appDiversity:
            // An app counts once it has a whole minute on some day.
            value = Set(byAppDay.filter { $0.value >= 60 }.map(\.key.token)).count
        case .dailyConsistency:
            let minimum = spec.dailyMinimumMinutes ?? 1
            value = minutesByDay(byAppDay).values.filter { $0 >= minimum }.count
        case .efficiency:
            value = bestSpanPoints(pieces, minutes: spec.withinMinutes ?? 0)
        case .streak:
            return streakRuns(spec, through: window.last).current
        case .milestones:
            let minutes = minutesByDay(byAppDay)
            let days = spec.chainDays(in: window)
            let steps = (spec.steps ?? []).enumerated().map { index, target in
                let day = index < days.count ? days[index] : nil
                return MilestoneStep(day: day, target: target, minutes: day.map { minutes[$0] ?? 0 } ?? 0)
            }
            // A chain holds while its steps are met in order: progress is the steps met before the
            // first one that is not. More usage only meets more steps, so arrival order cannot matter.
            var progress = QuestProgress(
                period: window, value: steps.prefix { $0.met }.count, target: spec.target, unit: .steps,
                points: points)
            progress.steps = steps
            return progress
        }
        return QuestProgress(period: window, value: value, target: spec.target, unit: spec.goal.unit, points: points)
    }

    /// A streak quest from its start to `today`: days meeting the daily minimum in a row
    /// (inactive weekdays neither count nor break it; today not yet met does not break it).
    /// The run pays at each full cycle of `target` days, on the day the cycle completes; the
    /// next day a new cycle starts while the run goes on. Returns the completed cycles and the
    /// current one: on the day a cycle completes, that cycle ("N / N"); after it, the new
    /// cycle, with the whole run's length in `runDays`.
    public func streakRuns(_ spec: QuestSpec, through today: LocalDay) -> StreakHistory {
        let last = spec.endDay.map { min($0, today) } ?? today
        let byAppDay = secondsByAppDay(counted(spec, first: spec.startDay, last: last))
        let minutes = minutesByDay(byAppDay)
        var pointsByDay: [LocalDay: Int] = [:]
        for (key, value) in byAppDay {
            pointsByDay[key.day, default: 0] += Int(value / 60) * (catalog[key.token]?.pointsPerMinute ?? 0)
        }
        let minimum = spec.dailyMinimumMinutes ?? 1
        var completed: [QuestProgress] = []
        var run = 0
        var runDays = 0
        var runStart = spec.startDay
        var runPoints = 0
        var runs: [DayRun] = []
        var runFirst = spec.startDay
        var runLast = spec.startDay
        var day = spec.startDay
        while day <= last {
            if spec.weekdays.contains(day.isoWeekday) {
                if (minutes[day] ?? 0) >= minimum {
                    if run == 0 {
                        runStart = day
                        runPoints = 0
                    }
                    if runDays == 0 { runFirst = day }
                    runLast = day
                    run += 1
                    runDays += 1
                    runPoints += pointsByDay[day] ?? 0
                    if run == spec.target {
                        completed.append(
                            QuestProgress(
                                period: PeriodWindow(first: day, last: day), value: run, target: spec.target,
                                unit: .days, points: runPoints, runDays: runDays))
                        run = 0
                    }
                } else if day < today {
                    if runDays > 0 { runs.append(DayRun(first: runFirst, last: runLast)) }
                    run = 0
                    runDays = 0
                }
            }
            day = day.adding(days: 1)
        }
        if runDays > 0 { runs.append(DayRun(first: runFirst, last: runLast)) }
        if run == 0, let cycle = completed.last, cycle.period.last == today {
            return StreakHistory(completed: completed, current: cycle, runs: runs)  // "N / N", completed
        }
        let current = QuestProgress(
            period: PeriodWindow(first: run == 0 ? today : runStart, last: today), value: run,
            target: spec.target, unit: .days, points: run == 0 ? 0 : runPoints, runDays: runDays)
        return StreakHistory(completed: completed, current: current, runs: runs)
    }

    /// Every completed period of `spec` among the periods containing `days`, plus all streak
    /// completions up to `today`.
    public func completions(_ spec: QuestSpec, touching days: Set<LocalDay>, today: LocalDay) -> [QuestProgress] {
        if spec.goal == .streak { return streakRuns(spec, through: today).completed }
        let windows = Set(days.compactMap { spec.period(containing: $0) })
        return windows.sorted { $0.first < $1.first }.map { progress(spec, in: $0) }.filter(\.completed)
    }
}
