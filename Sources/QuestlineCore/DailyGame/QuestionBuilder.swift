import Foundation

/// One side of a question: an event as the card shows it.
public struct GameEvent: Codable, Sendable, Equatable {
    public var year: Int
    public var text: String
    /// The thumbnail of the first page that has one; nil when none has.
    public var imageURL: String?
    public var pages: [PageLink]

    public struct PageLink: Codable, Sendable, Equatable {
        public var title: String
        public var url: String?
        public var description: String?
    }

    public init(_ event: OnThisDayFeed.Event) {
        year = event.year
        text = event.text
        imageURL = event.imageURL
        pages = event.pages.filter { !$0.title.isEmpty }.map { PageLink(title: $0.title, url: $0.url, description: $0.description) }
    }
}

public enum Choice: String, Codable, Sendable, CaseIterable {
    case first
    case second
}

/// "Which came first?": `first` is Android's event1, `second` its event2.
public struct GameQuestion: Codable, Sendable, Equatable {
    public var first: GameEvent
    public var second: GameEvent

    /// The event with the smaller year.
    public var answer: Choice { first.year < second.year ? .first : .second }
}

/// What a day's feed gives.
public enum GameOutcome: Sendable, Equatable {
    case questions([GameQuestion])
    /// Fewer than 2 events survive the rules: no game that day.
    case notEnoughEvents(eligible: Int)
}

/// Builds the day's questions exactly as the Wikipedia Android app does
/// (`OnThisDayGameProvider`); see the daily-game spec for the rules in words.
public enum QuestionBuilder {
    public static let questionsPerGame = 5

    /// Events whose text mentions a number of one to four digits give the answer away.
    private static let digitPattern = try! NSRegularExpression(pattern: #".*\b\d{1,4}\b.*"#)

    /// Rule 1 and 2: positive years up to the game's year, no giveaway digits, first per year.
    public static func eligibleEvents(_ feed: OnThisDayFeed, date: LocalDay) -> [OnThisDayFeed.Event] {
        var seenYears = Set<Int>()
        return feed.events.filter { event in
            event.year > 0 && event.year <= date.year && !fullyMatchesDigits(event.text) && seenYears.insert(event.year).inserted
        }
    }

    /// Java's `Regex.matches`: the whole text must match (`.` does not cross a newline).
    static func fullyMatchesDigits(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = digitPattern.firstMatch(in: text, options: [.anchored], range: range) else { return false }
        return match.range.location == 0 && match.range.length == range.length
    }

    public static func build(_ feed: OnThisDayFeed, date: LocalDay) -> GameOutcome {
        var list = eligibleEvents(feed, date: date)
        guard list.count >= 2 else { return .notEnoughEvents(eligible: list.count) }
        var random = KotlinRandom(seed: Int32(date.month * 100 + date.day))
        random.shuffle(&list)
        let copy = list
        var questions: [GameQuestion] = []
        for index in 0..<questionsPerGame {
            let event1 = list.isEmpty ? copy[index % copy.count] : list.removeFirst()
            let spread = max(Int(390 - 0.19043 * Double(event1.year)), 5)
            let event2Index: Int? = list.firstIndex { abs($0.year - event1.year) <= spread }
                ?? list.indices.min { abs(list[$0].year - event1.year) < abs(list[$1].year - event1.year) }
            let event2: OnThisDayFeed.Event?
            if let event2Index {
                event2 = list.remove(at: event2Index)
            } else {
                event2 = copy.first { $0.year != event1.year }
            }
            guard let event2 else { continue }
            questions.append(GameQuestion(first: GameEvent(event1), second: GameEvent(event2)))
        }
        return .questions(questions)
    }
}
