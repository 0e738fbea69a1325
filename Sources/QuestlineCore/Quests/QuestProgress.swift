public import Foundation

/// One usage report from a device: an app was in use from `start` for `seconds`, on a device
/// whose clock was in `zone`.
public struct UsageRecord: Sendable, Equatable {
    public let token: String
    public let start: Date
    public let seconds: Int
    public let zone: TimeZoneID

    public init(token: String, start: Date, seconds: Int, zone: TimeZoneID) {
        self.token = token
        self.start = start
        self.seconds = seconds
        self.zone = zone
    }

    public var end: Date { start.addingTimeInterval(TimeInterval(seconds)) }

    /// The local days the report falls on, in the zone it was stamped with (the device's clock
    /// decides a report's day and time of day, not the child's zone at the time of settling).
    public var localDays: [LocalDay] {
        let zone = zone.timeZone
        var day = LocalDay(start, in: zone)
        let last = LocalDay(end.addingTimeInterval(-0.001), in: zone)
        var days: [LocalDay] = []
        while day <= last {
            days.append(day)
            day = day.adding(days: 1)
        }
        return days
    }
}

/// A stretch of use of one app within one local day (in the zone the device reported).
public struct UsagePiece: Sendable, Equatable {
    public let token: String
    public let day: LocalDay
    public let start: Date
    public let end: Date
    public let zone: TimeZone

    public var seconds: Double { end.timeIntervalSince(start) }
}

/// Usage as progress sees it: reports merged per app (overlaps and duplicates count once,
/// whatever order they came in) and cut at local midnight. Everything below is a pure
/// function of the set of reports, so late, repeated or reordered reports give the result
/// clean ones would.
public struct UsageTimeline: Sendable {
    public let pieces: [UsagePiece]

    public init(_ records: [UsageRecord]) {
        var pieces: [UsagePiece] = []
        var midnights = DayStarts()
        let byToken = Dictionary(grouping: records, by: \.token)
        for token in byToken.keys.sorted() {
            // Sort by start (then zone, so that equal starts always merge the same way).
            let sorted = byToken[token]!.sorted { ($0.start, $0.zone.identifier) < ($1.start, $1.zone.identifier) }
            var current: (start: Date, end: Date, zone: TimeZone)?
            for record in sorted where record.seconds > 0 {
                if let open = current, record.start <= open.end {
                    current = (open.start, max(open.end, record.end), open.zone)
                } else {
                    if let open = current {
                        Self.cut(token, open.start, open.end, open.zone, into: &pieces, midnights: &midnights)
                    }
                    current = (record.start, record.end, record.zone.timeZone)
                }
            }
            if let open = current {
                Self.cut(token, open.start, open.end, open.zone, into: &pieces, midnights: &midnights)
            }
        }
        self.pieces = pieces.sorted { ($0.start, $0.token) < ($1.start, $1.token) }
    }

    private init(pieces: [UsagePiece]) { self.pieces = pieces }

    /// The usage on local days up to `today` (the child's, in the zone a guardian set): a
    /// report stamped in a zone where it is already a later day counts on that day, once the
    /// child's today reaches it. Before, such a report completed and paid a period the child had
    /// not reached, and unlocked reward apps for now.
    public func through(_ today: LocalDay) -> UsageTimeline {
        UsageTimeline(pieces: pieces.filter { $0.day <= today })
    }

    private static func cut(
        _ token: String, _ start: Date, _ end: Date, _ zone: TimeZone, into pieces: inout [UsagePiece],
        midnights: inout DayStarts
    ) {
        var from = start
        while from < end {
            let day = LocalDay(from, in: zone)
            let next = midnights.start(of: day.adding(days: 1), in: zone)
            let to = min(end, next)
            pieces.append(UsagePiece(token: token, day: day, start: from, end: to, zone: zone))
            from = to
        }
    }

    /// Minutes and points per app and local day, over every learning app: what the ledger's
    /// earn entries are credited from. Whole minutes per app and day.
    public func earnings(catalog: [String: QuestApp]) -> [DayEarning] {
        var seconds: [DayKey: Double] = [:]
        for piece in pieces where catalog[piece.token]?.role == .learning {
            seconds[DayKey(token: piece.token, day: piece.day), default: 0] += piece.seconds
        }
        return seconds.map { key, total in
            let minutes = Int(total / 60)
            return DayEarning(
                token: key.token, day: key.day, minutes: minutes,
                points: minutes * (catalog[key.token]?.pointsPerMinute ?? 0))
        }.sorted { ($0.day, $0.token) < ($1.day, $1.token) }
    }

    struct DayKey: Hashable {
        let token: String
        let day: LocalDay
    }
}

/// Local midnights already computed (a Calendar computation each), per zone and day: usage
/// has many reports a day, so each day's start is computed once.
struct DayStarts {
    private var cache: [Key: Date] = [:]

    private struct Key: Hashable {
        let zone: String
        let day: Int
        let minute: Int
    }

    mutating func start(of day: LocalDay, in zone: TimeZone) -> Date {
        instant(day, minute: 0, zone: zone)
    }

    /// The instant a local wall-clock minute of `day` falls on in `zone` (a minute skipped by
    /// a DST change maps to the instant after the gap).
    mutating func instant(_ day: LocalDay, minute: Int, zone: TimeZone) -> Date {
        let key = Key(zone: zone.identifier, day: day.dayNumber, minute: minute)
        if let known = cache[key] { return known }
        let value: Date
        if minute == 0 {
            value = day.start(in: zone)
        } else if minute >= 1440 {
            value = instant(day.adding(days: 1), minute: 0, zone: zone)
        } else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let components = DateComponents(
                year: day.year, month: day.month, day: day.day, hour: minute / 60, minute: minute % 60)
            value = calendar.date(from: components) ?? day.start(in: zone).addingTimeInterval(TimeInterval(minute * 60))
        }
        cache[key] = value
        return value
    }
}

/// Learning minutes and points earned in one app on one local day.
public struct DayEarning: Sendable, Equatable, Hashable {
    public let token: String
    public let day: LocalDay
    public let minutes: Int
    public let points: Int

    public init(token: String, day: LocalDay, minutes: Int, points: Int) {
        self.token = token
        self.day = day
        self.minutes = minutes
        self.points = points
    }
}

/// The days one period of a quest covers, and its key (the first day).
public struct PeriodWindow: Sendable, Equatable, Hashable {
    public let first: LocalDay
    public let last: LocalDay

    public init(first: LocalDay, last: LocalDay) {
        self.first = first
        self.last = last
    }

    public var key: String { first.iso }

    public func contains(_ day: LocalDay) -> Bool { first <= day && day <= last }
}

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

extension QuestSpec {
    /// The period that contains `day`, clipped to the quest's dates; nil outside them.
    /// Streaks have no fixed periods (see `streakRuns`).
    public func period(containing day: LocalDay) -> PeriodWindow? {
        guard day >= startDay, endDay.map({ day <= $0 }) ?? true else { return nil }
        let first: LocalDay
        let last: LocalDay
        switch period {
        case .day, .run: (first, last) = (day, day)
        case .week:
            let monday = day.adding(days: 1 - day.isoWeekday)
            (first, last) = (monday, monday.adding(days: 6))
        case .whole: (first, last) = (startDay, endDay ?? day)
        case .chain:
            let cycle = chainCycle(containing: day)
            (first, last) = (cycle.first, cycle.last)
        }
        return PeriodWindow(first: max(first, startDay), last: endDay.map { min(last, $0) } ?? last)
    }

    /// A milestone chain's cycle around `day` (on or after the start date): the chain takes one
    /// step on each active day, so a cycle ends on the day of its last step and the next begins
    /// the day after. Fixed by the calendar, not by usage, so late reports never move a cycle.
    /// An inactive day belongs to the cycle of the next active day.
    public func chainCycle(containing day: LocalDay) -> PeriodWindow {
        let length = max(1, steps?.count ?? target)
        guard !weekdays.isEmpty, day >= startDay else { return PeriodWindow(first: day, last: day) }
        let index = activeDays(through: day) + (weekdays.contains(day.isoWeekday) ? 0 : 1)
        let cycle = (index - 1) / length
        let first = cycle == 0 ? startDay : activeDay(cycle * length).adding(days: 1)
        return PeriodWindow(first: first, last: activeDay(cycle * length + length))
    }

    /// The days of a milestone chain's steps within `window` (a cycle): its active days, in order.
    /// A cycle cut short by the end date has fewer days than steps.
    public func chainDays(in window: PeriodWindow) -> [LocalDay] {
        guard !weekdays.isEmpty else { return [] }
        var days: [LocalDay] = []
        var day = window.first
        while day <= window.last {
            if weekdays.contains(day.isoWeekday) { days.append(day) }
            day = day.adding(days: 1)
        }
        return days
    }

    /// How many active days there are from the start date through `day`.
    func activeDays(through day: LocalDay) -> Int {
        guard day >= startDay else { return 0 }
        let weeks = (startDay.days(until: day) + 1) / 7
        var count = weeks * weekdays.count
        var next = startDay.adding(days: weeks * 7)
        while next <= day {
            if weekdays.contains(next.isoWeekday) { count += 1 }
            next = next.adding(days: 1)
        }
        return count
    }

    /// The `n`th active day from the start date (1 is the first); weekdays must not be empty.
    func activeDay(_ n: Int) -> LocalDay {
        let perWeek = weekdays.count
        var remaining = (n - 1) % perWeek + 1
        var day = startDay.adding(days: (n - 1) / perWeek * 7)
        while true {
            if weekdays.contains(day.isoWeekday) {
                remaining -= 1
                if remaining == 0 { return day }
            }
            day = day.adding(days: 1)
        }
    }

    /// The period a card shows on `today`: the one containing today; before the start date the
    /// first period, after the end date the last. Never a day outside the quest's dates.
    public func shownPeriod(today: LocalDay) -> PeriodWindow {
        var day = max(today, startDay)
        if let endDay { day = min(day, endDay) }
        return period(containing: day) ?? PeriodWindow(first: day, last: day)
    }

    /// The bonus a completion pays: `bonusPercent` of the points earned toward the quest in
    /// the period, rounded down, at least 1.
    public func bonus(forPoints points: Int) -> Int { max(1, points * bonusPercent / 100) }

    /// Whether usage of `app` can count toward this quest.
    func counts(_ app: QuestApp?) -> Bool {
        guard let app, app.role == .learning else { return false }
        return learningApps.isEmpty || learningApps.contains(app.token)
    }
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
