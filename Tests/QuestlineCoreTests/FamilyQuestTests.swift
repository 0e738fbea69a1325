import Foundation
import QuestlineCore
import QuestlineL10n
import QuestlineTestSupport
import Testing

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
private let berlin = TimeZoneID("Europe/Berlin")!
private let newYork = TimeZoneID("America/New_York")!
private let child = MemberID(UUID())
private let catalog = [
    QuestApp(token: "khan", name: "Khan Kids", icon: "📘", role: .learning, pointsPerMinute: 2),
    QuestApp(token: "duo", name: "Duolingo", icon: "🦉", role: .learning, pointsPerMinute: 1),
    QuestApp(token: "math", name: "Math", icon: "➗", role: .learning, pointsPerMinute: 3),
    QuestApp(token: "game", name: "Game", icon: "🎮", role: .reward, pointsPerMinute: 0),
]

private func use(_ token: String, _ start: String, minutes: Double, _ zone: TimeZoneID = berlin) -> UsageRecord {
    UsageRecord(token: token, start: at(start), seconds: Int(minutes * 60), zone: zone)
}

private func spec(
    _ goal: GoalType, target: Int, period: QuestPeriod? = nil, start: String = "2026-03-01", end: String? = nil,
    minimum: Int? = nil, within: Int? = nil, apps: [String] = [], weekdays: Set<Int> = Set(1...7),
    window: DailyWindow? = nil, bonus: Int = 10
) -> QuestSpec {
    QuestSpec(
        title: "Quest", goal: goal, target: target, period: period, dailyMinimumMinutes: minimum, withinMinutes: within,
        steps: goal == .milestones ? [10, 10] : nil, learningApps: apps,
        rewardApps: [RewardUnlock(token: "game", minutes: 30)], bonusPercent: bonus,
        weekdays: weekdays,
        window: window, startDay: day(start), endDay: end.map(day), assignee: child)
}

private func evaluate(_ records: [UsageRecord]) -> QuestEvaluator {
    QuestEvaluator(catalog: catalog, timeline: UsageTimeline(records))
}

@Suite struct QuestProgressTests {
    @Test func dailyMinutesCountLearningAppsAndResetAtLocalMidnight() {
        let records = [
            use("khan", "2026-03-10T22:30:00Z", minutes: 40),  // 23:30-00:10 Berlin: 30 min on the 10th, 10 on the 11th
            use("game", "2026-03-10T20:00:00Z", minutes: 60),  // a reward app: never counts
        ]
        let quest = spec(.dailyMinutes, target: 30)
        let eval = evaluate(records)
        let tenth = eval.progress(quest, in: quest.period(containing: day("2026-03-10"))!)
        let eleventh = eval.progress(quest, in: quest.period(containing: day("2026-03-11"))!)
        #expect(tenth.value == 30 && tenth.completed)
        #expect(eleventh.value == 10 && !eleventh.completed)
        #expect(tenth.points == 60)  // 30 min x 2 points
    }

    @Test func weeksStartOnMondayInTheChildsZoneAlsoInADSTWeek() {
        // Berlin moves to summer time on Sunday 29 March 2026. The week is Mon 23 - Sun 29 March.
        let quest = spec(.weeklyMinutes, target: 100)
        #expect(
            quest.period(containing: day("2026-03-29"))!
                == PeriodWindow(first: day("2026-03-23"), last: day("2026-03-29")))
        let records = [
            use("duo", "2026-03-22T22:30:00Z", minutes: 20),  // Sunday 22 23:30 Berlin (CET): last week
            use("duo", "2026-03-22T23:05:00Z", minutes: 20),  // Monday 23 00:05: this week
            // Sunday 29 23:50 (CEST): this week, 10 min; then Monday 30
            use("duo", "2026-03-29T21:50:00Z", minutes: 20),
        ]
        let eval = evaluate(records)
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-25"))!).value == 30)
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-22"))!).value == 20)
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-30"))!).value == 10)
    }

    @Test func theDevicesZoneDecidesTheDayOfEachReport() {
        // 03:00 UTC on 12 March is the 11th in New York and the 12th in Berlin.
        let quest = spec(.dailyMinutes, target: 10)
        let eval = evaluate([use("khan", "2026-03-12T03:00:00Z", minutes: 15, newYork)])
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-11"))!).value == 15)
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-12"))!).value == 0)
    }

    @Test func specificAppsCountOnlyTheChosenApps() {
        let quest = spec(.specificApps, target: 60, period: .week, apps: ["khan"])
        let eval = evaluate([
            use("khan", "2026-03-10T10:00:00Z", minutes: 25), use("duo", "2026-03-10T11:00:00Z", minutes: 50),
            use("khan", "2026-03-12T10:00:00Z", minutes: 35),
        ])
        let progress = eval.progress(quest, in: quest.period(containing: day("2026-03-12"))!)
        #expect(progress.value == 60 && progress.completed && progress.unit == .minutes)
    }

    @Test func pointsTargetCountsPointsAtEachAppsRate() {
        let quest = spec(.pointsTarget, target: 100, period: .week)
        let eval = evaluate([
            use("khan", "2026-03-10T10:00:00Z", minutes: 20.9), use("math", "2026-03-11T10:00:00Z", minutes: 20),
        ])
        let progress = eval.progress(quest, in: quest.period(containing: day("2026-03-11"))!)
        #expect(progress.value == 20 * 2 + 20 * 3)  // whole minutes per app and day
        #expect(progress.completed)
        #expect(quest.bonus(forPoints: progress.points) == 10)
    }

    @Test func bonusIsAPercentageRoundedDownAndAtLeastOne() {
        #expect(spec(.dailyMinutes, target: 1, bonus: 15).bonus(forPoints: 99) == 14)
        #expect(spec(.dailyMinutes, target: 1, bonus: 5).bonus(forPoints: 10) == 1)
        #expect(spec(.dailyMinutes, target: 1, bonus: 25).bonus(forPoints: 0) == 1)
        #expect(spec(.dailyMinutes, target: 1, bonus: 25).bonus(forPoints: 400) == 100)
    }

    @Test func appDiversityCountsAppsWithAtLeastAMinute() {
        let quest = spec(.appDiversity, target: 3, period: .week)
        let eval = evaluate([
            use("khan", "2026-03-10T10:00:00Z", minutes: 5), use("duo", "2026-03-11T10:00:00Z", minutes: 0.5),
            use("math", "2026-03-12T10:00:00Z", minutes: 1),
        ])
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-10"))!).value == 2)
        let more = evaluate([
            use("khan", "2026-03-10T10:00:00Z", minutes: 5), use("duo", "2026-03-11T10:00:00Z", minutes: 2),
            use("math", "2026-03-12T10:00:00Z", minutes: 1),
        ])
        #expect(more.progress(quest, in: quest.period(containing: day("2026-03-10"))!).completed)
    }

    @Test func dailyConsistencyCountsDaysMeetingTheMinimum() {
        let quest = spec(.dailyConsistency, target: 3, minimum: 15)
        let eval = evaluate([
            use("khan", "2026-03-09T10:00:00Z", minutes: 15), use("khan", "2026-03-10T10:00:00Z", minutes: 14),
            use("duo", "2026-03-11T10:00:00Z", minutes: 10), use("khan", "2026-03-11T12:00:00Z", minutes: 5),
            use("duo", "2026-03-15T10:00:00Z", minutes: 30),
        ])
        let progress = eval.progress(quest, in: quest.period(containing: day("2026-03-12"))!)
        #expect(progress.value == 3 && progress.unit == .days && progress.completed)
    }

    @Test func timeWindowCountsOnlyMinutesInsideTheLocalWindow() {
        // 16:00-18:00 Berlin. On 29 March (DST day) 16:00 CEST is 14:00 UTC.
        let quest = spec(.timeWindow, target: 60, window: DailyWindow(startMinute: 16 * 60, endMinute: 18 * 60))
        let eval = evaluate([use("khan", "2026-03-29T13:30:00Z", minutes: 60)])  // 15:30-16:30 CEST
        #expect(eval.progress(quest, in: quest.period(containing: day("2026-03-29"))!).value == 30)
        let winter = evaluate([use("khan", "2026-03-10T14:30:00Z", minutes: 60)])  // 15:30-16:30 CET
        #expect(winter.progress(quest, in: quest.period(containing: day("2026-03-10"))!).value == 30)
    }

    @Test(arguments: GoalType.allCases)
    func scheduleFiltersWeekdaysAndWindowForEveryGoal(_ goal: GoalType) throws {
        // Weekdays only (Monday to Friday), 09:00-12:00 Berlin: use on Saturday 14 March, or on
        // Friday afternoon, counts for nothing; use on Friday morning counts, whatever the goal.
        let window = try #require(DailyWindow(startMinute: 9 * 60, endMinute: 12 * 60))
        let quest = spec(
            goal, target: 1_000, minimum: 10, within: 60, apps: ["khan"], weekdays: [1, 2, 3, 4, 5], window: window)
        // A chain's progress counts steps met in a row; its steps show the minutes counted.
        func counted(_ progress: QuestProgress) -> Int {
            progress.steps?.reduce(0) { $0 + $1.minutes } ?? progress.value
        }
        let saturday = evaluate([use("khan", "2026-03-14T09:00:00Z", minutes: 40)])
        #expect(counted(saturday.progress(quest, in: try #require(quest.period(containing: day("2026-03-14"))))) == 0)
        let afternoon = evaluate([use("khan", "2026-03-13T13:00:00Z", minutes: 40)])
        #expect(counted(afternoon.progress(quest, in: try #require(quest.period(containing: day("2026-03-13"))))) == 0)
        let morning = evaluate([use("khan", "2026-03-13T09:00:00Z", minutes: 40)])
        #expect(counted(morning.progress(quest, in: try #require(quest.period(containing: day("2026-03-13"))))) > 0)
    }

    @Test func efficiencyCountsTheBestSpanOfMinutes() {
        // Earn 90 points within 30 minutes. 10 min of Duolingo (1/min) at 09:00, then 20 of Math
        // (3/min) at 09:15: the best 30 minutes (09:05-09:35) hold 5 of Duolingo and 20 of Math = 65.
        let quest = spec(.efficiency, target: 90, within: 30)
        let eval = evaluate([
            use("duo", "2026-03-10T09:00:00Z", minutes: 10), use("math", "2026-03-10T09:15:00Z", minutes: 20),
        ])
        let progress = eval.progress(quest, in: quest.period(containing: day("2026-03-10"))!)
        #expect(progress.value == 65 && !progress.completed)
        // An hour of Math later the same day holds a better span: 30 minutes at 3 = 90.
        let later = evaluate([
            use("duo", "2026-03-10T09:00:00Z", minutes: 10), use("math", "2026-03-10T09:15:00Z", minutes: 20),
            use("math", "2026-03-10T12:00:00Z", minutes: 60),
        ])
        #expect(later.progress(quest, in: quest.period(containing: day("2026-03-10"))!).value == 90)
        let fast = evaluate([
            use("math", "2026-03-10T09:00:00Z", minutes: 30), use("duo", "2026-03-10T10:00:00Z", minutes: 40),
        ])
        #expect(fast.progress(quest, in: quest.period(containing: day("2026-03-10"))!).value == 90)
    }

    @Test func streaksCompleteOncePerRunAndStartAgain() {
        let quest = spec(.streak, target: 3, minimum: 10)
        var records: [UsageRecord] = []
        for d in [1, 2, 3, 4, 5, 6, 8] {
            records.append(use("khan", String(format: "2026-03-%02dT10:00:00Z", d), minutes: 12))
        }
        let eval = evaluate(records)
        let history = eval.streakRuns(quest, through: day("2026-03-09"))
        let (completed, current) = (history.completed, history.current)
        #expect(completed.map(\.period.first) == [day("2026-03-03"), day("2026-03-06")])
        #expect(current.value == 1)  // the 8th; the 9th not yet met does not break it
        #expect(eval.streakRuns(quest, through: day("2026-03-10")).current.value == 0)  // the 9th was missed
        // An inactive weekday neither counts nor breaks: Saturday 7 March off.
        let weekdaysOnly = spec(.streak, target: 7, minimum: 10, weekdays: [1, 2, 3, 4, 5, 7])
        #expect(eval.streakRuns(weekdaysOnly, through: day("2026-03-08")).completed.count == 1)
    }

    @Test func periodsAreClippedToTheChallengeDates() {
        let quest = spec(.pointsTarget, target: 50, period: .whole, start: "2026-03-10", end: "2026-03-12")
        #expect(quest.period(containing: day("2026-03-09")) == nil)
        #expect(quest.period(containing: day("2026-03-13")) == nil)
        #expect(
            quest.period(containing: day("2026-03-11"))!
                == PeriodWindow(first: day("2026-03-10"), last: day("2026-03-12")))
        let weekly = spec(.weeklyMinutes, target: 50, start: "2026-03-11")
        #expect(weekly.period(containing: day("2026-03-12"))!.first == day("2026-03-11"))
    }

    /// Property: duplicates, overlaps and any arrival order give the figures of the clean set.
    @Test func lateDuplicateOverlappingAndReorderedReportsGiveTheCleanResult() {
        var generator = SeededGenerator(seed: 18)
        let goals: [QuestSpec] = [
            spec(.dailyMinutes, target: 30), spec(.weeklyMinutes, target: 200),
            spec(.pointsTarget, target: 100, period: .week),
            spec(.appDiversity, target: 2, period: .day), spec(.efficiency, target: 20, within: 15),
            spec(.timeWindow, target: 20, window: DailyWindow(startMinute: 600, endMinute: 720)),
        ]
        for _ in 0..<50 {
            // Clean: non-overlapping sessions per app.
            var clean: [UsageRecord] = []
            for token in ["khan", "duo", "math"] {
                var start = at("2026-03-09T06:00:00Z")
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    start += Double(Int.random(in: 10...600, using: &generator) * 60)
                    let minutes = Int.random(in: 1...90, using: &generator)
                    clean.append(UsageRecord(token: token, start: start, seconds: minutes * 60, zone: berlin))
                    start += Double(minutes * 60)
                }
            }
            // Messy: every report twice, plus overlapping sub-intervals, shuffled.
            var messy = clean + clean
            for record in clean where record.seconds >= 120 {
                messy.append(
                    UsageRecord(
                        token: record.token, start: record.start + 30, seconds: record.seconds / 2, zone: berlin))
            }
            messy.shuffle(using: &generator)
            let a = evaluate(clean)
            let b = evaluate(messy)
            #expect(
                a.timeline.earnings(catalog: Dictionary(uniqueKeysWithValues: catalog.map { ($0.token, $0) }))
                    == b.timeline.earnings(catalog: Dictionary(uniqueKeysWithValues: catalog.map { ($0.token, $0) })))
            for quest in goals {
                for offset in 0..<7 {
                    let window = quest.period(containing: day("2026-03-09").adding(days: offset))!
                    #expect(a.progress(quest, in: window) == b.progress(quest, in: window))
                }
            }
        }
    }
}

@Suite struct QuestSpecTests {
    @Test func everyBadFieldIsNamed() {
        var bad = spec(
            .dailyConsistency, target: 6, start: "2026-03-10", end: "2026-03-09", weekdays: [1, 2], bonus: 12)
        bad.title = "  "
        bad.learningApps = ["game", "nope"]
        bad.rewardApps = [RewardUnlock(token: "khan", minutes: 30)]
        do {
            try bad.validate(catalog: catalog, today: day("2026-03-01"))
            Issue.record("expected invalid")
        } catch {
            guard case .invalid(let issues) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(
                Set(issues.map(\.field)) == [
                    "title", "target", "bonusPercent", "dailyMinimumMinutes", "learningApps", "rewardApps", "endDate",
                ])
        }
    }

    @Test func eachGoalTypeHasItsOwnRules() throws {
        try spec(.dailyMinutes, target: 30).validate(catalog: catalog, today: nil)
        let tooHigh = Message("quests.error.targetRange", ["min": .number(1), "max": .message(.count(1440, .minutes))])
        #expect(throws: DomainError.invalid(field: "target", tooHigh)) {
            try spec(.dailyMinutes, target: 2000).validate(catalog: catalog, today: nil)
        }
        #expect(Localizer.english(tooHigh) == "Use a target from 1 to 1,440 minutes.")
        #expect(throws: DomainError.self) { try spec(.specificApps, target: 30).validate(catalog: catalog, today: nil) }
        #expect(throws: DomainError.self) { try spec(.timeWindow, target: 30).validate(catalog: catalog, today: nil) }
        #expect(throws: DomainError.self) { try spec(.efficiency, target: 30).validate(catalog: catalog, today: nil) }
        #expect(throws: DomainError.self) { try spec(.appDiversity, target: 4).validate(catalog: catalog, today: nil) }
        #expect(throws: DomainError.self) {
            try spec(.pointsTarget, target: 30, period: .whole).validate(catalog: catalog, today: nil)
        }
        #expect(throws: DomainError.self) {
            try spec(.weeklyMinutes, target: 30, weekdays: []).validate(catalog: catalog, today: nil)
        }
        #expect(throws: DomainError.self) {
            try spec(.dailyMinutes, target: 30, period: .week).validate(catalog: catalog, today: nil)
        }
        try spec(.appDiversity, target: 3, period: .week).validate(catalog: catalog, today: nil)
        try spec(.efficiency, target: 30, within: 10).validate(catalog: catalog, today: nil)
        try spec(.streak, target: 7, minimum: 10).validate(catalog: catalog, today: nil)
    }

    @Test func catalogEntriesAreValidated() throws {
        let app = try QuestApp.validated(
            token: "tok-1", name: " Khan ", icon: nil, role: "learning", pointsPerMinute: nil)
        #expect(app.name == "Khan" && app.pointsPerMinute == 1 && app.icon == "📘")
        #expect(throws: DomainError.self) {
            try QuestApp.validated(token: "", name: "", icon: "abc", role: "toy", pointsPerMinute: 0)
        }
    }
}

@Suite struct QuestRewardTests {
    @Test func grantsAreUsedUpOldestFirstAndOnlyWhileValid() {
        let zone = berlin.timeZone
        let now = at("2026-03-10T12:00:00Z")
        let expiry = UnlockGrant.expiry(now: now, zone: zone)
        #expect(expiry == at("2026-03-10T23:00:00Z"))
        let grants = [
            UnlockGrant(id: "a", token: "game", minutes: 30, startsAt: now, expiresAt: expiry, questID: nil),
            UnlockGrant(id: "b", token: "game", minutes: 20, startsAt: now + 600, expiresAt: expiry, questID: nil),
        ]
        let usage = [
            // before the grants: not charged to them (use while blocked)
            UsageRecord(token: "game", start: now - 3600, seconds: 1800, zone: berlin),
            UsageRecord(token: "game", start: now + 60, seconds: 40 * 60, zone: berlin),
        ]
        let account = RewardUse.account(grants: grants, reports: usage, rewardApps: ["game"], rules: .open, zone: zone)
        let balances = account.balances
        #expect(balances.map(\.secondsLeft) == [0, 10 * 60])
        #expect(account.blocked == [BlockedUse(token: "game", at: now - 1800, seconds: 1800, reason: .noGrant)])
        #expect(balances[1].isActive(at: now + 3600) && !balances[1].isActive(at: expiry))
    }

    @Test func redemptionStaysWithinTheHouseholdLimits() throws {
        let rules = try RedemptionRules.validated(pointsPerMinute: 5, minMinutes: 5, maxMinutes: 30)
        #expect(try rules.cost(minutes: 10) == 50)
        #expect(throws: DomainError.self) { try rules.cost(minutes: 4) }
        #expect(throws: DomainError.self) { try rules.cost(minutes: 31) }
        #expect(throws: DomainError.self) {
            try RedemptionRules.validated(pointsPerMinute: 0, minMinutes: 10, maxMinutes: 5)
        }
    }

    @Test func badgesFollowTheTotals() {
        let stats = QuestStats(
            questsCompleted: 1, bestStreak: 3, currentStreak: 1, learningMinutes: 75, pointsEarned: 120)
        #expect(stats.deserved.map(\.id) == ["first-quest", "on-a-roll", "hour-of-learning"])
        #expect(
            QuestStats(questsCompleted: 0, bestStreak: 2, currentStreak: 0, learningMinutes: 59, pointsEarned: 0)
                .deserved.isEmpty)
    }

    @Test func learningDaysFormRunsAndTheCurrentOneReachesTodayOrYesterday() {
        let days = [day("2026-03-05"), day("2026-03-01"), day("2026-03-02"), day("2026-03-03"), day("2026-03-02")]
        let runs = DayRun.runs(of: days)
        #expect(
            runs == [
                DayRun(first: day("2026-03-01"), last: day("2026-03-03")),
                DayRun(first: day("2026-03-05"), last: day("2026-03-05")),
            ])
        #expect(runs.map(\.length).max() == 3)
        #expect(DayRun.current(in: runs, today: day("2026-03-05")) == 1)
        #expect(DayRun.current(in: runs, today: day("2026-03-06")) == 1)  // yesterday still counts
        #expect(DayRun.current(in: runs, today: day("2026-03-07")) == 0)
        #expect(DayRun.current(in: runs, today: day("2026-03-02")) == 2)  // a later run does not count before it starts
        // A day that fills the gap joins both neighbours.
        #expect(
            DayRun.adding(day("2026-03-04"), left: runs[0], right: runs[1])
                == DayRun(first: day("2026-03-01"), last: day("2026-03-05")))
    }
}
