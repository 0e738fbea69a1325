import Foundation
import QuestlineCore
import Testing

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private func zone(_ id: String) -> TimeZone { TimeZoneID(id)!.timeZone }
private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
private let us = Locale(identifier: "en_US")

@Suite struct SavedModuleTests {
    @Test func theWindowIsThe30LocalDaysEndingToday() {
        // Now: 10 May 2026, 15:00 in Berlin. The window is 11 April .. 10 May (Berlin days).
        let now = at("2026-05-10T13:00:00Z")
        let entries = [
            // 11 Apr 00:01 Berlin: 29 days ago
            SavedEntry(articleKey: "en/In", savedAt: at("2026-04-10T22:01:00Z"), thumbnailURL: nil),
            // 10 Apr 23:59 Berlin: 30 days ago
            SavedEntry(articleKey: "en/Out", savedAt: at("2026-04-10T21:59:00Z"), thumbnailURL: nil),
        ]
        let module = SavedModule(entries: entries, now: now, timeZone: zone("Europe/Berlin"), locale: us)
        #expect(module.count == 1)
    }

    @Test func aSaveAt2359InOneZoneIsAnotherDayInAnother() {
        // 23:59 on 10 April in Berlin is 06:59 on 11 April in Tokyo and 17:59 on 10 April in New York.
        let save = [SavedEntry(articleKey: "en/Edge", savedAt: at("2026-04-10T21:59:00Z"), thumbnailURL: nil)]
        let tokyoNow = at("2026-05-10T03:00:00Z")  // 10 May, 12:00 in Tokyo: window from 11 April
        #expect(SavedModule(entries: save, now: tokyoNow, timeZone: zone("Asia/Tokyo"), locale: us).count == 1)
        let newYorkNow = at("2026-05-10T16:00:00Z")  // 10 May, 12:00 in New York: 10 April is out
        #expect(SavedModule(entries: save, now: newYorkNow, timeZone: zone("America/New_York"), locale: us).count == 0)
    }

    @Test func anArticleInTwoListsCountsOnceAndImagesSkipArticlesWithout() {
        let now = at("2026-05-10T13:00:00Z")
        let entries = [
            SavedEntry(
                articleKey: "en/Octopus", savedAt: at("2026-05-09T10:00:00Z"), thumbnailURL: "https://img/octo.jpg"),
            SavedEntry(
                articleKey: "en/Octopus", savedAt: at("2026-05-10T10:00:00Z"), thumbnailURL: "https://img/octo.jpg"),
            SavedEntry(articleKey: "en/Squid", savedAt: at("2026-05-08T10:00:00Z"), thumbnailURL: nil),
            SavedEntry(
                articleKey: "en/Whale", savedAt: at("2026-05-07T10:00:00Z"), thumbnailURL: "https://img/whale.jpg"),
        ]
        let module = SavedModule(entries: entries, now: now, timeZone: zone("UTC"), locale: us)
        #expect(module.count == 3)
        #expect(module.thumbnails == ["https://img/octo.jpg", "https://img/whale.jpg"])
        #expect(module.lastSavedAt == at("2026-05-10T10:00:00Z"))
    }

    @Test func lastSavedIsATimeTodayADateOtherwiseWithTheYearWhenNotThisYear() {
        let now = at("2026-05-10T20:00:00Z")
        let utc = zone("UTC")
        // ICU separates "PM" with a narrow no-break space.
        func plain(_ text: String) -> String { text.replacingOccurrences(of: "\u{202F}", with: " ") }
        #expect(plain(SavedModule.format(at("2026-05-10T15:42:00Z"), now: now, timeZone: utc, locale: us)) == "3:42 PM")
        #expect(SavedModule.format(at("2026-05-03T15:42:00Z"), now: now, timeZone: utc, locale: us) == "May 3")
        #expect(SavedModule.format(at("2025-05-03T15:42:00Z"), now: now, timeZone: utc, locale: us) == "May 3, 2025")
        // "Today" is the viewer's: 01:30 on 11 May in Berlin is not today for a New Yorker on the 10th.
        #expect(
            plain(
                SavedModule.format(
                    at("2026-05-10T23:30:00Z"), now: at("2026-05-10T23:45:00Z"), timeZone: zone("America/New_York"),
                    locale: us)) == "7:30 PM")
        #expect(
            SavedModule.format(
                at("2026-05-10T21:30:00Z"), now: at("2026-05-10T23:45:00Z"), timeZone: zone("Europe/Berlin"), locale: us
            ) == "May 10")
        #expect(
            SavedModule.format(at("2026-05-10T15:42:00Z"), now: now, timeZone: utc, locale: Locale(identifier: "de_DE"))
                == "15:42")
    }

    /// The circles are the module's articles: a save older than the 30 days shows no picture
    /// (before, the newest pictures of all time were shown). In the timeline, an article saved to
    /// two lists counts once on its day, whether or not the two saves share an instant.
    @Test func picturesAreTheWindowsArticlesAndTwoListsCountOnceADay() {
        let now = at("2026-05-10T13:00:00Z")
        let entries = [
            SavedEntry(
                articleKey: "en/Whale", savedAt: at("2026-03-01T10:00:00Z"), thumbnailURL: "https://img/whale.jpg"),
            SavedEntry(
                articleKey: "en/Octopus", savedAt: at("2026-05-09T10:00:00Z"), thumbnailURL: "https://img/octo.jpg"),
            SavedEntry(
                articleKey: "en/Octopus", savedAt: at("2026-05-09T10:05:00Z"), thumbnailURL: "https://img/octo.jpg"),
        ]
        let module = SavedModule(entries: entries, now: now, timeZone: zone("UTC"), locale: us)
        #expect(module.count == 1 && module.thumbnails == ["https://img/octo.jpg"])
        let insights = ReadingInsights(
            reads: [], intervals: [], saves: entries, today: day("2026-05-10"), timeZone: zone("UTC"))
        #expect(insights.timeline.first { $0.day == day("2026-05-09") }?.saves == 1)
    }

    @Test func nothingSavedKeepsTheModuleAtZero() {
        let module = SavedModule(entries: [], now: at("2026-05-10T20:00:00Z"), timeZone: zone("UTC"), locale: us)
        #expect(module.count == 0)
        #expect(module.lastSavedText == nil)
        #expect(module.thumbnails.isEmpty)
    }
}

@Suite struct ReadingInsightsTests {
    @Test func readsTimeStreakAndTimeline() {
        let today = day("2026-05-10")
        let reads: [(article: String, day: LocalDay)] = [
            ("A", day("2026-05-10")), ("A", day("2026-05-10")),  // opened twice: one article read
            ("A", day("2026-05-09")), ("B", day("2026-05-09")), ("C", day("2026-05-08")),
            ("D", day("2026-04-11")), ("E", day("2026-04-10")),  // 29 days ago counts, 30 does not
        ]
        let intervals = [
            ReadingInterval(localDay: day("2026-05-10"), seconds: 600),
            ReadingInterval(localDay: day("2026-05-04"), seconds: 5000),
            ReadingInterval(localDay: day("2026-05-03"), seconds: 900),
            ReadingInterval(localDay: day("2026-05-09"), seconds: -20),
        ]
        let saves = [
            SavedEntry(articleKey: "en/A", savedAt: at("2026-05-10T08:00:00Z"), thumbnailURL: nil),
            SavedEntry(articleKey: "en/B", savedAt: at("2026-05-06T08:00:00Z"), thumbnailURL: nil),
        ]
        let insights = ReadingInsights(
            reads: reads, intervals: intervals, saves: saves, today: today, timeZone: zone("UTC"))
        #expect(insights.articlesRead30 == 4)
        #expect(insights.secondsRead7 == 600 + 3600)  // capped at an hour; the 3rd is outside; negatives count 0
        #expect(insights.currentStreak == 3)
        #expect(insights.timeline.count == 7)
        #expect(insights.timeline.first?.day == day("2026-05-04"))
        #expect(insights.timeline.last == ActivityDay(day: today, reads: 1, saves: 1))
        #expect(insights.timeline.first { $0.day == day("2026-05-06") }?.saves == 1)
        #expect(ReadingInterval.clamp(start: at("2026-05-10T10:00:00Z"), end: at("2026-05-10T09:00:00Z")) == 0)
        #expect(ReadingInterval.clamp(start: at("2026-05-10T10:00:00Z"), end: at("2026-05-10T13:00:00Z")) == 3600)
    }

    @Test func legacyItemsFallBackToTheirReadingListDateOrAreReported() {
        let a = LegacySavedItem(
            language: "en", title: "A", savedAt: at("2020-01-01T00:00:00Z"),
            readingListCreatedAt: at("2019-01-01T00:00:00Z"))
        let b = LegacySavedItem(
            language: "en", title: "B", savedAt: nil, readingListCreatedAt: at("2019-01-01T00:00:00Z"))
        let c = LegacySavedItem(language: "en", title: "C", savedAt: nil, readingListCreatedAt: nil)
        #expect(a.effectiveSavedAt == at("2020-01-01T00:00:00Z"))
        #expect(b.effectiveSavedAt == at("2019-01-01T00:00:00Z"))
        #expect(c.effectiveSavedAt == nil)
    }

    @Test func languagesAreWikipediaCodes() throws {
        for good in ["en", "DE", "zh-hant", "simple", "be-tarask", "pt"] {
            #expect(throws: Never.self) { try WikiLanguage.validate(good, field: "language") }
        }
        for bad in ["", "xx-yy", "klingon", "e n", "12"] {
            #expect(throws: DomainError.self) { try WikiLanguage.validate(bad, field: "language") }
        }
    }
}
