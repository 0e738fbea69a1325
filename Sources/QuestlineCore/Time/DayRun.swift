/// A run of consecutive local days (a streak): `first` through `last`, both included.
///
/// Streaks are kept as runs so that a store can maintain them as days arrive in any order
/// (a late report fills a gap and joins two runs) with point lookups, never by reading a
/// member's whole history; the same rules serve in-memory lists of days.
public struct DayRun: Hashable, Sendable {
    public let first: LocalDay
    public let last: LocalDay

    public init(first: LocalDay, last: LocalDay) {
        precondition(first <= last, "A run ends on or after its first day")
        self.first = first
        self.last = last
    }

    public var length: Int { last.dayNumber - first.dayNumber + 1 }

    public func contains(_ day: LocalDay) -> Bool { first <= day && day <= last }

    /// Every day of the run, in order.
    public var days: [LocalDay] { (first.dayNumber...last.dayNumber).map { LocalDay(dayNumber: $0) } }

    /// The run after `day` is added, given the run ending the day before (`left`) and the run
    /// starting the day after (`right`), when there are such runs: they join.
    public static func adding(_ day: LocalDay, left: DayRun?, right: DayRun?) -> DayRun {
        DayRun(first: left?.first ?? day, last: right?.last ?? day)
    }

    /// The runs of a set of days, oldest first.
    public static func runs(of days: some Sequence<LocalDay>) -> [DayRun] {
        var runs: [DayRun] = []
        for number in Set(days.map(\.dayNumber)).sorted() {
            if let last = runs.last, last.last.dayNumber == number - 1 {
                runs[runs.count - 1] = DayRun(first: last.first, last: LocalDay(dayNumber: number))
            } else {
                runs.append(DayRun(first: LocalDay(dayNumber: number), last: LocalDay(dayNumber: number)))
            }
        }
        return runs
    }

    /// The current streak given the latest run that starts on or before `today`: the days of
    /// that run up to today when it reaches today, up to yesterday when it reaches yesterday
    /// (today may still come), else none.
    public static func current(latest run: DayRun?, today: LocalDay) -> Int {
        guard let run else { return 0 }
        let yesterday = today.adding(days: -1)
        if run.contains(today) { return today.dayNumber - run.first.dayNumber + 1 }
        if run.contains(yesterday) { return yesterday.dayNumber - run.first.dayNumber + 1 }
        return 0
    }

    /// The current streak among `runs` (any order).
    public static func current(in runs: [DayRun], today: LocalDay) -> Int {
        current(latest: runs.filter { $0.first <= today }.max { $0.first < $1.first }, today: today)
    }
}
