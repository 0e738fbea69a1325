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

    /// The live run has no freeze, pause or repair in it (`StreakWalk.perfect`).
    public let perfect: Bool
    /// Today is one of the member's rest days.
    public let restToday: Bool
    /// The pause covering today, if any.
    public let pausedToday: StreakAllowances.Pause?
    /// Three reads today would repair a break of yesterday (or the day before).
    public let repairable: StreakWalk.Repairable?
    /// The walk it was computed from (each day's mark, for the calendar).
    public let walk: StreakWalk

    /// - Parameters:
    ///   - repairDays: the days with at least three reads (repairs; `StreakAllowances`).
    ///   - allowances: the member's rest days and pauses.
    public init(
        campaign: Campaign, readDays: Set<LocalDay>, today: LocalDay, joinDay: LocalDay?,
        repairDays: Set<LocalDay> = [], allowances: StreakAllowances = .none
    ) {
        // A campaign whose streak does not go on after its end counts no read after its last
        // day: its concluded state says what was read in the challenge.
        let counted = campaign.continueActiveStreakAfterEnd ? readDays : readDays.filter { $0 <= campaign.endDay }
        let countedRepairs =
            campaign.continueActiveStreakAfterEnd ? repairDays : repairDays.filter { $0 <= campaign.endDay }
        let walk = StreakWalk(
            from: campaign.startDay, today: today, readDays: counted, repairDays: countedRepairs,
            allowances: allowances,
            freezes: .init(
                initial: campaign.freezes, everyDays: campaign.freezeEveryDays, maxHeld: campaign.maxFreezesHeld,
                from: joinDay),
            goal: campaign.goalDays, goalBy: campaign.continueActiveStreakAfterEnd ? nil : campaign.endDay)
        self.walk = walk
        current = walk.current
        best = walk.best
        let todayNumber = today.dayNumber
        let start = campaign.startDay.dayNumber
        readToday = todayNumber >= start && counted.contains(today)
        readYesterday = todayNumber - 1 >= start && counted.contains(today.adding(days: -1))
        yesterdayFrozen = walk.frozenDays.last == today.adding(days: -1)
        freezesLeft = walk.freezesLeft
        earnedFreezeDays = walk.earnedFreezeDays
        frozenDays = walk.frozenDays
        self.readDays = walk.readCount
        completedOn = walk.goalReachedOn
        if let joinDay, let runStart = walk.runStart, walk.current > 0 {
            streakStartedBeforeJoining = runStart < joinDay
        } else {
            streakStartedBeforeJoining = false
        }
        perfect = walk.perfect
        restToday = allowances.isRest(today)
        pausedToday = allowances.pause(covering: today)
        repairable = walk.repairable
        // The longest streak still possible by the last day: today's run, and a read on every
        // day left (today's too, when it is not read yet). Nil when the campaign lets a streak
        // go on after its end (the goal is always in reach).
        if campaign.continueActiveStreakAfterEnd {
            reachableStreak = nil
        } else {
            let first = readToday ? today.adding(days: 1) : today
            let left = first <= campaign.endDay ? first.days(until: campaign.endDay) + 1 : 0
            reachableStreak = walk.current + left
        }
    }

    /// The longest streak still possible by the campaign's last day, when its goal must be
    /// reached by then (nil: the campaign lets an active streak go on after its end).
    public let reachableStreak: Int?

    /// Whether the goal can still be reached (or has been).
    public func goalInReach(_ campaign: Campaign) -> Bool {
        completedOn != nil || (reachableStreak.map { $0 >= campaign.goalDays } ?? true)
    }
}

extension StreakSummary {
    /// The summary of a reader as the widget knows them (their read days, repair days, rest days
    /// and pauses): the one way every caller builds it from a `ReaderStatus`.
    public init(campaign: Campaign, status: ReaderStatus, today: LocalDay) {
        self.init(
            campaign: campaign, readDays: status.readDays, today: today, joinDay: status.joinDay,
            repairDays: status.repairDays, allowances: status.allowances)
    }
}

extension Campaign {
    /// The day a joined member completed this campaign, per their read days up to `today`: the
    /// first day their streak reached the goal (reads before joining count; freezes from the
    /// join day). Nil while it is not reached. The store records it in the same transaction as
    /// the reads that reach it.
    public func completion(
        readDays: Set<LocalDay>, joinDay: LocalDay, today: LocalDay, repairDays: Set<LocalDay> = [],
        allowances: StreakAllowances = .none
    ) -> LocalDay? {
        StreakSummary(
            campaign: self, readDays: readDays, today: today, joinDay: joinDay, repairDays: repairDays,
            allowances: allowances
        ).completedOn
    }
}
