/// What a reader's history gives on a day, for one campaign.
///
/// Rules (spec "Streak"): reads from the start day count, also before joining. The current
/// streak on day T is the run of consecutive read days ending on T if T is read, else on T-1;
/// an unread today never breaks it. A missed day D after a live run spends a freeze (if the
/// member is enrolled on D and holds one): the run survives, the frozen day adds nothing.
/// Freezes come from the campaign (`freezes`, from the join day) and are earned by reading:
/// one each time the run reaches a multiple of `freezeEveryDays` on a day the member is
/// enrolled, unless they already hold `maxFreezesHeld`.
/// Completion is the first day the run reaches the goal (on or before the end day, or later
/// when the campaign lets an active streak continue).
public struct StreakSummary: Sendable, Equatable {
    /// The current streak on `today`.
    public let current: Int
    /// The longest run within the campaign up to today.
    public let best: Int
    public let readToday: Bool
    public let readYesterday: Bool
    /// Yesterday was missed and a freeze kept the streak.
    public let yesterdayFrozen: Bool
    public let freezesLeft: Int
    /// Freezes earned by reading so far, and the days they were earned on.
    public let earnedFreezeDays: [LocalDay]
    public let frozenDays: [LocalDay]
    /// Days read since the start day, up to today.
    public let readDays: Int
    /// The first day the streak reached the goal, per this history.
    public let completedOn: LocalDay?
    /// The current streak had already begun before the join day.
    public let streakStartedBeforeJoining: Bool

    public init(campaign: Campaign, readDays: Set<LocalDay>, today: LocalDay, joinDay: LocalDay?) {
        // Day numbers: integer set lookups in the loop below.
        let days = Set(readDays.map(\.dayNumber))
        var run = 0
        var runStart: LocalDay?
        var best = 0
        var freezesLeft = joinDay == nil ? 0 : campaign.freezes
        var frozen: [LocalDay] = []
        var completedOn: LocalDay?
        var readCount = 0
        let todayNumber = today.dayNumber
        let endNumber = campaign.endDay.dayNumber
        let joinNumber = joinDay?.dayNumber
        var runStartNumber: Int?
        var completedNumber: Int?
        var frozenNumbers: [Int] = []
        var earnedNumbers: [Int] = []
        var day = campaign.startDay.dayNumber
        while day <= todayNumber {
            if days.contains(day) {
                readCount += 1
                if run == 0 { runStartNumber = day }
                run += 1
                best = max(best, run)
                if campaign.freezeEveryDays > 0, run % campaign.freezeEveryDays == 0, let joinNumber,
                    joinNumber <= day, freezesLeft < campaign.maxFreezesHeld
                {
                    freezesLeft += 1
                    earnedNumbers.append(day)
                }
                if completedNumber == nil, run >= campaign.goalDays,
                    day <= endNumber || campaign.continueActiveStreakAfterEnd
                {
                    completedNumber = day
                }
            } else if day < todayNumber {
                if run > 0, let joinNumber, joinNumber <= day, freezesLeft > 0 {
                    freezesLeft -= 1
                    frozenNumbers.append(day)
                } else {
                    run = 0
                    runStartNumber = nil
                }
            }
            day += 1
        }
        runStart = runStartNumber.map(LocalDay.init(dayNumber:))
        completedOn = completedNumber.map(LocalDay.init(dayNumber:))
        frozen = frozenNumbers.map(LocalDay.init(dayNumber:))
        current = run
        self.best = best
        let start = campaign.startDay.dayNumber
        readToday = todayNumber >= start && days.contains(todayNumber)
        readYesterday = todayNumber - 1 >= start && days.contains(todayNumber - 1)
        yesterdayFrozen = frozenNumbers.last == todayNumber - 1
        self.freezesLeft = freezesLeft
        earnedFreezeDays = earnedNumbers.map(LocalDay.init(dayNumber:))
        frozenDays = frozen
        self.readDays = readCount
        self.completedOn = completedOn
        if let joinDay, let runStart, run > 0 {
            streakStartedBeforeJoining = runStart < joinDay
        } else {
            streakStartedBeforeJoining = false
        }
    }
}

extension Campaign {
    /// The day a joined member completed this campaign, per their read days up to `today`: the
    /// first day their streak reached the goal (reads before joining count; freezes from the
    /// join day). Nil while it is not reached. The store records it in the same transaction as
    /// the reads that reach it.
    public func completion(readDays: Set<LocalDay>, joinDay: LocalDay, today: LocalDay) -> LocalDay? {
        StreakSummary(campaign: self, readDays: readDays, today: today, joinDay: joinDay).completedOn
    }
}
