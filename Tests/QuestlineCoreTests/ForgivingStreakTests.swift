import Foundation
import QuestlineL10n
import QuestlineTestSupport
import Testing

@testable import QuestlineCore

/// Forgiving streaks (#39): rest days, pauses, repairs and the perfect tier, as every streak
/// walks them (`StreakWalk`), and the rules for changing them (`StreakAllowances`).
@Suite struct ForgivingStreakTests {
    static func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
    static func days(_ isos: String...) -> Set<LocalDay> { Set(isos.map(day)) }

    /// Days from `first` for `count` days, skipping those listed.
    static func run(from first: String, count: Int, except: [String] = []) -> Set<LocalDay> {
        let start = day(first)
        return Set((0..<count).map { start.adding(days: $0) }).subtracting(except.map(day))
    }

    // 2026-11-02 is a Monday.
    static let weekendRest = StreakAllowances(restDays: [.init(weekdays: [6, 7], from: day("2026-10-26"))])

    @Test func restDaysNeitherBreakNorGrowTheStreak() {
        // Read Monday to Friday two weeks running, never at weekends.
        let reads = Self.run(from: "2026-11-02", count: 12, except: ["2026-11-07", "2026-11-08"])
        let plain = StreakWalk(from: Self.day("2026-11-02"), today: Self.day("2026-11-13"), readDays: reads)
        #expect(plain.current == 5)  // the weekend broke it
        let rested = StreakWalk(
            from: Self.day("2026-11-02"), today: Self.day("2026-11-13"), readDays: reads, allowances: Self.weekendRest)
        #expect(rested.current == 10)
        #expect(rested.mark(on: Self.day("2026-11-07")) == .rest)
        #expect(rested.perfect)  // rest days are part of the plan
        // Reading on a rest day still counts.
        let keen = StreakWalk(
            from: Self.day("2026-11-02"), today: Self.day("2026-11-13"), readDays: reads.union(Self.days("2026-11-07")),
            allowances: Self.weekendRest)
        #expect(keen.current == 11)
    }

    static func instant(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    @Test func aRestDayChangeAppliesFromNextMondayOnly() throws {
        // On Wednesday 4 November the reader missed Tuesday; choosing Tuesday now cannot rescue it.
        let now = Self.instant("2026-11-04T10:00:00Z")
        let changed = try StreakAllowances.none.settingRestDays([2], at: now)
        #expect(changed.restDays == [.init(weekdays: [2], from: Self.day("2026-11-09"))])
        #expect(!changed.isRest(Self.day("2026-11-03")))
        #expect(changed.isRest(Self.day("2026-11-10")))
        // Choosing again before Monday replaces the waiting change; on Monday itself it waits a week.
        let again = try changed.settingRestDays([6, 7], at: Self.instant("2026-11-05T10:00:00Z"))
        #expect(again.restDays == [.init(weekdays: [6, 7], from: Self.day("2026-11-09"))])
        let monday = try again.settingRestDays([], at: Self.instant("2026-11-09T10:00:00Z"))
        #expect(monday.restWeekdays(on: Self.day("2026-11-14")) == [6, 7])
        #expect(monday.restWeekdays(on: Self.day("2026-11-16")) == [])
        #expect(
            throws: DomainError.invalid(
                field: "restDays", Message("reading.error.tooManyRestDays", ["count": .number(2)]))
        ) {
            try StreakAllowances.none.settingRestDays([1, 2, 3], at: now)
        }
        #expect(throws: DomainError.invalid(field: "restDays", Message("reading.error.weekdayRange"))) {
            try StreakAllowances.none.settingRestDays([0], at: now)
        }
    }

    @Test func aRestDayChangeNeverReachesAMondayBegunAnywhere() throws {
        // Sunday 8 November 11:00 UTC: Monday 9 has begun in Kiritimati (UTC+14), so a reader in
        // UTC−12 (still Saturday 23:00 there) cannot make that Monday a rest day by moving east.
        let changed = try StreakAllowances.none.settingRestDays([1], at: Self.instant("2026-11-08T11:00:00Z"))
        #expect(changed.restDays == [.init(weekdays: [1], from: Self.day("2026-11-16"))])
        // An hour earlier Monday 9 has begun nowhere: it may be the first.
        let earlier = try StreakAllowances.none.settingRestDays([1], at: Self.instant("2026-11-08T09:00:00Z"))
        #expect(earlier.restDays == [.init(weekdays: [1], from: Self.day("2026-11-09"))])
    }

    @Test func pausesStartOnADayBegunNowhereAndAllowFourteenDaysAYear() throws {
        let now = Self.instant("2026-12-20T08:00:00Z")  // 22:00 on the 20th in Kiritimati
        #expect(
            throws: DomainError.invalid(
                field: "start", Message("reading.error.pauseTooEarly", ["day": .day(Self.day("2026-12-21"), .long)]))
        ) {
            try StreakAllowances.none.pausing(
                from: Self.day("2026-12-20"), through: Self.day("2026-12-22"), at: now)
        }
        // Across the new year: 11 days in 2026 and 3 in 2027 are within both years' 14.
        let paused = try StreakAllowances.none.pausing(
            from: Self.day("2026-12-21"), through: Self.day("2027-01-03"), at: now)
        #expect(paused.pausedDays(inYear: 2026) == 11)
        #expect(paused.pausedDays(inYear: 2027) == 3)
        #expect(throws: DomainError.invalid(field: "start", Message("reading.error.alreadyPaused"))) {
            try paused.pausing(from: Self.day("2027-01-02"), through: Self.day("2027-01-05"), at: now)
        }
        let full = Message(
            "reading.error.pauseDaysPerYear",
            ["count": .number(14), "year": .year(2026), "left": .message(.count(3, .days))])
        #expect(Localizer.english(full) == "At most 14 paused days in 2026: 3 days left.")
        #expect(throws: DomainError.invalid(field: "end", full)) {
            try StreakAllowances(pauses: [.init(start: Self.day("2026-06-01"), end: Self.day("2026-06-11"))])
                .pausing(from: Self.day("2026-12-25"), through: Self.day("2026-12-28"), at: now)
        }
        // Two hours later the 21st has begun in Kiritimati: too late for it, from any zone.
        #expect(throws: DomainError.self) {
            try StreakAllowances.none.pausing(
                from: Self.day("2026-12-21"), through: Self.day("2026-12-22"), at: Self.instant("2026-12-20T10:00:00Z"))
        }
        // Ending early: from today the days count again; a pause to come is cancelled.
        let ended = try paused.endingPause(today: Self.day("2026-12-24"))
        #expect(ended.pauses == [.init(start: Self.day("2026-12-21"), end: Self.day("2026-12-23"))])
        let cancelled = try paused.endingPause(today: Self.day("2026-12-21"))
        #expect(cancelled.pauses.isEmpty)
        #expect(throws: DomainError.conflict(field: nil, message: Message("reading.error.noPause"))) {
            try cancelled.endingPause(today: Self.day("2026-12-20"))
        }
    }

    @Test func pausedDaysKeepTheStreakButSpoilThePerfectTier() throws {
        let allowances = StreakAllowances(pauses: [.init(start: Self.day("2026-11-10"), end: Self.day("2026-11-14"))])
        let reads = Self.run(from: "2026-11-01", count: 9).union(Self.run(from: "2026-11-15", count: 3))
        let walk = StreakWalk(
            from: Self.day("2026-11-01"), today: Self.day("2026-11-17"), readDays: reads, allowances: allowances)
        #expect(walk.current == 12)
        #expect(walk.mark(on: Self.day("2026-11-12")) == .paused)
        #expect(!walk.perfect)
        // During the pause the reminder stays quiet and the streak is at risk of nothing.
        #expect(
            StreakReminder.due(
                readDays: reads, today: Self.day("2026-11-12"), hour: 21, reminderHour: 19, quiet: nil,
                allowances: allowances) == nil)
    }

    @Test func threeReadsTheNextDayOrTheDayAfterRepairABreakOnceInThirtyDays() {
        let start = Self.day("2026-11-01")
        // Read 1–9 November, missed the 10th.
        let before = Self.run(from: "2026-11-01", count: 9)
        // On the 11th, with one read so far: repairable, "read 3 today to save your 10-day streak".
        let pending = StreakWalk(
            from: start, today: Self.day("2026-11-11"), readDays: before.union(Self.days("2026-11-11")))
        #expect(pending.repairable == .init(missed: Self.day("2026-11-10"), streak: 10))
        #expect(pending.current == 1)
        // Three reads on the 11th repair the 10th.
        let repaired = StreakWalk(
            from: start, today: Self.day("2026-11-11"), readDays: before.union(Self.days("2026-11-11")),
            repairDays: Self.days("2026-11-11"))
        #expect(repaired.current == 10)
        #expect(repaired.mark(on: Self.day("2026-11-10")) == .repaired)
        #expect(repaired.repairable == nil)
        #expect(!repaired.perfect)
        // Or on the 12th, the 11th read once.
        let late = StreakWalk(
            from: start, today: Self.day("2026-11-12"), readDays: before.union(Self.days("2026-11-11", "2026-11-12")),
            repairDays: Self.days("2026-11-12"))
        #expect(late.current == 11)
        // Not on the 12th when the 11th was missed too, nor on the 13th.
        let twoMissed = StreakWalk(
            from: start, today: Self.day("2026-11-12"), readDays: before.union(Self.days("2026-11-12")),
            repairDays: Self.days("2026-11-12"))
        #expect(twoMissed.current == 1)
        #expect(twoMissed.repairable == nil)
        let tooLate = StreakWalk(
            from: start, today: Self.day("2026-11-13"),
            readDays: before.union(Self.days("2026-11-11", "2026-11-12", "2026-11-13")),
            repairDays: Self.days("2026-11-13"))
        #expect(tooLate.current == 3)
        // A second break within 30 days of the first repair cannot be repaired.
        let reads = before.union(Self.run(from: "2026-11-11", count: 10)).union(Self.days("2026-11-22"))
        let second = StreakWalk(
            from: start, today: Self.day("2026-11-22"), readDays: reads,
            repairDays: Self.days("2026-11-11", "2026-11-22"))
        #expect(second.mark(on: Self.day("2026-11-21")) == .missed)
        #expect(second.current == 1)
        // Thirty days later it can.
        let month = StreakWalk(
            from: start, today: Self.day("2026-12-11"),
            readDays: before.union(Self.run(from: "2026-11-11", count: 29)).union(Self.days("2026-12-11")),
            repairDays: Self.days("2026-11-11", "2026-12-11"))
        #expect(month.mark(on: Self.day("2026-12-10")) == .repaired)
    }

    @Test func theChallengeWidgetShowsRestPauseRepairAndThePerfectTier() throws {
        let campaign = Campaign(
            id: "nov", startDay: Self.day("2026-11-01"), endDay: Self.day("2026-11-30"), goalDays: 25,
            claimUntilDay: Self.day("2026-12-31"), removeAfterDay: Self.day("2026-12-31"))
        var status = ReaderStatus(joinDay: Self.day("2026-11-01"), readDays: Self.run(from: "2026-11-01", count: 6))
        let perfect = ReadingWidget.model(campaign: campaign, status: status, today: Self.day("2026-11-06"))
        #expect(perfect.state == .streakReadToday)
        #expect(perfect.perfect)

        status.allowances = Self.weekendRest
        let saturday = ReadingWidget.model(campaign: campaign, status: status, today: Self.day("2026-11-07"))
        #expect(saturday.state == .restDay)
        let l = Localizer.english
        #expect(l(saturday.copy.body).contains("6-day streak") || l(saturday.copy.body).contains("6 days"))

        status.allowances = StreakAllowances(
            pauses: [.init(start: Self.day("2026-11-07"), end: Self.day("2026-11-10"))])
        let paused = ReadingWidget.model(campaign: campaign, status: status, today: Self.day("2026-11-08"))
        #expect(paused.state == .paused)
        #expect(l(paused.copy.title).contains("10 November 2026") || l(paused.copy.body).contains("10 November 2026"))
        #expect(!paused.perfect)

        status.allowances = .none
        status.readDays = Self.run(from: "2026-11-01", count: 6).union(Self.days("2026-11-08"))
        let repair = ReadingWidget.model(campaign: campaign, status: status, today: Self.day("2026-11-08"))
        // The campaign's freezes come first: none here (`freezes` is 0), so the 7th can be repaired.
        #expect(repair.state == .repairable)
        #expect(
            l(repair.copy.title) == "Read 3 today to save your 7-day streak"
                || l(repair.copy.body).contains("7 November"))
    }

    @Test func theCalendarMarksRestPausedAndRepairedDays() {
        let allowances = StreakAllowances(
            restDays: [.init(weekdays: [7], from: Self.day("2026-10-26"))],
            pauses: [.init(start: Self.day("2026-11-16"), end: Self.day("2026-11-17"))])
        let reads = Self.run(from: "2026-11-02", count: 14, except: ["2026-11-08", "2026-11-10"])
        let calendar = StreakCalendar(
            month: Self.day("2026-11-20"), today: Self.day("2026-11-18"), readDays: reads, frozenDays: [],
            trackedFrom: Self.day("2026-11-02"), repairDays: Self.days("2026-11-11"), allowances: allowances)
        let marks = Dictionary(
            uniqueKeysWithValues: calendar.weeks.flatMap { $0 }.compactMap { $0 }.map { ($0.day.iso, $0.mark) })
        #expect(marks["2026-11-08"] == .rest)
        #expect(marks["2026-11-10"] == .repaired)
        #expect(marks["2026-11-16"] == .paused)
        #expect(marks["2026-11-18"] == .today)
        // Sunday the 8th; the 1st is before the first read, the 15th was read, the 22nd is to come.
        #expect(calendar.restCount == 1)
        #expect(calendar.repairedCount == 1)
    }

    @Test func daysAreTheReadersLocalDaysThroughDSTAndTravel() {
        // Europe/Berlin moves to summer time on 29 March 2026: a read at 00:30 local on the 30th
        // (22:30 UTC on the 29th) is the 30th's, and the streak runs through the short night.
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let instants = [
            "2026-03-27T20:00:00Z", "2026-03-28T20:00:00Z", "2026-03-29T22:30:00Z", "2026-03-30T21:59:00Z",
        ].map { try! Date($0, strategy: .iso8601) }
        let local = Set(instants.map { LocalDay($0, in: berlin) })
        #expect(local == Self.days("2026-03-27", "2026-03-28", "2026-03-30"))
        // The 29th (Sunday) is the reader's rest day: the streak is unbroken over the DST night.
        let walk = StreakWalk(
            from: Self.day("2026-03-27"), today: Self.day("2026-03-30"), readDays: local,
            allowances: StreakAllowances(restDays: [.init(weekdays: [7], from: Self.day("2026-03-23"))]))
        #expect(walk.current == 3)
        // A traveller from Tokyo to New York: each read keeps the day where it happened.
        let tokyo = LocalDay(
            try! Date("2026-11-10T14:00:00Z", strategy: .iso8601), in: TimeZone(identifier: "Asia/Tokyo")!)
        let newYork = LocalDay(
            try! Date("2026-11-11T23:00:00Z", strategy: .iso8601), in: TimeZone(identifier: "America/New_York")!)
        #expect(tokyo == Self.day("2026-11-10"))
        #expect(newYork == Self.day("2026-11-11"))
        #expect(
            StreakWalk(from: tokyo, today: newYork, readDays: [tokyo, newYork]).current == 2)
    }

    /// Reads arriving in any order, in any batches, late or twice: the walk after the last one
    /// is the walk of the whole history (the same as one in-order delivery), with rest days,
    /// pauses and repairs.
    @Test func anyArrivalOrderEndsInTheSameStreak() {
        var generator = SeededGenerator(seed: 39)
        for _ in 0..<150 {
            let start = Self.day("2026-10-01")
            let length = Int.random(in: 20...70, using: &generator)
            var reads: [(day: LocalDay, count: Int)] = []
            for offset in 0..<length where Int.random(in: 0..<10, using: &generator) < 7 {
                reads.append((start.adding(days: offset), Int.random(in: 1...4, using: &generator)))
            }
            let rest = Int.random(in: 0...2, using: &generator)
            var allowances = StreakAllowances(
                restDays: rest == 0 ? [] : [.init(weekdays: Array([3, 7].prefix(rest)), from: start)])
            let pauseStart = start.adding(days: Int.random(in: 5...40, using: &generator))
            if Bool.random(using: &generator) {
                allowances = StreakAllowances(
                    restDays: allowances.restDays,
                    pauses: [
                        .init(start: pauseStart, end: pauseStart.adding(days: Int.random(in: 0...6, using: &generator)))
                    ])
            }
            let today = start.adding(days: length - 1)
            func walk(_ events: [(day: LocalDay, count: Int)]) -> StreakWalk {
                var counts: [LocalDay: Int] = [:]
                for event in events { counts[event.day, default: 0] += event.count }
                return StreakWalk(
                    from: start, today: today, readDays: Set(counts.keys),
                    repairDays: Set(counts.filter { $0.value >= 3 }.keys), allowances: allowances)
            }
            // Each day's reads as single events, delivered shuffled, in batches, some twice
            // (a resend is deduplicated by its event id before it reaches the day's count).
            var events: [(id: Int, day: LocalDay)] = []
            for read in reads { for _ in 0..<read.count { events.append((events.count, read.day)) } }
            let inOrder = walk(events.map { ($0.day, 1) })
            var delivered: [Int: LocalDay] = [:]
            var shuffled = events + events.filter { _ in Bool.random(using: &generator) }
            shuffled.shuffle(using: &generator)
            for event in shuffled { delivered[event.id] = event.day }
            #expect(walk(delivered.values.map { ($0, 1) }) == inOrder)
        }
    }
}
