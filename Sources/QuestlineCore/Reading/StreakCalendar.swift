/// A month of a reader's days as the streak calendar draws it (seed 000's "picture of the
/// streak"): which days were read, which a freeze kept, which were missed. Pure, so an app
/// draws the same grid the web app does.
public struct StreakCalendar: Sendable, Equatable {
    /// What a day shows.
    public enum Mark: String, Sendable {
        /// At least one article read that day.
        case read
        /// Missed, but a freeze kept the streak.
        case frozen
        /// One of the reader's rest days (not read).
        case rest
        /// Paused (not read).
        case paused
        /// Missed, then earned back by reading three articles in a day.
        case repaired
        /// Missed: not read, no freeze, after tracking began.
        case missed
        /// Today, not read yet (nothing is lost until it ends).
        case today
        /// Still to come, or before the reader's first read: nothing to show.
        case none
    }

    public struct Day: Sendable, Equatable {
        public let day: LocalDay
        public let mark: Mark
    }

    /// The month's first day.
    public let month: LocalDay
    /// Weeks from Monday to Sunday; days of the neighbouring months are nil.
    public let weeks: [[Day?]]
    /// The months before and after, when there is anything to see there.
    public let previous: LocalDay?
    public let next: LocalDay?
    /// Days read, frozen, missed, rested, paused and repaired in this month.
    public let readCount: Int
    public let frozenCount: Int
    public let missedCount: Int
    public let restCount: Int
    public let pausedCount: Int
    public let repairedCount: Int

    /// `month` is any day of the month to draw. Days count as missed from `trackedFrom` (the
    /// first read, say) up to yesterday; `today` is the reader's local day.
    /// Rest, paused and repaired days are marked as `StreakWalk` walks the reader's days from
    /// `trackedFrom` with `allowances` and `repairDays` (days with at least three reads).
    public init(
        month: LocalDay, today: LocalDay, readDays: Set<LocalDay>, frozenDays: Set<LocalDay>, trackedFrom: LocalDay?,
        repairDays: Set<LocalDay> = [], allowances: StreakAllowances = .none
    ) {
        let walk =
            allowances == .none && repairDays.isEmpty
            ? nil
            : StreakWalk(
                from: trackedFrom ?? today, today: today, readDays: readDays, repairDays: repairDays,
                allowances: allowances)
        let first = month.firstOfMonth
        let last = month.lastOfMonth
        var days: [Day?] = Array(repeating: nil, count: first.isoWeekday - 1)
        var counts: [Mark: Int] = [:]
        var day = first
        while day <= last {
            let mark: Mark
            if readDays.contains(day) {
                mark = .read
            } else if frozenDays.contains(day) {
                mark = .frozen
            } else if allowances.isPaused(day), day <= today, let trackedFrom, trackedFrom <= day {
                mark = .paused
            } else if allowances.isRest(day), day <= today, let trackedFrom, trackedFrom <= day {
                mark = .rest
            } else if walk?.mark(on: day) == .repaired {
                mark = .repaired
            } else if day == today {
                mark = .today
            } else if day < today, let trackedFrom, trackedFrom <= day {
                mark = .missed
            } else {
                mark = .none
            }
            counts[mark, default: 0] += 1
            days.append(Day(day: day, mark: mark))
            day = day.adding(days: 1)
        }
        days += Array(repeating: nil, count: (7 - days.count % 7) % 7)
        self.month = first
        weeks = stride(from: 0, to: days.count, by: 7).map { Array(days[$0..<$0 + 7]) }
        let earliest = [trackedFrom, readDays.min()].compactMap { $0 }.min()
        previous = earliest.map { $0 < first } == true ? first.adding(days: -1).firstOfMonth : nil
        next = last < today ? last.adding(days: 1) : nil
        readCount = counts[.read] ?? 0
        frozenCount = counts[.frozen] ?? 0
        missedCount = counts[.missed] ?? 0
        restCount = counts[.rest] ?? 0
        pausedCount = counts[.paused] ?? 0
        repairedCount = counts[.repaired] ?? 0
    }
}
