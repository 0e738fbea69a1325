import Foundation
import QuestlineCore
import QuestlineTestSupport
import Testing

private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private let ada = MemberID(UUID())
private let ben = MemberID(UUID())
private let cy = MemberID(UUID())
private let learning = QuestApp(token: "khan", name: "Khan", icon: "📘", role: .learning, pointsPerMinute: 2)
private let game = QuestApp(token: "game", name: "Game", icon: "🎮", role: .reward, pointsPerMinute: 0)

private func spec(
    _ goal: CoopGoal = .minutes, target: Int = 100, minimum: Int = 15, week: String = "2026-03-23",
    children: [MemberID] = [ada, ben], rewards: [RewardUnlock] = [RewardUnlock(token: "game", minutes: 20)]
) -> CoopQuestSpec {
    CoopQuestSpec(
        title: "Read together", goal: goal, target: target, dailyMinimumMinutes: minimum, weekStart: day(week),
        children: children, bonusPercent: 10, rewardApps: rewards)
}

private func quest(_ spec: CoopQuestSpec, status: CoopQuestStatus = .active) -> CoopQuest {
    CoopQuest(
        id: CoopQuestID(UUID()), householdID: HouseholdID(UUID()), spec: spec, status: status,
        createdAt: at("2026-03-23T08:00:00Z"), completedAt: nil)
}

private func learned(_ child: MemberID, _ iso: String, _ minutes: Int) -> LearningDay {
    LearningDay(child: child, day: day(iso), minutes: minutes, points: minutes * 2)
}

/// The field names of a refusal.
private func fields(_ body: () throws(DomainError) -> Void) -> Set<String> {
    do {
        try body()
        return []
    } catch {
        if case .invalid(let issues) = error { return Set(issues.map(\.field)) }
        return ["(not invalid)"]
    }
}

@Suite struct CoopQuestTests {
    let household: [MemberID: [QuestApp]] = [ada: [learning, game], ben: [learning, game], cy: [learning]]

    @Test func aGoodSpecIsTrimmedAndEveryBadFieldIsNamed() throws {
        var good = spec()
        good.title = "  Read together  "
        #expect(try good.validated(household: household, today: day("2026-03-25")).title == "Read together")
        // Next week is allowed; the week after, or last week, is not.
        #expect(throws: Never.self) {
            try spec(week: "2026-03-30").validated(household: household, today: day("2026-03-25"))
        }
        let bad = CoopQuestSpec(
            title: " ", goal: .days, target: 15, dailyMinimumMinutes: 0, weekStart: day("2026-03-24"),
            children: [ada, ada], bonusPercent: 7, rewardApps: [RewardUnlock(token: "game", minutes: 500)])
        #expect(
            fields { () throws(DomainError) in _ = try bad.validated(household: household, today: day("2026-03-25")) }
                == ["title", "target", "dailyMinimumMinutes", "weekStart", "children", "bonusPercent", "rewardApps"])
        // Cy has no Game: a reward app must be every chosen child's.
        #expect(
            fields { () throws(DomainError) in
                _ = try spec(children: [ada, cy]).validated(household: household, today: day("2026-03-25"))
            } == ["rewardApps"])
        // A stranger's child is not the household's.
        #expect(
            fields { () throws(DomainError) in
                _ = try spec(children: [ada, MemberID(UUID())]).validated(
                    household: household, today: day("2026-03-25"))
            } == ["children"])
        // Days: at most seven a child.
        #expect(
            fields { () throws(DomainError) in
                _ = try spec(.days, target: 15).validated(household: household, today: day("2026-03-25"))
            } == ["target"])
    }

    @Test func theWeekStartsOnMonday() {
        #expect(day("2026-03-29").monday == day("2026-03-23"))  // a Sunday
        #expect(day("2026-03-23").monday == day("2026-03-23"))
        #expect(day("2027-01-01").monday == day("2026-12-28"))  // across New Year
    }

    @Test func progressCountsTheWeeksLearningOfTheChosenChildren() {
        let days = [
            learned(ada, "2026-03-23", 30), learned(ada, "2026-03-29", 20), learned(ben, "2026-03-25", 10),
            // Outside the week, or not in the quest: not counted.
            learned(ada, "2026-03-22", 90), learned(ben, "2026-03-30", 90), learned(cy, "2026-03-24", 90),
        ]
        let minutes = CoopProgress(spec(), days: days, paid: [:])
        #expect(minutes.value == 60)
        #expect(minutes.shares.map(\.value) == [50, 10])
        #expect(minutes.shares.map(\.points) == [100, 20])
        #expect(!minutes.completed && minutes.percent == 60)
        // Days: each child's days with at least the minimum.
        let learningDays = CoopProgress(spec(.days, target: 3, minimum: 20), days: days, paid: [:])
        #expect(learningDays.shares.map(\.value) == [2, 0])
        #expect(learningDays.value == 2 && !learningDays.completed)
    }

    @Test func completionPaysEachContributorOnTheirOwnPointsAndLateOnesLater() {
        let q = quest(spec(target: 60))
        var days = [learned(ada, "2026-03-23", 50), learned(ben, "2026-03-24", 10)]
        let first = CoopSettlement.plan(q, CoopProgress(q.spec, days: days, paid: [:]))
        #expect(first.map(\.child) == [ada, ben])
        #expect(first.map(\.bonus) == [10, 2])  // 10% of 100 and of 20 points
        #expect(first.allSatisfy { $0.first })
        // Settled again from what it paid: nothing.
        var paid = Dictionary(uniqueKeysWithValues: first.map { ($0.child, $0.bonus) })
        #expect(CoopSettlement.plan(q, CoopProgress(q.spec, days: days, paid: paid)).isEmpty)
        // Ben learns more that week (a late report): his bonus grows by the difference.
        days.append(learned(ben, "2026-03-27", 40))
        let grown = CoopSettlement.plan(q, CoopProgress(q.spec, days: days, paid: paid))
        #expect(grown.map(\.child) == [ben] && grown.map(\.credit) == [8] && grown.map(\.bonus) == [10])
        #expect(grown.allSatisfy { !$0.first })
        paid[ben] = 10
        #expect(CoopSettlement.plan(q, CoopProgress(q.spec, days: days, paid: paid)).isEmpty)
    }

    @Test func aChildWhoContributedNothingIsNotPaidUntilTheyDo() {
        let q = quest(spec(target: 30, children: [ada, ben]))
        let days = [learned(ada, "2026-03-23", 30)]
        let plan = CoopSettlement.plan(q, CoopProgress(q.spec, days: days, paid: [:]))
        #expect(plan.map(\.child) == [ada])
        let later = CoopSettlement.plan(
            q, CoopProgress(q.spec, days: days + [learned(ben, "2026-03-26", 5)], paid: [ada: 6]))
        #expect(later.map(\.child) == [ben] && later.first?.first == true && later.first?.bonus == 1)
    }

    @Test func aCancelledOrUnreachedQuestPaysNothing() {
        let days = [learned(ada, "2026-03-23", 500), learned(ben, "2026-03-23", 500)]
        let cancelled = quest(spec(), status: .cancelled)
        #expect(CoopSettlement.plan(cancelled, CoopProgress(cancelled.spec, days: days, paid: [:])).isEmpty)
        let high = quest(spec(target: 2000))
        #expect(CoopSettlement.plan(high, CoopProgress(high.spec, days: days, paid: [:])).isEmpty)
    }

    /// Each child's minutes fall on their own local days: Berlin's clocks go forward on Sunday
    /// 29 March 2026, Honolulu's do not; an hour that starts late on Sunday counts its part
    /// before local midnight in the week and the rest in the next.
    @Test func eachChildsDaysAreTheirOwnAcrossDSTAndZones() {
        let berlin = TimeZoneID("Europe/Berlin")!
        let honolulu = TimeZoneID("Pacific/Honolulu")!
        func days(_ child: MemberID, _ records: [UsageRecord]) -> [LearningDay] {
            UsageTimeline(records).earnings(catalog: ["khan": learning]).map {
                LearningDay(child: child, day: $0.day, minutes: $0.minutes, points: $0.points)
            }
        }
        // Berlin, Sunday 23:30 (CEST, UTC+2) for an hour: 30 minutes on Sunday, 30 on Monday.
        let adaDays = days(
            ada, [UsageRecord(token: "khan", start: at("2026-03-29T21:30:00Z"), seconds: 3600, zone: berlin)])
        // Honolulu, Sunday 22:00 local (UTC-10) is Monday 08:00 UTC: still the week in Honolulu.
        let benDays = days(
            ben, [UsageRecord(token: "khan", start: at("2026-03-30T08:00:00Z"), seconds: 1800, zone: honolulu)])
        let progress = CoopProgress(spec(target: 60), days: adaDays + benDays, paid: [:])
        #expect(progress.shares.map(\.value) == [30, 30])
        #expect(progress.completed)
    }

    /// Whatever the order in which the children's learning arrives, and however often the quest
    /// is settled on the way (after each arrival, as every usage upload settles), the payouts
    /// end as one settlement of everything would leave them: paid once per contributor, with
    /// the bonus on all their points.
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func anyArrivalOrderPaysWhatOneSettlementOfEverythingPays(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let children = [ada, ben, cy]
        let q = quest(
            spec(
                Bool.random(using: &random) ? .minutes : .days, target: Int.random(in: 1...6, using: &random) * 20,
                minimum: 15, children: children, rewards: []))
        // Each child's learning per day as it ends up; arrivals raise a day's figure toward it.
        var final: [String: LearningDay] = [:]
        var arrivals: [LearningDay] = []
        for _ in 0..<Int.random(in: 1...14, using: &random) {
            let child = children.randomElement(using: &random)!
            let iso = day("2026-03-21").adding(days: Int.random(in: 0...10, using: &random)).iso
            let minutes = Int.random(in: 1...60, using: &random)
            let key = "\(child.rawValue)|\(iso)"
            let total = (final[key]?.minutes ?? 0) + minutes
            final[key] = learned(child, iso, total)
            arrivals.append(learned(child, iso, total))
        }
        arrivals.shuffle(using: &random)
        // Stored learning only grows: a late arrival of a smaller figure does not lower it.
        var stored: [String: LearningDay] = [:]
        var paid: [MemberID: Int] = [:]
        var firsts: [MemberID: Int] = [:]
        var credited: [MemberID: Int] = [:]
        for arrival in arrivals {
            let key = "\(arrival.child.rawValue)|\(arrival.day.iso)"
            if arrival.minutes > stored[key]?.minutes ?? 0 { stored[key] = arrival }
            for payout in CoopSettlement.plan(q, CoopProgress(q.spec, days: Array(stored.values), paid: paid)) {
                paid[payout.child] = payout.bonus
                credited[payout.child, default: 0] += payout.credit
                if payout.first { firsts[payout.child, default: 0] += 1 }
            }
        }
        let once = CoopSettlement.plan(q, CoopProgress(q.spec, days: Array(final.values), paid: [:]))
        #expect(paid == Dictionary(uniqueKeysWithValues: once.map { ($0.child, $0.bonus) }), "seed \(seed)")
        #expect(credited == paid, "seed \(seed): the credits add up to the bonus")
        #expect(firsts.values.allSatisfy { $0 == 1 }, "seed \(seed): each contributor unlocks once")
    }
}
