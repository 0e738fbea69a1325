/// What a reader's history gives on a day, for one campaign.
///
/// Rules (spec "Streak"): reads from the start day count, also before joining. The current
/// streak on day T is the run of consecutive read days ending on T if T is read, else on T-1;
/// an unread today never breaks it. A missed day D after a live run spends a freeze (if the
/// member is enrolled on D and holds one): the run survives, the frozen day adds nothing.
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
    public let frozenDays: [LocalDay]
    /// Days read since the start day, up to today.
    public let readDays: Int
    /// The first day the streak reached the goal, per this history.
    public let completedOn: LocalDay?
    /// The current streak had already begun before the join day.
    public let streakStartedBeforeJoining: Bool

    public init(campaign: Campaign, readDays days: Set<LocalDay>, today: LocalDay, joinDay: LocalDay?) {
        var run = 0
        var runStart: LocalDay?
        var best = 0
        var freezesLeft = joinDay == nil ? 0 : campaign.freezes
        var frozen: [LocalDay] = []
        var completedOn: LocalDay?
        var readCount = 0
        let last = today
        var day = campaign.startDay
        while day <= last {
            if days.contains(day) {
                readCount += 1
                if run == 0 { runStart = day }
                run += 1
                best = max(best, run)
                if completedOn == nil, run >= campaign.goalDays, day <= campaign.endDay || campaign.continueActiveStreakAfterEnd {
                    completedOn = day
                }
            } else if day < today {
                if run > 0, let joinDay, joinDay <= day, freezesLeft > 0 {
                    freezesLeft -= 1
                    frozen.append(day)
                } else {
                    run = 0
                    runStart = nil
                }
            }
            day = day.adding(days: 1)
        }
        current = run
        self.best = best
        readToday = today >= campaign.startDay && days.contains(today)
        readYesterday = days.contains(today.adding(days: -1)) && today.adding(days: -1) >= campaign.startDay
        yesterdayFrozen = frozen.last == today.adding(days: -1)
        self.freezesLeft = freezesLeft
        frozenDays = frozen
        readDays = readCount
        self.completedOn = completedOn
        if let joinDay, let runStart, run > 0 { streakStartedBeforeJoining = runStart < joinDay } else { streakStartedBeforeJoining = false }
    }
}
