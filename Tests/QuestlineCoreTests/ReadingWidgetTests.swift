import Foundation
import QuestlineCore
import QuestlineL10n
import Testing

private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
private func days(_ list: [String]) -> Set<LocalDay> { Set(list.map(day)) }
/// Every day from `from` through `through`.
private func run(_ from: String, _ through: String) -> Set<LocalDay> {
    var result: Set<LocalDay> = []
    var current = day(from)
    while current <= day(through) {
        result.insert(current)
        current = current.adding(days: 1)
    }
    return result
}

/// The seed's 2026 campaign, and the same with two freezes.
private let may = Campaign(
    id: "2026", startDay: day("2026-05-01"), endDay: day("2026-05-31"), goalDays: 25,
    claimUntilDay: day("2026-07-10"), removeAfterDay: day("2026-07-10"))
private var mayWithFreezes: Campaign {
    var c = may
    c.freezes = 2
    return c
}

private func model(
    _ campaign: Campaign = may, today: String, joined: String? = nil, reads: Set<LocalDay> = [],
    completed: String? = nil, claimed: Bool = false, loggedIn: Bool = true, repairs: Set<LocalDay> = [],
    allowances: StreakAllowances = .none
) -> WidgetModel {
    ReadingWidget.model(
        campaign: campaign,
        status: ReaderStatus(
            loggedIn: loggedIn, joinDay: joined.map(day), completedOn: completed.map(day),
            claimed: claimed, readDays: reads, repairDays: repairs, allowances: allowances), today: day(today))
}

@Suite struct WidgetStateTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let model: WidgetModel
        let state: WidgetState
        let streak: Int
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "day before start", model: model(today: "2026-04-30"), state: .notLiveYet, streak: 0),
        Row(name: "start day, not joined", model: model(today: "2026-05-01"), state: .notEnrolled, streak: 0),
        Row(
            name: "not joined with a 1-day streak", model: model(today: "2026-05-02", reads: days(["2026-05-01"])),
            state: .notEnrolled, streak: 1),
        Row(
            name: "not joined with a 2-day streak",
            model: model(today: "2026-05-03", reads: run("2026-05-01", "2026-05-02")),
            state: .notEnrolledWithStreak, streak: 2),
        Row(
            name: "not joined, 24 days left for a 25-day goal: read along",
            model: model(today: "2026-05-08"), state: .notEnrolledOutOfReach, streak: 0),
        Row(
            name: "not joined, 25 days left: still in reach", model: model(today: "2026-05-07"), state: .notEnrolled,
            streak: 0),
        Row(
            name: "not joined, a 3-day streak and 22 days left: in reach",
            model: model(today: "2026-05-10", reads: run("2026-05-07", "2026-05-09")), state: .notEnrolledWithStreak,
            streak: 3),
        Row(
            name: "joined, nothing read", model: model(today: "2026-05-03", joined: "2026-05-02"),
            state: .enrolledNotStarted, streak: 0),
        Row(
            name: "joined, read today",
            model: model(today: "2026-05-03", joined: "2026-05-02", reads: days(["2026-05-03"])),
            state: .streakReadToday, streak: 1),
        Row(
            name: "joined, read yesterday not today",
            model: model(today: "2026-05-04", joined: "2026-05-02", reads: days(["2026-05-03"])),
            state: .streakNotReadToday, streak: 1),
        Row(
            name: "missed yesterday, not repaired yet: read 3 today to save it",
            model: model(today: "2026-05-06", joined: "2026-05-02", reads: run("2026-05-02", "2026-05-04")),
            state: .repairable, streak: 0),
        Row(
            name: "missed yesterday, three reads today repaired it",
            model: model(
                today: "2026-05-06", joined: "2026-05-02",
                reads: run("2026-05-02", "2026-05-04").union(days(["2026-05-06"])),
                repairs: days(["2026-05-06"])),
            state: .streakReadToday, streak: 4),
        Row(
            name: "a paused day, not read",
            model: model(
                today: "2026-05-06", joined: "2026-05-02", reads: run("2026-05-02", "2026-05-04"),
                allowances: StreakAllowances(pauses: [.init(start: day("2026-05-05"), end: day("2026-05-08"))])),
            state: .paused, streak: 3),
        Row(
            name: "a rest day (Wednesday), not read",
            model: model(
                today: "2026-05-06", joined: "2026-05-02", reads: run("2026-05-02", "2026-05-05"),
                allowances: StreakAllowances(restDays: [.init(weekdays: [3], from: day("2026-04-27"))])),
            state: .restDay, streak: 4),
        Row(
            name: "streak lost: restart",
            model: model(today: "2026-05-06", joined: "2026-05-02", reads: days(["2026-05-03"])),
            state: .enrolledNotStarted, streak: 0),
        Row(
            name: "joined today with a streak from before",
            model: model(today: "2026-05-05", joined: "2026-05-05", reads: run("2026-05-01", "2026-05-04")),
            state: .enrolledWithStreakNotReadToday, streak: 4),
        Row(
            name: "joined today with a streak, read today",
            model: model(today: "2026-05-05", joined: "2026-05-05", reads: run("2026-05-01", "2026-05-05")),
            state: .streakReadToday, streak: 5),
        Row(
            name: "freeze spent on yesterday",
            model: model(
                mayWithFreezes, today: "2026-05-06", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-04")),
            state: .freezeApplied, streak: 4),
        Row(
            name: "freeze spent, read today",
            model: model(
                mayWithFreezes, today: "2026-05-06", joined: "2026-05-01",
                reads: run("2026-05-01", "2026-05-04").union(days(["2026-05-06"]))),
            state: .streakReadToday, streak: 5),
        Row(
            name: "completed on the 25th day",
            model: model(today: "2026-05-25", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-25")),
            state: .completed, streak: 25),
        Row(
            name: "end day, still running",
            model: model(today: "2026-05-31", joined: "2026-05-01", reads: run("2026-05-20", "2026-05-30")),
            state: .streakNotReadToday, streak: 11),
        Row(
            name: "day after end, incomplete",
            model: model(today: "2026-06-01", joined: "2026-05-01", reads: run("2026-05-20", "2026-05-31")),
            state: .concludedIncomplete, streak: 12),
        Row(
            name: "day after end, joined, never read", model: model(today: "2026-06-01", joined: "2026-05-01"),
            state: .concludedNoStreak, streak: 0),
        Row(
            name: "day after end, never joined",
            model: model(today: "2026-06-01", reads: run("2026-05-01", "2026-05-10")), state: .concludedNoStreak,
            streak: 0),
        Row(
            name: "claim deadline, completed",
            model: model(
                today: "2026-07-10", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-25"),
                completed: "2026-05-25"),
            state: .completed, streak: 25),
        Row(
            name: "removal: the day after removeAfterDay",
            model: model(today: "2026-07-11", joined: "2026-05-01", completed: "2026-05-25"),
            state: .removed, streak: 0),
    ]

    @Test(arguments: rows)
    func state(_ row: Row) {
        #expect(row.model.state == row.state)
        #expect(row.model.streak == row.streak)
    }

    @Test func everyStateIsReachable() {
        #expect(Set(Self.rows.map(\.state)) == Set(WidgetState.allCases))
    }
}

@Suite struct StreakRuleTests {
    @Test func twoReadsOnOneDayCountOnce() {
        let m = model(
            today: "2026-05-02", joined: "2026-05-01", reads: days(["2026-05-01", "2026-05-02", "2026-05-02"]))
        #expect(m.streak == 2)
    }

    @Test func readsBeforeJoiningCountButNotBeforeTheStart() {
        #expect(model(today: "2026-05-03", joined: "2026-05-03", reads: run("2026-04-25", "2026-05-03")).streak == 3)
    }

    @Test func oneFreezeCoversOneMissedDayTwoMissedDaysLoseTheStreak() {
        var oneFreeze = may
        oneFreeze.freezes = 1
        let covered = model(
            oneFreeze, today: "2026-05-07", joined: "2026-05-01",
            reads: run("2026-05-01", "2026-05-03").union(run("2026-05-05", "2026-05-07")))
        #expect(covered.streak == 6)  // the frozen 4th adds nothing
        #expect(covered.freezesLeft == 0)
        let lost = model(
            oneFreeze, today: "2026-05-07", joined: "2026-05-01",
            reads: run("2026-05-01", "2026-05-03").union(days(["2026-05-06", "2026-05-07"])))
        #expect(lost.streak == 2)
        let twoFreezes = model(
            mayWithFreezes, today: "2026-05-07", joined: "2026-05-01",
            reads: run("2026-05-01", "2026-05-03").union(days(["2026-05-06", "2026-05-07"])))
        #expect(twoFreezes.streak == 5)
        #expect(twoFreezes.freezesLeft == 0)
    }

    /// Earned freezes (the shipped campaign: one per 7 days read in a row, at most 2 held): a
    /// reader who reads a week, misses a day and reads on sees "Streak freeze applied" with no
    /// freeze granted by the campaign.
    @Test func aWeekReadInARowEarnsAFreezeThatSavesTheNextMissedDay() throws {
        var earning = may
        earning.freezeEveryDays = 7
        // Read 1–7 May, missed the 8th; on the 9th, before reading: the earned freeze kept it.
        let saved = model(earning, today: "2026-05-09", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-07"))
        #expect(saved.state == .freezeApplied && saved.streak == 7 && saved.freezesLeft == 0)
        let summary = StreakSummary(
            campaign: earning, readDays: run("2026-05-01", "2026-05-07"), today: day("2026-05-09"),
            joinDay: day("2026-05-01"))
        #expect(summary.earnedFreezeDays == [day("2026-05-07")] && summary.frozenDays == [day("2026-05-08")])
        // Without earning, the same history loses the streak.
        #expect(model(today: "2026-05-09", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-07")).streak == 0)
        // 21 days in a row earn three, but at most two are held.
        let held = model(earning, today: "2026-05-21", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-21"))
        #expect(held.freezesLeft == 2)
        // Spent, then earned again: read 1–7, miss the 8th (spent), read 9–15 (run 14: earned).
        let again = StreakSummary(
            campaign: earning, readDays: run("2026-05-01", "2026-05-07").union(run("2026-05-09", "2026-05-15")),
            today: day("2026-05-15"), joinDay: day("2026-05-01"))
        #expect(again.current == 14 && again.freezesLeft == 1)
        #expect(again.earnedFreezeDays == [day("2026-05-07"), day("2026-05-15")])
        // Not enrolled: nothing is earned (freezes protect enrolled days only).
        let outsider = StreakSummary(
            campaign: earning, readDays: run("2026-05-01", "2026-05-07"), today: day("2026-05-09"), joinDay: nil)
        #expect(outsider.freezesLeft == 0 && outsider.current == 0)
        // The shipped campaign earns them.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/QuestlineFeatures/Resources/campaigns/reading-challenge-2026.json")
        let shipped = try Campaign.decode(Data(contentsOf: url))
        #expect(shipped.freezeEveryDays == 7 && shipped.maxFreezesHeld == 2)
        // The rules: 2 to 60 days, or 0; 1 to 10 held.
        var bad = may
        bad.freezeEveryDays = 1
        bad.maxFreezesHeld = 0
        #expect(
            throws: DomainError.invalid([
                FieldIssue(
                    field: "freezeEveryDays",
                    message: Message("reading.error.freezeEveryDays", ["min": .number(2), "max": .number(60)])),
                FieldIssue(
                    field: "maxFreezesHeld", message: Message("reading.error.maxFreezesHeld", ["max": .number(10)])),
            ])
        ) { try bad.validate() }
    }

    @Test func freezesOnlyProtectEnrolledDays() {
        // Not joined: no freezes held, the gap breaks the run.
        let m = model(
            mayWithFreezes, today: "2026-05-06",
            reads: run("2026-05-01", "2026-05-03").union(days(["2026-05-05", "2026-05-06"])))
        #expect(m.streak == 2)
        #expect(m.freezesLeft == 0)
    }

    @Test func onlyAJoinedMemberCompletes() {
        let notJoined = model(today: "2026-05-26", reads: run("2026-05-01", "2026-05-26"))
        #expect(notJoined.state == .notEnrolledWithStreak)
        #expect(notJoined.completedOn == nil)
        let joinedLate = model(today: "2026-05-26", joined: "2026-05-26", reads: run("2026-05-01", "2026-05-26"))
        #expect(joinedLate.state == .completed)
    }

    @Test func completionIsTerminal() {
        // The history shows completion on 25 May; later gaps change nothing.
        let afterGap = model(today: "2026-06-05", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-25"))
        #expect(afterGap.state == .completed)
        #expect(afterGap.completedOn == day("2026-05-25"))
        // Recorded completion survives a cleared history (new device).
        let cleared = model(today: "2026-05-28", joined: "2026-05-01", reads: [], completed: "2026-05-25")
        #expect(cleared.state == .completed)
        #expect(cleared.streak == 25)
        #expect(cleared.ctas.map(\.kind) == [.claim, .share])
        #expect(model(today: "2026-07-10", completed: "2026-05-25", claimed: true).ctas.map(\.kind) == [.share])
        #expect(model(today: "2026-07-10", joined: "2026-05-01", completed: "2026-05-25").ctas.first?.kind == .claim)
    }

    @Test func continuingAnActiveStreakAfterTheEnd() {
        var lenient = may
        lenient.continueActiveStreakAfterEnd = true
        let alive = model(lenient, today: "2026-06-03", joined: "2026-05-10", reads: run("2026-05-12", "2026-06-02"))
        #expect(alive.state == .streakNotReadToday)
        let done = model(lenient, today: "2026-06-05", joined: "2026-05-10", reads: run("2026-05-12", "2026-06-05"))
        #expect(done.state == .completed)
        let lapsed = model(lenient, today: "2026-06-05", joined: "2026-05-10", reads: run("2026-05-12", "2026-06-02"))
        #expect(lapsed.state == .concludedIncomplete)
    }

    @Test func loggedOutReadersAreAskedToLogIn() {
        #expect(model(today: "2026-05-02", loggedIn: false).ctas.map(\.kind) == [.login])
        #expect(model(today: "2026-05-02").ctas.map(\.kind) == [.join])
        #expect(model(today: "2026-05-03", joined: "2026-05-02").ctas.map(\.kind) == [.search, .random])
        #expect(model(today: "2026-05-03", joined: "2026-05-02", reads: days(["2026-05-03"])).ctas.isEmpty)
    }
}

@Suite struct ReadingDaysTests {
    private func instant(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
    private func zone(_ id: String) -> TimeZone { TimeZoneID(id)!.timeZone }

    @Test func dstDaysAreOrdinaryDays() {
        // Berlin springs forward on 29 March 2026: the day is 23 hours long.
        var spring = may
        spring.startDay = day("2026-03-28")
        spring.endDay = day("2026-04-30")
        spring.goalDays = 3
        let reads: Set<LocalDay> = [
            LocalDay(instant("2026-03-28T22:30:00Z"), in: zone("Europe/Berlin")),  // 23:30 on the 28th (CET)
            LocalDay(instant("2026-03-29T21:30:00Z"), in: zone("Europe/Berlin")),  // 23:30 on the 29th (CEST)
            LocalDay(instant("2026-03-29T22:30:00Z"), in: zone("Europe/Berlin")),  // 00:30 on the 30th
        ]
        #expect(reads == days(["2026-03-28", "2026-03-29", "2026-03-30"]))
        #expect(model(spring, today: "2026-03-30", joined: "2026-03-28", reads: reads).state == .completed)
        // New York falls back on 1 November 2026: a 25-hour day is still one day.
        let fall: Set<LocalDay> = [
            LocalDay(instant("2026-11-01T04:30:00Z"), in: zone("America/New_York")),  // 00:30 EDT on the 1st
            LocalDay(instant("2026-11-02T04:30:00Z"), in: zone("America/New_York")),  // 23:30 EST on the 1st
        ]
        #expect(fall == days(["2026-11-01"]))
    }

    @Test func aReaderFlyingFromTokyoToLosAngelesKeepsTheStreak() {
        // Reads keep the local day of where they happened.
        let reads: Set<LocalDay> = [
            LocalDay(instant("2026-05-08T12:00:00Z"), in: zone("Asia/Tokyo")),  // 21:00, 8 May in Tokyo
            // 12:00, 9 May in Tokyo; then the flight
            LocalDay(instant("2026-05-09T03:00:00Z"), in: zone("Asia/Tokyo")),
            LocalDay(instant("2026-05-09T20:00:00Z"), in: zone("America/Los_Angeles")),  // 13:00, 9 May again in LA
            LocalDay(instant("2026-05-10T18:00:00Z"), in: zone("America/Los_Angeles")),  // 11:00, 10 May in LA
        ]
        #expect(reads == days(["2026-05-08", "2026-05-09", "2026-05-10"]))
        // "Today" is in the zone the reader is in now: LA, 10 May.
        let today = LocalDay(instant("2026-05-10T19:00:00Z"), in: zone("America/Los_Angeles"))
        let m = model(today: today.iso, joined: "2026-05-08", reads: reads)
        #expect(m.state == .streakReadToday)
        #expect(m.streak == 3)
    }
}

@Suite struct WidgetContentTests {
    @Test func contentChangesDailyAndIsTheSameForEveryoneOnADay() {
        let a = model(today: "2026-05-03", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-03"))
        let b = model(today: "2026-05-03", joined: "2026-05-02", reads: run("2026-05-01", "2026-05-03"))
        let next = model(today: "2026-05-04", joined: "2026-05-01", reads: run("2026-05-01", "2026-05-04"))
        #expect(a.state == .streakReadToday && next.state == .streakReadToday)
        #expect(a.variant == 2 % 3)
        #expect(a.copy == b.copy && a.color == b.color && a.illustration == b.illustration)
        #expect(next.variant == 3 % 3)
        #expect(next.copy.title != a.copy.title)
        #expect(Localizer.english(a.copy.title) == "Nice reading!")
        #expect(Localizer.english(a.copy.body) == "3 days down, 22 days to go.")
        #expect(a.color.family == "readToday")
    }

    @Test func everyStateHasCopyWithoutPlaceholdersLeft() {
        let l = Localizer.english
        for row in WidgetStateTests.rows {
            let copy = [row.model.copy.title, row.model.copy.body] + row.model.ctas.map(\.label)
            // Every message is in the catalog, every placeholder filled.
            #expect(copy.allSatisfy { l.has($0.key) && !l($0).contains("{") }, "\(row.name): \(copy)")
            #expect(WidgetContent.illustrations.contains(row.model.illustration))
        }
    }

    @Test func campaignsAreValidatedAndChosenByDate() throws {
        #expect(throws: DomainError.self) {
            try Campaign.decode(
                Data(
                    #"{"id":"x","startDay":"2026-05-31","endDay":"2026-05-01","goalDays":25,"claimUntilDay":"2026-07-10","removeAfterDay":"2026-07-10"}"#
                        .utf8))
        }
        let parsed = try Campaign.decode(
            Data(
                #"{"id":"2026","startDay":"2026-05-01","endDay":"2026-05-31","goalDays":25,"claimUntilDay":"2026-07-10","removeAfterDay":"2026-07-10","continueActiveStreakAfterEnd":false,"freezes":0}"#
                    .utf8))
        #expect(parsed == may)
        let demo = Campaign.demo(today: day("2026-11-22"))
        #expect(Campaign.current([may, demo], today: day("2026-11-22"))?.id == "demo")
        #expect(Campaign.current([may, demo], today: day("2026-05-10"))?.id == "2026")
        #expect(Campaign.current([may], today: day("2026-04-01"))?.id == "2026")
        #expect(Campaign.current([may], today: day("2026-08-01"))?.id == "2026")
        #expect(Campaign.current([], today: day("2026-08-01")) == nil)
    }
}

/// Reading reminders: which one is due, from read days, the local day and hour.
@Suite struct StreakReminderTests {
    let today = LocalDay(iso: "2026-05-10")!
    func days(_ offsets: [Int]) -> Set<LocalDay> { Set(offsets.map { today.adding(days: $0) }) }

    @Test func atRiskFromTheReminderHourWhenYesterdayWasReadAndTodayNot() {
        let read = days([-3, -2, -1])
        #expect(StreakReminder.due(readDays: read, today: today, hour: 18, reminderHour: 19, quiet: nil) == nil)
        #expect(
            StreakReminder.due(readDays: read, today: today, hour: 19, reminderHour: 19, quiet: nil)
                == .atRisk(streak: 3))
        // Read today: nothing at risk.
        #expect(
            StreakReminder.due(readDays: read.union(days([0])), today: today, hour: 22, reminderHour: 19, quiet: nil)
                == nil)
        // Quiet hours hold it back.
        #expect(
            StreakReminder.due(readDays: read, today: today, hour: 21, reminderHour: 19, quiet: .children) == nil)
        #expect(LocalHours.children.contains(hour: 6) && !LocalHours.children.contains(hour: 7))
        #expect(LocalHours(start: 13, end: 15).contains(hour: 14) && !LocalHours(start: 13, end: 15).contains(hour: 15))
    }

    @Test func quietHoursEndAtTheNextLocalEndHourAcrossMidnightAndDST() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        func at(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }
        // 21:00 local (UTC+2): until 07:00 the next morning.
        #expect(
            try LocalHours.children.nextAllowed(after: at("2026-05-07T19:00:00Z"), in: berlin)
                == at("2026-05-08T05:00:00Z"))
        // 06:30 local: until 07:00 the same morning; 07:00 itself is not quiet.
        #expect(
            try LocalHours.children.nextAllowed(after: at("2026-05-08T04:30:00Z"), in: berlin)
                == at("2026-05-08T05:00:00Z"))
        #expect(
            try LocalHours.children.nextAllowed(after: at("2026-05-08T05:00:00Z"), in: berlin)
                == at("2026-05-08T05:00:00Z"))
        // The night clocks go forward (29 March: 02:00 becomes 03:00): 07:00 is at UTC+2.
        #expect(
            try LocalHours.children.nextAllowed(after: at("2026-03-28T20:00:00Z"), in: berlin)
                == at("2026-03-29T05:00:00Z"))
        // Quiet until 02:00 on that night: 02:00 does not exist, so the first instant after the gap.
        #expect(
            try LocalHours(start: 22, end: 2).nextAllowed(after: at("2026-03-28T23:30:00Z"), in: berlin)
                == at("2026-03-29T01:00:00Z"))
        // The night clocks go back (25 October): 07:00 is at UTC+1 again.
        #expect(
            try LocalHours.children.nextAllowed(after: at("2026-10-24T20:00:00Z"), in: berlin)
                == at("2026-10-25T06:00:00Z"))
        // Outside quiet hours, or with start == end: at once.
        #expect(
            try LocalHours.children.nextAllowed(after: at("2026-05-08T10:00:00Z"), in: berlin)
                == at("2026-05-08T10:00:00Z"))
        #expect(
            try LocalHours(start: 9, end: 9).nextAllowed(after: at("2026-05-08T07:00:00Z"), in: berlin)
                == at("2026-05-08T07:00:00Z"))
    }

    @Test func lostTheDayAfterADayWithoutAReadEndedAStreak() {
        #expect(
            StreakReminder.due(readDays: days([-4, -3, -2]), today: today, hour: 8, reminderHour: 19, quiet: nil)
                == .lost(streak: 3))
        // Two days without a read: it was told yesterday; nothing more.
        #expect(
            StreakReminder.due(readDays: days([-4, -3]), today: today, hour: 8, reminderHour: 19, quiet: nil) == nil)
        // Never read: nothing.
        #expect(StreakReminder.due(readDays: [], today: today, hour: 20, reminderHour: 19, quiet: nil) == nil)
    }
}

@Suite struct StreakCalendarTests {
    /// May 2026 starts on a Friday: four empty cells, then read, frozen, missed and today marks.
    @Test func aMonthShowsReadFrozenAndMissedDaysFromTheFirstRead() {
        let calendar = StreakCalendar(
            month: day("2026-05-20"), today: day("2026-05-12"),
            readDays: run("2026-05-03", "2026-05-07").union(days(["2026-05-09", "2026-04-30"])),
            frozenDays: days(["2026-05-08"]), trackedFrom: day("2026-04-30"))
        #expect(calendar.month == day("2026-05-01"))
        #expect(calendar.weeks.count == 5 && calendar.weeks.allSatisfy { $0.count == 7 })
        #expect(calendar.weeks[0].prefix(4).allSatisfy { $0 == nil })
        let marks = Dictionary(
            calendar.weeks.flatMap { $0 }.compactMap { $0 }.map { ($0.day.iso, $0.mark) },
            uniquingKeysWith: { a, _ in a })
        #expect(marks["2026-05-01"] == .missed && marks["2026-05-02"] == .missed)
        #expect(marks["2026-05-03"] == .read && marks["2026-05-08"] == .frozen && marks["2026-05-09"] == .read)
        #expect(marks["2026-05-10"] == .missed && marks["2026-05-11"] == .missed)
        #expect(marks["2026-05-12"] == .today && marks["2026-05-13"] == StreakCalendar.Mark.none)
        #expect(calendar.readCount == 6 && calendar.frozenCount == 1 && calendar.missedCount == 4)
        // April holds the first read; June is still to come.
        #expect(calendar.previous == day("2026-04-01") && calendar.next == nil)
        // Before the first read nothing is missed, and there is nothing earlier to see.
        let april = StreakCalendar(
            month: day("2026-04-01"), today: day("2026-05-12"), readDays: days(["2026-04-30"]), frozenDays: [],
            trackedFrom: day("2026-04-30"))
        #expect(april.missedCount == 0 && april.readCount == 1 && april.previous == nil)
        #expect(april.next == day("2026-05-01"))
        // A reader with no reads: today and nothing else.
        let empty = StreakCalendar(
            month: day("2026-05-12"), today: day("2026-05-12"), readDays: [], frozenDays: [], trackedFrom: nil)
        #expect(empty.missedCount == 0 && empty.previous == nil && empty.next == nil)
    }
}

/// What the widget says when the goal can no longer be reached, and what counts after the end.
@Suite struct GoalInReachTests {
    @Test func aNewReaderIsToldHonestlyAndOfferedToReadAlong() {
        // 8 May: 24 days are left for a 25-day goal.
        let late = model(today: "2026-05-08")
        #expect(late.state == .notEnrolledOutOfReach && !late.goalInReach && late.reachableStreak == 24)
        #expect(late.ctas.map(\.kind) == [.join])
        let body = Localizer.english(late.copy.body)
        #expect(body.contains("24") && !body.contains("{"), "\(body)")
        let loggedOut = model(today: "2026-05-08", loggedIn: false)
        #expect(loggedOut.ctas.map(\.kind) == [.login])
        // In reach: no such words.
        let early = model(today: "2026-05-07")
        #expect(early.goalInReach && early.reachableStreak == 25 && early.state == .notEnrolled)
    }

    @Test func aJoinedReaderKeepsTheSpecStateWithHonestWords() {
        let joined = model(today: "2026-05-20", joined: "2026-05-15", reads: days(["2026-05-19"]))
        #expect(joined.state == .streakNotReadToday && !joined.goalInReach && joined.reachableStreak == 13)
        #expect(!Localizer.english(joined.copy.body).contains("to go"), "\(joined.copy)")
        // A campaign whose streaks go on after the end: always in reach.
        var open = may
        open.continueActiveStreakAfterEnd = true
        let going = model(open, today: "2026-05-30", joined: "2026-05-20", reads: days(["2026-05-29"]))
        #expect(going.goalInReach && going.reachableStreak == nil)
    }

    @Test func readsAfterTheLastDayDoNotCountWhenTheStreakStopsThere() {
        // Reads only on 1 to 3 June, after a campaign that ended on 31 May.
        let after = model(today: "2026-06-05", joined: "2026-05-10", reads: run("2026-06-01", "2026-06-03"))
        #expect(after.state == .concludedNoStreak && after.streak == 0)
        // Reads in the campaign still make its best streak.
        let within = model(
            today: "2026-06-05", joined: "2026-05-10",
            reads: run("2026-05-28", "2026-05-31").union(run("2026-06-01", "2026-06-03")))
        #expect(within.state == .concludedIncomplete && within.streak == 4)
    }
}
