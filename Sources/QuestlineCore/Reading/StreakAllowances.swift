public import Foundation

/// What forgives a reader's streak besides a campaign's freezes: rest days, pauses, and
/// repairs. Every streak (the reading challenge's, the everyday one in Activity,
/// the calendar and the reminders) asks the same rules here, in the member's local days.
///
/// - **Rest days:** up to two ISO weekdays on which the streak neither breaks nor grows. A change
///   applies from the first Monday that has not begun anywhere on Earth, so a streak cannot be
///   rescued after the fact by turning a missed day into a rest day, not even by changing zone.
/// - **Pauses:** up to 14 days a calendar year, starting at the earliest on the first day that
///   has not begun anywhere on Earth (`Anywhere.firstDayNotBegun`: no later change of zone can
///   make a pause cover a day that had begun when it was asked for); a paused day keeps the
///   streak and does not grow it. A pause can be ended early: from today on, days count again.
/// - **Repairs:** a streak broken by one missed day is earned back by reading at least three
///   articles in one day, on the day after the miss or the day after that (the day between then
///   read), at most once in 30 days. Repairs are worked out from the history, not stored: a late
///   read that reaches three on a day repairs as if it had come in time.
public struct StreakAllowances: Sendable, Equatable, Codable {
    /// Rest weekdays in force from `from` (a Monday) on, until the next change.
    public struct RestDays: Sendable, Equatable, Codable {
        public let weekdays: [Int]
        public let from: LocalDay

        public init(weekdays: [Int], from: LocalDay) {
            self.weekdays = weekdays.sorted()
            self.from = from
        }
    }

    /// Paused days, `start` through `end` inclusive.
    public struct Pause: Sendable, Equatable, Codable {
        public let start: LocalDay
        public let end: LocalDay

        public init(start: LocalDay, end: LocalDay) {
            self.start = start
            self.end = end
        }

        public var days: Int { start.days(until: end) + 1 }
        public func contains(_ day: LocalDay) -> Bool { start <= day && day <= end }
    }

    /// Schedules in the order they take effect.
    public private(set) var restDays: [RestDays]
    /// Pauses in the order they start; they never overlap.
    public private(set) var pauses: [Pause]

    public static let maxRestDays = 2
    public static let maxPauseDaysPerYear = 14
    public static let repairReads = 3
    public static let repairEveryDays = 30

    public init(restDays: [RestDays] = [], pauses: [Pause] = []) {
        self.restDays = restDays.sorted { $0.from < $1.from }
        self.pauses = pauses.sorted { $0.start < $1.start }
    }

    /// No rest days, no pauses.
    public static let none = StreakAllowances()

    /// The rest weekdays in force on `day`.
    public func restWeekdays(on day: LocalDay) -> [Int] {
        restDays.last(where: { $0.from <= day })?.weekdays ?? []
    }

    public func isRest(_ day: LocalDay) -> Bool { restWeekdays(on: day).contains(day.isoWeekday) }

    public func pause(covering day: LocalDay) -> Pause? { pauses.first { $0.contains(day) } }

    public func isPaused(_ day: LocalDay) -> Bool { pause(covering: day) != nil }

    /// Rest or paused: a day that neither breaks nor grows the streak.
    public func excuses(_ day: LocalDay) -> Bool { isPaused(day) || isRest(day) }

    /// Paused days that fall in calendar year `year`.
    public func pausedDays(inYear year: Int) -> Int {
        pauses.reduce(0) { total, pause in
            guard let first = LocalDay(year: year, month: 1, day: 1),
                let last = LocalDay(year: year, month: 12, day: 31)
            else { return total }
            let start = max(pause.start, first)
            let end = min(pause.end, last)
            return start <= end ? total + start.days(until: end) + 1 : total
        }
    }

    /// The first day a change asked at `now` may reach (`Anywhere.firstDayNotBegun`).
    public static func earliestChange(at now: Date) -> LocalDay { Anywhere.firstDayNotBegun(at: now) }

    /// The Monday from which rest days chosen now apply: the first on or after `earliestChange`.
    public static func restDaysFrom(earliestChange: LocalDay) -> LocalDay {
        earliestChange.adding(days: (8 - earliestChange.isoWeekday) % 7)
    }

    /// The rest weekdays chosen at `now`, in force from the first Monday that has not begun
    /// anywhere (replacing a change already waiting for that Monday).
    public func settingRestDays(_ weekdays: [Int], at now: Date) throws(DomainError) -> StreakAllowances {
        let chosen = try Self.validatedRestDays(weekdays)
        let monday = Self.restDaysFrom(earliestChange: Self.earliestChange(at: now))
        var schedules = restDays.filter { $0.from < monday }
        if restWeekdays(on: monday) != chosen || restDays.contains(where: { $0.from >= monday }) {
            schedules.append(RestDays(weekdays: chosen, from: monday))
        }
        return StreakAllowances(restDays: schedules, pauses: pauses)
    }

    /// Rest weekdays as chosen: 1 (Monday) to 7 (Sunday), at most two; sorted, without repeats.
    public static func validatedRestDays(_ weekdays: [Int], field: String = "restDays") throws(DomainError) -> [Int] {
        guard weekdays.allSatisfy({ (1...7).contains($0) }) else {
            throw .invalid(field: field, Message("reading.error.weekdayRange"))
        }
        let chosen = Array(Set(weekdays)).sorted()
        guard chosen.count <= Self.maxRestDays else {
            throw .invalid(field: field, Message("reading.error.tooManyRestDays", ["count": .number(Self.maxRestDays)]))
        }
        return chosen
    }

    /// A pause of the days `start` through `end`, asked at `now`: from the first day that has not
    /// begun anywhere at the earliest, not over another pause, and at most 14 paused days in each
    /// calendar year it touches.
    public func pausing(from start: LocalDay, through end: LocalDay, at now: Date) throws(DomainError)
        -> StreakAllowances
    {
        let earliest = Self.earliestChange(at: now)
        guard start >= earliest else {
            throw .invalid(
                field: "start",
                Message("reading.error.pauseTooEarly", ["day": .day(earliest, .long)]))
        }
        return try adding(start: start, end: end)
    }

    /// A pause of the days `start` through `end` added to these (whenever it was asked: the QA
    /// preview describes pauses already made): ending on or after its first day, not over
    /// another pause, at most 14 paused days in each calendar year it touches. `field` prefixes
    /// the fields a refusal names (`pauses[0].`).
    public func adding(start: LocalDay, end: LocalDay, field: String = "") throws(DomainError) -> StreakAllowances {
        guard end >= start else {
            throw .invalid(field: field + "end", Message("reading.error.pauseEndsBeforeStart"))
        }
        let pause = Pause(start: start, end: end)
        guard !pauses.contains(where: { $0.start <= end && start <= $0.end }) else {
            throw .invalid(field: field + "start", Message("reading.error.alreadyPaused"))
        }
        let widened = StreakAllowances(restDays: restDays, pauses: pauses + [pause])
        for year in start.year...end.year where widened.pausedDays(inYear: year) > Self.maxPauseDaysPerYear {
            let left = Self.maxPauseDaysPerYear - pausedDays(inYear: year)
            throw .invalid(
                field: field + "end",
                Message(
                    "reading.error.pauseDaysPerYear",
                    [
                        "count": .number(Self.maxPauseDaysPerYear), "year": .year(year),
                        "left": .message(.count(max(left, 0), .days)),
                    ]))
        }
        return widened
    }

    /// Ends the pause that covers today (from today on the days count again) or cancels the one
    /// still to come; the pauses before stay.
    public func endingPause(today: LocalDay) throws(DomainError) -> StreakAllowances {
        guard let index = pauses.firstIndex(where: { $0.end >= today }) else {
            throw .conflict(field: nil, message: Message("reading.error.noPause"))
        }
        var kept = pauses
        let pause = kept.remove(at: index)
        if pause.start < today { kept.insert(Pause(start: pause.start, end: today.adding(days: -1)), at: index) }
        return StreakAllowances(restDays: restDays, pauses: kept)
    }

    /// The pause in force today or next to come.
    public func currentOrNextPause(today: LocalDay) -> Pause? { pauses.first { $0.end >= today } }
}
