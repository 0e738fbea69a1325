import Foundation
import QuestlineCore
import QuestlineL10n
import QuestlineTestSupport
import Testing

private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }

private func fixture(_ name: String) throws -> OnThisDayFeed {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    return try OnThisDayFeed.decode(Data(contentsOf: url))
}

private func feed(_ events: [(Int, String)]) -> OnThisDayFeed {
    OnThisDayFeed(events: events.map { OnThisDayFeed.Event(text: $0.1, year: $0.0) })
}

private func years(_ outcome: GameOutcome) -> [[Int]] {
    guard case .questions(let questions) = outcome else { return [] }
    return questions.map { [$0.first.year, $0.second.year] }
}

/// What the real Kotlin standard library's `Random(seed)` gives, recorded by
/// `scripts/kotlin/random-fixture.sh` (Debian's kotlin package) in `Fixtures/kotlin-random.json`.
private struct KotlinRandomFixture: Decodable {
    struct Seed: Decodable {
        let seed: Int32
        let ints: [Int32]
        let bounds: [Int32]
        let bounded: [[Int32]]
        let shuffle10: [Int]
        let shuffle50: [Int]
    }
    let kotlin: String
    let seeds: [Seed]

    static func load() throws -> KotlinRandomFixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/kotlin-random.json")
        return try JSONDecoder().decode(KotlinRandomFixture.self, from: Data(contentsOf: url))
    }
}

@Suite struct KotlinRandomTests {
    @Test func rawIntsMatchKotlinForEverySeedIncludingTheExtremes() throws {
        let fixture = try KotlinRandomFixture.load()
        #expect(fixture.seeds.count >= 9)
        for expected in fixture.seeds {
            var random = KotlinRandom(seed: expected.seed)
            #expect((0..<expected.ints.count).map { _ in random.nextInt() } == expected.ints, "seed \(expected.seed)")
        }
    }

    @Test func boundedIntsMatchKotlinForPowersOfTwoAndOthers() throws {
        for expected in try KotlinRandomFixture.load().seeds {
            var random = KotlinRandom(seed: expected.seed)
            let got = expected.bounds.map { bound in (0..<5).map { _ in random.nextInt(bound) } }
            #expect(got == expected.bounded, "seed \(expected.seed)")
        }
    }

    @Test func shufflesMatchKotlinsMutableListShuffle() throws {
        for expected in try KotlinRandomFixture.load().seeds {
            var random = KotlinRandom(seed: expected.seed)
            var ten = Array(0...9)
            random.shuffle(&ten)
            #expect(ten == expected.shuffle10, "seed \(expected.seed)")
            var random50 = KotlinRandom(seed: expected.seed)
            var fifty = Array(0..<50)
            random50.shuffle(&fifty)
            #expect(fifty == expected.shuffle50, "seed \(expected.seed)")
        }
    }
}

@Suite struct QuestionBuilderTests {
    @Test func androidFixtureGivesTheSpecsQuestions() throws {
        let feed = try fixture("onthisday-10-30-trimmed.json")
        #expect(feed.events.count == 48)
        let eligible = QuestionBuilder.eligibleEvents(feed, date: day("2026-02-06"))
        #expect(eligible.count == 34)
        #expect(
            years(QuestionBuilder.build(feed, date: day("2026-02-06"))) == [
                [1944, 1941], [1501, 1485], [637, 758], [1864, 1863], [1340, 1270],
            ])
    }

    @Test func theSharedFullFeedsGiveTheSameQuestionsAsTheTrimmedOnes() throws {
        let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/data/onthisday").standardized
        // The tests run with ../shared beside the repository (as CI runs them); without it this
        // test fails rather than pass without checking anything.
        try #require(
            FileManager.default.fileExists(atPath: shared.path),
            "\(shared.path) is missing: run the tests with ../shared beside the repository")
        for (full, trimmed, date) in [
            ("android-fixture-10-30.json", "onthisday-10-30-trimmed.json", "2026-02-06"),
            ("ios-fixture-05-07.json", "onthisday-05-07-trimmed.json", "2026-05-07"),
        ] {
            let big = try OnThisDayFeed.decode(Data(contentsOf: shared.appendingPathComponent(full)))
            let small = try fixture(trimmed)
            #expect(QuestionBuilder.build(big, date: day(date)) == QuestionBuilder.build(small, date: day(date)))
        }
    }

    @Test func currentFormatFeedReadsTitlesImagesAndLinks() throws {
        let feed = try fixture("onthisday-05-07-trimmed.json")
        let first = try #require(feed.events.first)
        #expect(first.pages.first?.title == "Indian Army")
        #expect(first.pages.first?.url == "https://en.wikipedia.org/wiki/Indian_Army")
        #expect(first.imageURL?.hasPrefix("https://upload.wikimedia.org/") == true)
        guard case .questions(let questions) = QuestionBuilder.build(feed, date: day("2026-05-07")) else {
            Issue.record("expected a game")
            return
        }
        #expect(questions.count == 5)
        for question in questions {
            #expect(question.first.year != question.second.year)
            #expect(question.answer == (question.first.year < question.second.year ? .first : .second))
        }
    }

    @Test func olderFormatTitlesAreReadToo() throws {
        let page = try JSONDecoder().decode(
            OnThisDayFeed.Page.self,
            from: Data(#"{"title":"Battle_of_Verdun","normalizedtitle":"Battle of Verdun"}"#.utf8))
        #expect(page.title == "Battle of Verdun")
        let bare = try JSONDecoder().decode(OnThisDayFeed.Page.self, from: Data(#"{"title":"Battle_of_Verdun"}"#.utf8))
        #expect(bare.title == "Battle of Verdun")
    }

    @Test func digitsThatGiveTheYearAwayRemoveAnEvent() {
        let date = day("2026-02-21")
        let kept = QuestionBuilder.eligibleEvents(
            feed([
                (1916, "The Battle of Verdun begins."),
                (1917, "A treaty of 1848 is cited."),  // a 4-digit number: out
                (1918, "Over 12000 people march."),  // 5 digits: no 1-4 digit word, kept
                (1919, "Line one\nmentions 42 on line two"),  // a newline: never a full match, kept
                (1920, "Apollo 11 lands."),  // out
                (1921, "Route A12 opens."),  // "A12" is one word: kept
            ]), date: date)
        #expect(kept.map(\.year) == [1916, 1918, 1919, 1921])
    }

    @Test func bcFutureAndDuplicateYearsAreDropped() {
        let kept = QuestionBuilder.eligibleEvents(
            feed([
                (-44, "Caesar is assassinated."),
                (0, "Year zero."),
                (2027, "Something next year."),
                (1066, "A battle."),
                (1066, "Another event the same year."),
                (2026, "Something this year."),
            ]), date: day("2026-02-21"))
        #expect(kept.map(\.text) == ["A battle.", "Something this year."])
    }

    @Test func zeroOrOneEligibleEventMeansNoGame() {
        #expect(QuestionBuilder.build(feed([]), date: day("2026-02-21")) == .notEnoughEvents(eligible: 0))
        #expect(
            QuestionBuilder.build(
                feed([(1916, "Verdun."), (-10, "BC."), (1916, "Same year.")]), date: day("2026-02-21"))
                == .notEnoughEvents(eligible: 1))
    }

    @Test func twoAndThreeEventsStillMakeFiveQuestions() {
        let two = QuestionBuilder.build(feed([(1844, "Independence."), (2001, "Online.")]), date: day("2026-02-21"))
        #expect(years(two).count == 5)
        for pair in years(two) { #expect(Set(pair) == [1844, 2001]) }

        let three = QuestionBuilder.build(
            feed([(2001, "Wikipedia goes online."), (1844, "Independence."), (1916, "Verdun.")]),
            date: day("2026-02-21"))
        #expect(years(three).count == 5)
        for pair in years(three) { #expect(pair[0] != pair[1]) }
    }

    @Test func theGameYearLimitsEventsButTheSeedIsMonthAndDay() {
        let events = feed([(1900, "A."), (1950, "B."), (2000, "C."), (2010, "D."), (2020, "E.")])
        // 2005: 2010 and 2020 are in the future for that game.
        #expect(QuestionBuilder.eligibleEvents(events, date: day("2005-03-01")).count == 3)
        // Same month and day in two years with the same eligible events: the same game.
        #expect(
            QuestionBuilder.build(events, date: day("2024-03-01"))
                == QuestionBuilder.build(events, date: day("2025-03-01")))
    }

    @Test func malformedFeedsAreRefusedWithWhere() {
        #expect(throws: DomainError.invalid(field: "feed", Message("game.error.feedNotJSON"))) {
            try OnThisDayFeed.decode(Data("{".utf8))
        }
        do {
            _ = try OnThisDayFeed.decode(Data(#"{"events":[{"text":"A","year":"MMXX"}]}"#.utf8))
            Issue.record("expected an error")
        } catch {
            guard case .invalid(let issues) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            let said = issues.first.map { Localizer.english($0.message) } ?? ""
            #expect(said.hasPrefix("events[0].year has the wrong type: "), "\(said)")
        }
    }

    @Test func languagesAreTheSpecsList() throws {
        #expect(try GameLanguage("DE").code == "de")
        #expect(try GameLanguage("zh-hant").wiki == "zh")
        #expect(try GameLanguage("zh-hant").variant == "zh-hant")
        #expect(throws: DomainError.self) { try GameLanguage("xx") }
        #expect(throws: DomainError.self) { try GameLanguage("zh") }
    }

    /// Every language of the game has a name in the catalog, for the pickers.
    @Test func everyLanguageIsNamedInTheCatalog() throws {
        let english = Localizer.english
        let names = try GameLanguage.supported.map { english(try GameLanguage($0).title) }
        #expect(names.first == "English" && names.last == "Chinese (Taiwan)")
        #expect(try GameLanguage("zh-hant").title == Message("game.language.zhHant"))
        #expect(Set(names).count == names.count && !names.contains { $0.hasPrefix("game.") }, "\(names)")
    }
}

@Suite struct GameSessionTests {
    private func session() -> GameSession {
        guard
            case .questions(let questions) = QuestionBuilder.build(
                feed([
                    (1844, "Independence."), (1916, "Verdun."), (2001, "Online."), (1066, "Hastings."),
                    (1492, "Voyage."),
                ]),
                date: day("2026-02-21"))
        else { fatalError("no game") }
        return GameSession(questions: questions)
    }

    @Test func answersGoInOrderAndScore() throws {
        var game = session()
        #expect(game.currentIndex == 0)
        for index in 0..<5 {
            let right = game.questions[index].answer
            let choice: Choice = index.isMultiple(of: 2) ? right : (right == .first ? .second : .first)
            let result = try game.answer(index, choice)
            #expect(result.correct == index.isMultiple(of: 2))
            #expect(result.correctChoice == right)
            #expect(!result.repeated)
        }
        #expect(game.isComplete)
        #expect(game.score == 3)
    }

    @Test func retriesReturnTheFirstResultAndOtherAnswersAreRefused() throws {
        var game = session()
        let first = try game.answer(0, .first)
        let again = try game.answer(0, .first)
        #expect(again.repeated)
        #expect(again.correct == first.correct)
        #expect(throws: DomainError.self) { try game.answer(0, .second) }
        #expect(throws: DomainError.self) { try game.answer(2, .first) }  // out of order
        #expect(throws: DomainError.self) { try game.answer(5, .first) }  // no such question
        #expect(throws: DomainError.self) { try game.answer(-1, .first) }
        #expect(game.currentIndex == 1)
    }

    @Test func aFinishedGameKeepsItsAnswers() throws {
        var game = session()
        for index in 0..<5 { _ = try game.answer(index, .first) }
        let score = game.score
        #expect(throws: DomainError.self) { try game.answer(4, .second) }
        #expect(try game.answer(4, .first).repeated)
        #expect(game.score == score)
    }

    @Test func sessionsSurviveEncoding() throws {
        var game = session()
        _ = try game.answer(0, .second)
        let decoded = try JSONDecoder().decode(GameSession.self, from: JSONEncoder().encode(game))
        #expect(decoded == game)
        #expect(decoded.currentIndex == 1)
    }
}

@Suite struct GameStatsTests {
    private func game(_ iso: String, _ score: Int, archive: Bool = false) -> PlayedGame {
        PlayedGame(date: day(iso), score: score, fromArchive: archive)
    }

    @Test func noGames() {
        #expect(
            GameStats(games: [], today: day("2026-05-07"))
                == GameStats(played: 0, averageScore: 0, currentStreak: 0, bestStreak: 0))
    }

    @Test func streaksAcrossAGapCountTheRunTheGapEnded() {
        let games = [
            game("2026-05-01", 5), game("2026-05-02", 4), game("2026-05-03", 3),  // run of 3, ended by a gap
            game("2026-05-05", 2), game("2026-05-06", 4),
        ]  // run of 2 up to yesterday
        let stats = GameStats(games: games, today: day("2026-05-07"))
        #expect(stats.played == 5)
        #expect(stats.averageScore == 3.6)
        #expect(stats.bestStreak == 3)
        #expect(stats.currentStreak == 2)  // today not played yet: the run ending yesterday still counts
        #expect(GameStats(games: games + [game("2026-05-07", 1)], today: day("2026-05-07")).currentStreak == 3)
        #expect(GameStats(games: games, today: day("2026-05-08")).currentStreak == 0)
    }

    @Test func archivePlaysCountAsPlayedButDoNotFillGaps() {
        let games = [game("2026-05-05", 5), game("2026-05-04", 2, archive: true), game("2026-05-03", 5)]
        let stats = GameStats(games: games, today: day("2026-05-05"))
        #expect(stats.played == 3)
        #expect(stats.averageScore == 4.0)
        #expect(stats.currentStreak == 1)
        #expect(stats.bestStreak == 1)
    }

    @Test func averagesRoundToOneDecimal() {
        let games = [game("2026-05-01", 1), game("2026-05-02", 2), game("2026-05-03", 2)]  // 1.666…
        #expect(GameStats(games: games, today: day("2026-05-03")).averageScore == 1.7)
        // 3.75
        let quarter = [game("2026-05-01", 3), game("2026-05-02", 4), game("2026-05-03", 4), game("2026-05-04", 4)]
        #expect(GameStats(games: quarter, today: day("2026-05-04")).averageScore == 3.8)
    }
}

@Suite struct RulesFeedFixtureTests {
    @Test func theRulesHoldOnAFeedFile() throws {
        let feed = try fixture("rules-feed.json")
        let eligible = QuestionBuilder.eligibleEvents(feed, date: day("2026-07-20"))
        // The BC event is dropped; the second 1066 event repeats a year; "Apollo 11" has a number
        // that gives the year away, so the next 1969 event is the first eligible one of its year;
        // 2999 is after the game's year.
        #expect(
            eligible.map(\.text) == [
                "The Battle of Hastings is fought.", "The first crewed Moon landing takes place.",
                "The Magna Carta is sealed.",
            ])
        // The image is the thumbnail of the first page that has one.
        #expect(eligible[0].imageURL == "https://upload.wikimedia.org/william.jpg")
        #expect(eligible[1].imageURL == nil)
        #expect(eligible[1].pages.first?.title == "Apollo 11")
        // The image's alt text is the title of the page it comes from (not the first page's).
        #expect(GameEvent(eligible[0]).imageAlt == "William the Conqueror")
        #expect(GameEvent(eligible[1]).imageAlt == nil)
        guard case .questions(let questions) = QuestionBuilder.build(feed, date: day("2026-07-20")) else {
            Issue.record("expected a game")
            return
        }
        #expect(questions.count == 5)
    }
}

@Suite struct DigitScannerTests {
    /// The fast scanner agrees with Android's regular expression (run by ICU) on the fixtures'
    /// texts and on thousands of random texts built from tricky characters.
    @Test func theScannerAgreesWithTheRegularExpression() throws {
        let feeds = ["onthisday-10-30-trimmed.json", "onthisday-05-07-trimmed.json", "rules-feed.json"]
        for name in feeds {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Fixtures/\(name)")
            for event in try OnThisDayFeed.decode(Data(contentsOf: url)).events {
                #expect(
                    QuestionBuilder.fullyMatchesDigits(event.text)
                        == QuestionBuilder.fullyMatchesDigitsWithRegex(event.text), "\(event.text)")
            }
        }
        let pieces = [
            "1", "12", "123", "1234", "12345", "a", "Z", "é", "_", " ", ",", ".", "-", "\n", "\r", "\u{2028}",
            "\u{0663}", "٣٤",
            "\u{0301}", "\u{200D}", "日", "A1", "1a", "(", ")", "'", "\t", "\u{00A0}", "½", "²", "Ⅻ", "\u{FF11}",
        ]
        var generator = SeededGenerator(seed: 19)
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            #expect(
                QuestionBuilder.fullyMatchesDigits(text) == QuestionBuilder.fullyMatchesDigitsWithRegex(text),
                "\(text.debugDescription)")
        }
    }

    @Test func localDaysFromOffsetsMatchTheCalendar() {
        var generator = SeededGenerator(seed: 20)
        let zones = [
            "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Apia",
            "America/Santiago",
            "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns",
        ].map { TimeZoneID($0)!.timeZone }
        for _ in 0..<5_000 {
            let instant = Date(timeIntervalSince1970: Double.random(in: 0...2_000_000_000, using: &generator))
            let zone = zones.randomElement(using: &generator)!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            #expect(LocalDay(instant, in: zone) == LocalDay(year: parts.year!, month: parts.month!, day: parts.day!))
        }
    }
}
