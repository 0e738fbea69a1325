import Foundation

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
            let monday = day.monday
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

    /// The completion key of the period a card shows on `today` (`shownPeriod`): a streak's
    /// is the day it completed on, so today's.
    public func shownKey(today: LocalDay) -> String {
        goal == .streak ? today.iso : shownPeriod(today: today).key
    }

    /// The bonus a completion pays: `bonusPercent` of the points earned toward the quest in
    /// the period, rounded down, at least 1.
    public func bonus(forPoints points: Int) -> Int { Self.bonus(forPoints: points, percent: bonusPercent) }

    /// `percent` of `points`, rounded down, at least 1: every quest's bonus, a co-op quest's
    /// share of it too.
    public static func bonus(forPoints points: Int, percent: Int) -> Int { max(1, points * percent / 100) }

    /// Whether usage of `app` can count toward this quest.
    func counts(_ app: QuestApp?) -> Bool {
        guard let app, app.role == .learning else { return false }
        return learningApps.isEmpty || learningApps.contains(app.token)
    }
}
