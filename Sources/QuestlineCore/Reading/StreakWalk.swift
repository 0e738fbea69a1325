/// One walk over a reader's local days that every streak asks: the reading challenge's (with
/// its freezes and goal), the everyday streak in Activity, the streak calendar and the
/// reminders. It applies, in this order, on a day without a read before today: a pause, a rest
/// day, a freeze (when the walk has freezes), a repair (`StreakAllowances`); otherwise the day
/// is missed and the run ends. Today without a read breaks nothing. Pure, from the history:
/// the same reads give the same walk whatever order they arrived in.
public struct StreakWalk: Sendable, Equatable {
    public enum Mark: String, Sendable, Codable {
        case read, rest, paused, frozen, repaired, missed
    }

    /// A campaign's freezes: held from the join day, earned by reading.
    public struct Freezes: Sendable, Equatable {
        public let initial: Int
        public let everyDays: Int
        public let maxHeld: Int
        /// The join day: freezes are held and spent from it (none before, or without it).
        public let from: LocalDay?

        public init(initial: Int, everyDays: Int, maxHeld: Int, from: LocalDay?) {
            self.initial = initial
            self.everyDays = everyDays
            self.maxHeld = maxHeld
            self.from = from
        }
    }

    /// A streak broken by one missed day that reading three articles today would save.
    public struct Repairable: Sendable, Equatable {
        /// The missed day a repair would fill.
        public let missed: LocalDay
        /// The streak as it would stand after the repair (today's reads included).
        public let streak: Int
    }

    /// The first day walked.
    public let start: LocalDay
    /// What each day from `start` showed, by offset (nil: today unread, or nothing walked).
    private let marks: [Mark?]

    /// What `day` showed: nil before the start, after today, and for today while unread.
    public func mark(on day: LocalDay) -> Mark? {
        let offset = start.days(until: day)
        return marks.indices.contains(offset) ? marks[offset] : nil
    }
    /// The current streak: read days of the live run (rest, paused, frozen and repaired days
    /// keep it without adding to it).
    public let current: Int
    public let best: Int
    /// The first day of the live run.
    public let runStart: LocalDay?
    /// The live run has no freeze, pause or repair in it (rest days are part of the plan).
    public let perfect: Bool
    public let freezesLeft: Int
    public let earnedFreezeDays: [LocalDay]
    public let frozenDays: [LocalDay]
    /// Days read from the start.
    public let readCount: Int
    /// The first day the run reached `goal` (by `goalBy`, when given).
    public let goalReachedOn: LocalDay?
    /// Today can still repair yesterday's (or the day before's) break.
    public let repairable: Repairable?
    /// The last missed day that ended a run, and that run's length.
    public let lastBreak: (missed: LocalDay, streak: Int)?

    public static func == (lhs: StreakWalk, rhs: StreakWalk) -> Bool {
        lhs.start == rhs.start && lhs.marks == rhs.marks && lhs.current == rhs.current && lhs.best == rhs.best
            && lhs.runStart == rhs.runStart && lhs.perfect == rhs.perfect && lhs.freezesLeft == rhs.freezesLeft
            && lhs.earnedFreezeDays == rhs.earnedFreezeDays && lhs.frozenDays == rhs.frozenDays
            && lhs.readCount == rhs.readCount && lhs.goalReachedOn == rhs.goalReachedOn
            && lhs.repairable == rhs.repairable && lhs.lastBreak?.missed == rhs.lastBreak?.missed
            && lhs.lastBreak?.streak == rhs.lastBreak?.streak
    }

    /// - Parameters:
    ///   - readDays: days with at least one read.
    ///   - repairDays: days with at least `StreakAllowances.repairReads` reads (a subset).
    public init(
        from start: LocalDay, today: LocalDay, readDays: Set<LocalDay>, repairDays: Set<LocalDay> = [],
        allowances: StreakAllowances = .none, freezes: Freezes? = nil, goal: Int? = nil, goalBy: LocalDay? = nil
    ) {
        let days = Set(readDays.map(\.dayNumber))
        let strong = Set(repairDays.map(\.dayNumber))
        let forgiving = allowances != .none
        let todayNumber = today.dayNumber
        let joinNumber = freezes?.from?.dayNumber
        var freezesLeft = joinNumber == nil ? 0 : (freezes?.initial ?? 0)
        var marks = [Mark?](repeating: nil, count: max(start.days(until: today) + 1, 0))
        let first = start.dayNumber
        var run = 0
        var best = 0
        var runStart: Int?
        var flawed = false
        var readCount = 0
        var goalNumber: Int?
        var frozen: [Int] = []
        var earned: [Int] = []
        var lastRepair: Int?
        // The last break: the missed day and the run it ended.
        var lastMiss: (day: Int, run: Int)?

        func excused(_ number: Int) -> Bool {
            forgiving && allowances.excuses(LocalDay(dayNumber: number))
        }
        func mayRepair(_ missed: Int) -> Bool {
            lastRepair.map { missed - $0 >= StreakAllowances.repairEveryDays } ?? true
        }

        var day = start.dayNumber
        while day <= todayNumber {
            let offset = day - first
            if days.contains(day) {
                readCount += 1
                if run == 0 {
                    runStart = day
                    flawed = false
                }
                run += 1
                best = max(best, run)
                marks[offset] = .read
                if let freezes, freezes.everyDays > 0, run % freezes.everyDays == 0, let joinNumber, joinNumber <= day,
                    freezesLeft < freezes.maxHeld
                {
                    freezesLeft += 1
                    earned.append(day)
                }
                if goalNumber == nil, let goal, run >= goal, goalBy.map({ day <= $0.dayNumber }) ?? true {
                    goalNumber = day
                }
            } else if day < todayNumber {
                let local = LocalDay(dayNumber: day)
                if forgiving, allowances.isPaused(local) {
                    marks[offset] = .paused
                    if run > 0 { flawed = true }
                } else if forgiving, allowances.isRest(local) {
                    marks[offset] = .rest
                } else if run > 0, let joinNumber, joinNumber <= day, freezesLeft > 0 {
                    freezesLeft -= 1
                    frozen.append(day)
                    marks[offset] = .frozen
                    flawed = true
                } else if run > 0, mayRepair(day),
                    (day + 1 <= todayNumber && strong.contains(day + 1))
                        || (day + 2 <= todayNumber && (days.contains(day + 1) || excused(day + 1))
                            && strong.contains(day + 2))
                {
                    marks[offset] = .repaired
                    lastRepair = day
                    flawed = true
                } else {
                    marks[offset] = .missed
                    if run > 0 { lastMiss = (day, run) }
                    run = 0
                    runStart = nil
                    flawed = false
                }
            }
            day += 1
        }

        // A break yesterday (or the day before, with yesterday read or excused) that three reads
        // today would still repair.
        var repairable: Repairable?
        if let miss = lastMiss, !strong.contains(todayNumber), mayRepair(miss.day),
            miss.day == todayNumber - 1
                || (miss.day == todayNumber - 2 && (days.contains(todayNumber - 1) || excused(todayNumber - 1)))
        {
            repairable = Repairable(
                missed: LocalDay(dayNumber: miss.day), streak: miss.run + run + (days.contains(todayNumber) ? 0 : 1))
        }

        self.start = start
        self.marks = marks
        current = run
        self.best = best
        self.runStart = runStart.map(LocalDay.init(dayNumber:))
        perfect = run > 0 && !flawed
        self.freezesLeft = freezesLeft
        earnedFreezeDays = earned.map(LocalDay.init(dayNumber:))
        frozenDays = frozen.map(LocalDay.init(dayNumber:))
        self.readCount = readCount
        goalReachedOn = goalNumber.map(LocalDay.init(dayNumber:))
        self.repairable = repairable
        lastBreak = lastMiss.map { (LocalDay(dayNumber: $0.day), $0.run) }
    }
}
