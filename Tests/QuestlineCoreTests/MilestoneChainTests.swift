import Foundation
import QuestlineCore
import QuestlineL10n
import Testing

private let utc = TimeZoneID("UTC")!
private let child = MemberID(UUID())

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }

/// A milestone chain starting Monday 9 March 2026 (all days active unless told).
private func chain(
    _ steps: [Int], start: String = "2026-03-09", end: String? = nil, weekdays: Set<Int> = Set(1...7)
) -> QuestSpec {
    QuestSpec(
        title: "Ladder", goal: .milestones, target: steps.count, steps: steps,
        rewardApps: [RewardUnlock(token: "game", minutes: 30)], bonusPercent: 10, weekdays: weekdays,
        startDay: day(start), endDay: end.map(day), assignee: child)
}

private func minutes(_ count: Int, on iso: String) -> UsageRecord {
    UsageRecord(token: "khan", start: at("\(iso)T09:00:00Z"), seconds: count * 60, zone: utc)
}

private func progress(_ spec: QuestSpec, _ usage: [UsageRecord], today: String) -> QuestProgress {
    QuestEvaluator(catalog: QuestSettlementTests.catalog, timeline: UsageTimeline(usage))
        .progress(spec, in: spec.shownPeriod(today: day(today)))
}

private func card(_ spec: QuestSpec, _ usage: [UsageRecord], today: String, completed: Bool = false) -> QuestCard {
    QuestCard(
        spec: spec, status: .active, progress: progress(spec, usage, today: today), completedThisPeriod: completed,
        today: day(today), appNames: [:])
}

@Suite struct MilestoneChainTests {
    /// The chain's cycles follow the calendar: one step on each active day, then the next chain.
    /// Inactive days belong to the cycle of the next active day, so cycles tile the calendar.
    struct Cycle: Sendable {
        let weekdays: Set<Int>
        let start: String
        let steps: Int
        let asked: String
        let first: String
        let last: String

        init(_ weekdays: Set<Int>, _ start: String, _ steps: Int, _ asked: String, _ first: String, _ last: String) {
            (self.weekdays, self.start, self.steps, self.asked, self.first, self.last) = (
                weekdays, start, steps, asked, first, last
            )
        }
    }

    static let cycles: [Cycle] = [
        // every day active, 3 steps from Monday 9 March
        Cycle(Set(1...7), "2026-03-09", 3, "2026-03-09", "2026-03-09", "2026-03-11"),
        Cycle(Set(1...7), "2026-03-09", 3, "2026-03-11", "2026-03-09", "2026-03-11"),
        Cycle(Set(1...7), "2026-03-09", 3, "2026-03-12", "2026-03-12", "2026-03-14"),
        Cycle(Set(1...7), "2026-03-09", 3, "2026-04-30", "2026-04-29", "2026-05-01"),  // the 18th chain
        // Monday, Wednesday and Friday, 2 steps
        Cycle([1, 3, 5], "2026-03-09", 2, "2026-03-10", "2026-03-09", "2026-03-11"),  // Tuesday: first chain
        Cycle([1, 3, 5], "2026-03-09", 2, "2026-03-12", "2026-03-12", "2026-03-16"),  // Thursday: the next
        Cycle([1, 3, 5], "2026-03-09", 2, "2026-03-15", "2026-03-12", "2026-03-16"),  // Sunday
        Cycle([1, 3, 5], "2026-03-09", 2, "2026-03-16", "2026-03-12", "2026-03-16"),
        // starting on an inactive day: the first chain begins on the start date
        Cycle([1, 3, 5], "2026-03-08", 2, "2026-03-08", "2026-03-08", "2026-03-11"),
        // weekends only, across weeks
        Cycle([6, 7], "2026-03-09", 3, "2026-03-16", "2026-03-09", "2026-03-21"),  // steps 14, 15, 21
        Cycle([6, 7], "2026-03-09", 3, "2026-03-22", "2026-03-22", "2026-03-29"),  // steps 22, 28, 29
    ]

    /// The chain's cycles follow the calendar: one step on each active day, then the next chain.
    /// Inactive days belong to the cycle of the next active day, so cycles tile the calendar.
    @Test(arguments: cycles)
    func cyclesFollowTheActiveDays(_ cycle: Cycle) {
        let spec = chain(Array(repeating: 10, count: cycle.steps), start: cycle.start, weekdays: cycle.weekdays)
        let window = spec.period(containing: day(cycle.asked))
        #expect(window == PeriodWindow(first: day(cycle.first), last: day(cycle.last)))
        #expect(window.map { spec.chainDays(in: $0).count } == cycle.steps)
    }

    /// Each step is met on its own day; progress is the steps met in a row from the first.
    @Test func progressCountsTheStepsMetInOrderAndShowsEachStep() {
        let spec = chain([10, 20, 30])
        let usage = [minutes(15, on: "2026-03-09"), minutes(25, on: "2026-03-10"), minutes(12, on: "2026-03-11")]
        let shown = progress(spec, usage, today: "2026-03-11")
        #expect(shown.value == 2 && shown.target == 3 && shown.unit == .steps && !shown.completed)
        #expect(shown.steps?.map(\.minutes) == [15, 25, 12])
        #expect(shown.steps?.map { $0.state(today: day("2026-03-11")) } == [.met, .met, .today])
        let today = card(spec, usage, today: "2026-03-11")
        let english = Localizer.english
        #expect(english(today.progressText) == "2 / 3 steps")
        #expect(english(today.summary) == "Learn 10, 20 then 30 minutes on 3 active days in a row, one step a day")
        #expect(english(today.periodText) == "This chain, until \(english.format(day("2026-03-11"), .long))")
        #expect(
            today.steps.map { english($0.text) } == [
                "Step 1 · Mon 9 Mar · 10 minutes", "Step 2 · Tue 10 Mar · 20 minutes",
                "Step 3 · Wed 11 Mar · 30 minutes",
            ])
        // Minutes on a step's day beyond its target do not carry to the next step.
        let done = progress(spec, usage + [minutes(20, on: "2026-03-11").shifted(hours: 2)], today: "2026-03-11")
        #expect(done.completed && done.value == 3)
    }

    /// A missed step breaks this chain: later steps may still be met, but the chain cannot
    /// complete, and the card says when the next one starts.
    @Test func aMissedStepBreaksTheChainUntilTheNextCycle() {
        let spec = chain([10, 20, 30])
        let usage = [minutes(5, on: "2026-03-09"), minutes(25, on: "2026-03-10")]
        let shown = progress(spec, usage, today: "2026-03-10")
        #expect(shown.value == 0)
        #expect(shown.steps?.map { $0.state(today: day("2026-03-10")) } == [.missed, .met, .upcoming])
        let next = Localizer.english.format(day("2026-03-12"), .long)
        #expect(
            Localizer.english(card(spec, usage, today: "2026-03-10").progressText)
                == "0 / 3 steps · step 1 was missed; the next chain starts \(next)")
        // The next chain starts from nothing.
        #expect(progress(spec, usage, today: "2026-03-12").value == 0)
        #expect(progress(spec, usage, today: "2026-03-12").period.first == day("2026-03-12"))
    }

    /// An end date that cuts a chain short leaves its last steps without a day: missed, and no
    /// next chain is announced.
    @Test func anEndDateCanCutTheLastChainShort() {
        let spec = chain([10, 10, 10], end: "2026-03-13")  // cycles 9–11, then 12–13 (cut)
        let usage = [minutes(10, on: "2026-03-12"), minutes(10, on: "2026-03-13")]
        let shown = progress(spec, usage, today: "2026-03-13")
        #expect(shown.period == PeriodWindow(first: day("2026-03-12"), last: day("2026-03-13")))
        #expect(shown.steps?.map(\.day) == [day("2026-03-12"), day("2026-03-13"), nil])
        #expect(shown.value == 2 && !shown.completed)
        #expect(
            Localizer.english(card(spec, usage, today: "2026-03-13").progressText) == "2 / 3 steps · step 3 was missed")
    }

    /// Settlement: a chain completes once per cycle, pays bonus% of the cycle's points and
    /// unlocks its reward apps; the next cycle completes again under its own key.
    @Test func eachChainCompletesOncePaysItsBonusAndUnlocks() {
        let quest = Quest(
            id: QuestID(UUID()), householdID: HouseholdID(UUID()), spec: chain([10, 20]), status: .active,
            createdBy: child, createdAt: at("2026-03-09T00:00:00Z"))
        var state = Settled(quests: [quest])
        #expect(state.settle([minutes(10, on: "2026-03-09")], now: at("2026-03-09T12:00:00Z")).completions.isEmpty)
        let second = state.settle([minutes(20, on: "2026-03-10")], now: at("2026-03-10T12:00:00Z"))
        // 30 minutes at 2 points: 60 points in the chain, 10% bonus.
        #expect(second.completions.map(\.periodKey) == ["2026-03-09"])
        #expect(second.completions.map(\.bonus) == [6])
        #expect(second.grants.map(\.token) == ["game"])
        // More usage on the last step's day tops the bonus up; nothing completes twice.
        let more = state.settle([minutes(30, on: "2026-03-10").shifted(hours: 2)], now: at("2026-03-10T14:00:00Z"))
        #expect(more.completions.isEmpty && more.raisedBonuses.map(\.bonus) == [12])
        _ = state.settle([minutes(10, on: "2026-03-11")], now: at("2026-03-11T12:00:00Z"))
        let next = state.settle([minutes(20, on: "2026-03-12")], now: at("2026-03-12T12:00:00Z"))
        #expect(next.completions.map(\.periodKey) == ["2026-03-11"])
        #expect(state.paid.count == 2 && state.grants.count == 2)
    }

    /// A late report for an earlier step completes the chain when it arrives, as in time order.
    @Test func aLateReportForAnEarlierStepCompletesTheChain() {
        let quest = Quest(
            id: QuestID(UUID()), householdID: HouseholdID(UUID()), spec: chain([10, 20]), status: .active,
            createdBy: child, createdAt: at("2026-03-09T00:00:00Z"))
        var state = Settled(quests: [quest])
        #expect(state.settle([minutes(20, on: "2026-03-10")], now: at("2026-03-10T20:00:00Z")).completions.isEmpty)
        let late = state.settle([minutes(10, on: "2026-03-09")], now: at("2026-03-10T21:00:00Z"))
        #expect(late.completions.map(\.periodKey) == ["2026-03-09"] && late.completions.map(\.bonus) == [6])
    }

    /// The builder's rules: 2 to 7 steps of 1 to 1440 minutes, the target is the number of steps
    /// (and may be left out of a draft), and the steps go when the goal changes.
    @Test func validationNamesTheStepsAndTheTarget() throws {
        let apps = QuestSettlementTests.catalog
        func problems(_ draft: QuestDraft) -> [String] {
            do {
                _ = try draft.spec(assignee: child, catalog: apps, today: day("2026-03-09"))
                return []
            } catch {
                guard case .invalid(let issues) = error else { return ["not a field problem: \(error)"] }
                return issues.map(\.field).sorted()
            }
        }
        let ok = QuestDraft(title: "Ladder", goalType: "milestones", target: nil, steps: [10, 20, 30])
        let spec = try ok.spec(assignee: child, catalog: apps, today: day("2026-03-09"))
        #expect(spec.target == 3 && spec.steps == [10, 20, 30] && spec.period == .chain)
        #expect(problems(QuestDraft(title: "L", goalType: "milestones", target: nil, steps: [10])) == ["steps"])
        #expect(
            problems(QuestDraft(title: "L", goalType: "milestones", target: 8, steps: Array(repeating: 5, count: 8)))
                == ["steps"])
        #expect(problems(QuestDraft(title: "L", goalType: "milestones", target: 2, steps: [0, 20])) == ["steps"])
        #expect(problems(QuestDraft(title: "L", goalType: "milestones", target: 3, steps: [10, 20])) == ["target"])
        #expect(
            problems(QuestDraft(title: "L", goalType: "milestones", target: 2, period: "day", steps: [10, 20]))
                == ["period"])
        let daily = try QuestDraft(title: "D", goalType: "dailyMinutes", target: 30, steps: [10, 20])
            .spec(assignee: child, catalog: apps, today: day("2026-03-09"))
        #expect(daily.steps == nil)
        // A stored spec of an older version (no steps key) still decodes.
        let json = try JSONEncoder().encode(daily)
        #expect(try JSONDecoder().decode(QuestSpec.self, from: json).steps == nil)
    }
}

extension UsageRecord {
    fileprivate func shifted(hours: Int) -> UsageRecord {
        UsageRecord(token: token, start: start.addingTimeInterval(Double(hours) * 3_600), seconds: seconds, zone: zone)
    }
}
