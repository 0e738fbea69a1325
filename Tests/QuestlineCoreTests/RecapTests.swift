import Foundation
import QuestlineL10n
import Testing

@testable import QuestlineCore

/// The month and year in review (#39): periods in local days, the figures, the percentile's
/// threshold and the slides.
@Suite struct RecapTests {
    static func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }

    /// A message as an English reader reads it.
    static func en(_ message: Message?) -> String? { message.map { Localizer.english($0) } }

    @Test func periodsAreMonthsOrYearsThatHaveBegun() throws {
        let today = Self.day("2026-11-25")
        #expect(try RecapPeriod.validated(nil, today: today) == .month(year: 2026, month: 11))
        #expect(try RecapPeriod.validated("2026", today: today) == .year(2026))
        let october = try RecapPeriod.validated("2026-10", today: today)
        #expect(october.first == Self.day("2026-10-01") && october.last == Self.day("2026-10-31"))
        #expect(october.isClosed(today: today) && Self.en(october.title) == "October 2026")
        #expect(Self.en(RecapPeriod.year(2026).title) == "2026")
        #expect(!RecapPeriod.year(2026).isClosed(today: today))
        #expect(RecapPeriod.year(2026).isClosed(today: Self.day("2027-01-01")))
        #expect(RecapPeriod.month(year: 2028, month: 2).last == Self.day("2028-02-29"))
        for bad in ["26", "2026-13", "2026-1", "2026-11-01", "November", "0000", "0000-01", "1999", "-202", "+202"] {
            #expect(throws: DomainError.self) { try RecapPeriod.validated(bad, today: today) }
        }
        #expect(
            throws: DomainError.invalid(
                field: "period",
                Message("recap.error.notBegun", ["period": .message(RecapPeriod.month(year: 2026, month: 12).title)]))
        ) {
            try RecapPeriod.validated("2026-12", today: today)
        }
        do {
            _ = try RecapPeriod.validated("2026-12", today: today)
        } catch {
            #expect(Localizer.english(error.message) == "December 2026 has not begun yet.")
        }
    }

    @Test func theFiguresOfAMonth() {
        var facts = Recap.Facts()
        facts.reads = [
            ("Octopus", "Octopus", Self.day("2026-10-01")), ("Octopus", "Octopus", Self.day("2026-10-02")),
            ("Squid", "Squid", Self.day("2026-10-02")), ("Nautilus", "Nautilus", Self.day("2026-10-05")),
            ("Kraken", "Kraken", Self.day("2026-09-30")),  // the month before: not counted
        ]
        // Octopus 10 minutes, Squid 25 (an interval over an hour counts one hour), unknown 5.
        facts.intervals = [("Octopus", 600), ("Squid", 1500), (nil, 300), ("Nautilus", 5000)]
        facts.readDays = [Self.day("2026-10-01"), Self.day("2026-10-02"), Self.day("2026-10-05")]
        facts.saved = 4
        facts.games = [
            (Self.day("2026-10-01"), 4, 5), (Self.day("2026-10-02"), 5, 5), (Self.day("2026-10-03"), 2, 5),
            (Self.day("2026-10-10"), 3, 5),
        ]
        let recap = Recap(
            period: .month(year: 2026, month: 10), today: Self.day("2026-11-25"), facts: facts,
            comparison: .init(below: 150, total: 200))
        #expect(recap.closed)
        #expect(recap.readingMinutes == (600 + 1500 + 300 + 3600) / 60)
        #expect(recap.articles == 3)
        #expect(recap.topArticles.map(\.title) == ["Nautilus", "Squid", "Octopus"])
        #expect(recap.topArticles.first == .init(title: "Nautilus", minutes: 60, opens: 1))
        #expect(recap.bestStreak == 2)
        #expect(recap.gamesPlayed == 4)
        #expect(recap.accuracy == 70)  // 14 of 20
        #expect(recap.bestGameRun == 3)
        #expect(recap.percentile == 75)
        let first = recap.slides.first
        #expect(Self.en(first?.title) == "You read" && Self.en(first?.figure) == "1 h 40 min")
        #expect(Self.en(first?.caption) == "3 articles in October 2026, more than 75% of readers")
        #expect(recap.slides.map { Localizer.english($0.title) }.contains("Which came first?"))
        #expect(Self.en(recap.slides[1].caption) == "60 minutes over 1 visit")
        #expect(Self.en(recap.slides.last?.caption) == "70% right, best run 3 days")
    }

    /// Half a minute of reading reads "< 1 min", as the Activity tab says it, never "0 minutes".
    @Test func lessThanAMinuteIsSaidAsActivitySaysIt() {
        var facts = Recap.Facts()
        facts.reads = [("Octopus", "Octopus", Self.day("2026-10-01"))]
        facts.intervals = [("Octopus", 30)]
        let recap = Recap(
            period: .month(year: 2026, month: 10), today: Self.day("2026-10-20"), facts: facts, comparison: nil)
        #expect(recap.slides.first?.figure == Message.readingTime(seconds: 30))
        #expect(Self.en(recap.slides.first?.figure) == "< 1 min")
        #expect(Self.en(recap.slides.first?.caption) == "1 article in October 2026 so far")
    }

    @Test func aPercentileOnlyOverAHundredReaders() {
        var facts = Recap.Facts()
        facts.intervals = [(nil, 600)]
        let few = Recap(
            period: .year(2026), today: Self.day("2026-11-25"), facts: facts, comparison: .init(below: 98, total: 99))
        #expect(few.percentile == nil)
        #expect(!few.closed)
        #expect(Self.en(few.slides.first?.caption) == "0 articles in 2026 so far")
    }

    @Test func aChildsYearAndAnEmptyMonth() {
        var facts = Recap.Facts()
        facts.child = .init(
            learningMinutes: 540, questsCompleted: 12, pointsEarned: 900, pointsSpent: 300, topApp: "Khan")
        let child = Recap(period: .year(2026), today: Self.day("2026-11-25"), facts: facts, comparison: nil)
        #expect(child.slides.map { Localizer.english($0.title) } == ["You learned", "Quests completed"])
        #expect(Self.en(child.slides[0].caption) == "most of it with Khan")
        #expect(Self.en(child.slides[1].figure) == "12")
        #expect(Self.en(child.slides[1].caption) == "900 points earned, 300 spent")
        let empty = Recap(
            period: .month(year: 2026, month: 11), today: Self.day("2026-11-25"), facts: .init(), comparison: nil)
        #expect(empty.slides.count == 1)
        #expect(Self.en(empty.slides.first?.title) == "November 2026")
        #expect(Self.en(empty.slides.first?.figure) == "A fresh start")
        #expect(Self.en(empty.slides.first?.caption) == "Nothing read or played in November 2026 yet.")
    }

    @Test func theBestStreakCountsRestDaysAndRepairsAsEverywhere() {
        var facts = Recap.Facts()
        // Read Monday to Friday two weeks; weekends are rest days; one Wednesday missed and
        // repaired by three reads on Thursday.
        let monday = Self.day("2026-11-02")
        facts.readDays = Set((0..<12).map { monday.adding(days: $0) }.filter { ![6, 7].contains($0.isoWeekday) })
            .subtracting([Self.day("2026-11-11")])
        facts.repairDays = [Self.day("2026-11-12")]
        facts.allowances = StreakAllowances(restDays: [.init(weekdays: [6, 7], from: Self.day("2026-10-26"))])
        let recap = Recap(
            period: .month(year: 2026, month: 11), today: Self.day("2026-11-13"), facts: facts, comparison: nil)
        #expect(recap.bestStreak == 9)
    }
}
