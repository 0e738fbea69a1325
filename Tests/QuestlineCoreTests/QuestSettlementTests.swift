import Foundation
import QuestlineCore
import Testing

private let utc = TimeZoneID("UTC")!
private let child = MemberID(UUID())

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }

private func quest(_ goal: GoalType = .dailyMinutes, target: Int = 30, status: QuestStatus = .active) -> Quest {
    Quest(
        id: QuestID(UUID()), householdID: HouseholdID(UUID()),
        spec: QuestSpec(
            title: "Read", goal: goal, target: target, rewardApps: [RewardUnlock(token: "game", minutes: 30)],
            bonusPercent: 10, startDay: day("2026-03-01"), assignee: child),
        status: status, createdBy: child, createdAt: at("2026-03-01T00:00:00Z"))
}

/// What a store keeps, in memory: enough to plan from and to apply plans to, so that a table
/// test can settle several times in a row.
struct Settled {
    var quests: [Quest]
    var catalog: [QuestApp] = QuestSettlementTests.catalog
    var zone = TimeZoneID("UTC")!
    var usage: [UsageRecord] = []
    var earnings: [String: DayEarning] = [:]
    var runs: Set<DayRun> = []
    var paid: [CompletedPeriod: Int] = [:]
    var credits: [SettlementPlan.Credit] = []
    var grants: [SettlementPlan.Grant] = []
    var badges: Set<String> = []
    var summary = LearningSummary(learningMinutes: 0, completions: 0, bestStreak: 0, latestRun: nil)

    mutating func settle(_ records: [UsageRecord], now: Date) -> SettlementPlan {
        usage += records
        let scope = SettlementScope(
            quests: quests, touching: Set(records.flatMap(\.localDays)), now: now, zone: zone.timeZone)
        var plan = QuestSettlement.plan(
            SettlementInput(
                now: now, zone: zone.timeZone, scope: scope, catalog: catalog, quests: quests, usage: usage,
                earnings: scope.touched.flatMap { day in earnings.values.filter { $0.day == day } }, paid: paid))
        if plan.changesTotals {
            let nearby = plan.runDays.map { days in
                runs.filter { $0.last >= days.lowerBound && $0.first <= days.upperBound }
            }
            plan = QuestSettlement.withTotals(
                plan,
                SettlementTotals(
                    summary: summary, runs: Array(nearby ?? []), pointsEarned: credits.reduce(0) { $0 + $1.points },
                    awarded: badges), today: scope.today)
        }
        for earning in plan.earnings { earnings["\(earning.token) \(earning.day.iso)"] = earning }
        runs.subtract(plan.removedRuns)
        runs.formUnion(plan.addedRuns)
        let best = plan.changesTotals ? plan.bestStreak : summary.bestStreak
        for rekey in plan.rekeyed {
            paid[CompletedPeriod(quest: rekey.quest, periodKey: rekey.to)] = paid.removeValue(
                forKey: CompletedPeriod(quest: rekey.quest, periodKey: rekey.from))
        }
        for completion in plan.completions + plan.raisedBonuses {
            paid[CompletedPeriod(quest: completion.quest, periodKey: completion.periodKey)] = completion.bonus
        }
        credits += plan.credits
        grants += plan.grants
        badges.formUnion(plan.badges)
        summary = LearningSummary(
            learningMinutes: summary.learningMinutes + plan.learningMinutes,
            completions: summary.completions + plan.completions.count, bestStreak: best,
            latestRun: runs.filter { $0.first <= scope.today }.max { $0.first < $1.first })
        return plan
    }
}

@Suite struct QuestSettlementTests {
    static let catalog = [
        QuestApp(token: "khan", name: "Khan Kids", icon: "📘", role: .learning, pointsPerMinute: 2),
        QuestApp(token: "game", name: "Game", icon: "🎮", role: .reward, pointsPerMinute: 0),
    ]

    @Test func aCompletionPaysItsBonusUnlocksItsRewardAppsAndAwardsTheFirstBadge() {
        let daily = quest()
        var state = Settled(quests: [daily])
        let plan = state.settle(
            [UsageRecord(token: "khan", start: at("2026-03-10T09:00:00Z"), seconds: 40 * 60, zone: utc)],
            now: at("2026-03-10T12:00:00Z"))
        #expect(plan.earnings == [DayEarning(token: "khan", day: day("2026-03-10"), minutes: 40, points: 80)])
        #expect(plan.learningMinutes == 40)
        #expect(plan.credits.map(\.points) == [80, 8])
        #expect(plan.credits.map(\.kind) == [.earn, .bonus])
        #expect(plan.completions.map(\.periodKey) == ["2026-03-10"])
        #expect(plan.grants.map(\.token) == ["game"])
        #expect(plan.grants.map(\.expiresAt) == [at("2026-03-11T00:00:00Z")])
        #expect(plan.addedRuns == [DayRun(first: day("2026-03-10"), last: day("2026-03-10"))])
        #expect(plan.badges == ["first-quest"])
        #expect(plan.stats?.pointsEarned == 88 && plan.stats?.questsCompleted == 1)
    }

    @Test func lateUsageOfACompletedPeriodEarnsTheDifferenceAndTopsUpTheBonusOnce() {
        var state = Settled(quests: [quest()])
        let now = at("2026-03-10T20:00:00Z")
        _ = state.settle(
            [UsageRecord(token: "khan", start: at("2026-03-10T09:00:00Z"), seconds: 40 * 60, zone: utc)], now: now)
        let late = state.settle(
            [UsageRecord(token: "khan", start: at("2026-03-10T15:00:00Z"), seconds: 20 * 60, zone: utc)], now: now)
        #expect(late.earnings == [DayEarning(token: "khan", day: day("2026-03-10"), minutes: 60, points: 120)])
        #expect(late.credits.map(\.points) == [40, 4])  // earned 40 more; bonus 12 of 120, 8 paid
        #expect(late.completions.isEmpty && late.grants.isEmpty)
        #expect(late.raisedBonuses.map(\.bonus) == [12])
        #expect(state.settle([], now: now).writesNothing)
    }

    @Test func planningAgainFromTheStateAPlanLeftWritesNothing() {
        var state = Settled(quests: [quest(), quest(.weeklyMinutes, target: 60), quest(.streak, target: 2)])
        let records = (0..<5).map {
            UsageRecord(
                token: "khan", start: at("2026-03-09T08:00:00Z") + Double($0) * 86_400, seconds: 1_800, zone: utc)
        }
        let first = state.settle(records, now: at("2026-03-14T08:00:00Z"))
        #expect(first.completions.count == 5 + 1 + 2)  // five days, one week, two runs of two days
        #expect(state.settle([], now: at("2026-03-14T08:00:00Z")).writesNothing)
        // The same usage again (an overlap of what is there) adds nothing either.
        #expect(state.settle(Array(records.prefix(2)), now: at("2026-03-14T08:00:00Z")).writesNothing)
    }

    @Test func aLearningDayBetweenTwoRunsJoinsThem() {
        var state = Settled(quests: [])
        state.runs = [
            DayRun(first: day("2026-03-01"), last: day("2026-03-03")),
            DayRun(first: day("2026-03-05"), last: day("2026-03-06")),
        ]
        state.summary = LearningSummary(learningMinutes: 0, completions: 0, bestStreak: 3, latestRun: nil)
        let plan = state.settle(
            [UsageRecord(token: "khan", start: at("2026-03-04T10:00:00Z"), seconds: 300, zone: utc)],
            now: at("2026-03-06T12:00:00Z"))
        #expect(plan.removedRuns.count == 2)
        #expect(plan.addedRuns == [DayRun(first: day("2026-03-01"), last: day("2026-03-06"))])
        #expect(plan.bestStreak == 6 && plan.stats?.currentStreak == 6)
        #expect(plan.badges == ["on-a-roll"])
    }

    @Test func aPausedQuestDoesNotComplete() {
        var state = Settled(quests: [quest(status: .paused)])
        let plan = state.settle(
            [UsageRecord(token: "khan", start: at("2026-03-10T09:00:00Z"), seconds: 40 * 60, zone: utc)],
            now: at("2026-03-10T12:00:00Z"))
        #expect(plan.completions.isEmpty && plan.grants.isEmpty)
        #expect(plan.credits.map(\.kind) == [.earn])
    }
}
