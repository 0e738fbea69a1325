import Foundation

/// One side of a question: an event as the card shows it.
public struct GameEvent: Codable, Sendable, Equatable {
    public var year: Int
    public var text: String
    /// The card's image (`OnThisDayFeed.Event.imageURL`); nil when no page has one.
    public var imageURL: String?
    /// What the image shows, for screen readers: the title of the page it comes from.
    public var imageAlt: String?
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
        imageAlt = event.imagePage?.title
        pages = event.pages.filter { !$0.title.isEmpty }.map {
            PageLink(title: $0.title, url: $0.url, description: $0.description)
        }
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
    /// Android uses this regular expression; `fullyMatchesDigits` is an equivalent scanner,
    /// about ten times faster, checked against it by a property test.
    static let digitPattern = try! NSRegularExpression(pattern: #".*\b\d{1,4}\b.*"#)

    /// Rule 1 and 2: positive years up to the game's year, no giveaway digits, first per year.
    public static func eligibleEvents(_ feed: OnThisDayFeed, date: LocalDay) -> [OnThisDayFeed.Event] {
        var seenYears = Set<Int>()
        return feed.events.filter { event in
            event.year > 0 && event.year <= date.year && !fullyMatchesDigits(event.text)
                && seenYears.insert(event.year).inserted
        }
    }

    /// Whether `.*\b\d{1,4}\b.*` matches the whole text with ICU semantics: no line terminator
    /// anywhere (`.` does not cross one), and a run of one to four decimal digits with a word
    /// boundary on both sides. ICU's boundary rule (RegexMatcher::isWordBoundary): a position at
    /// a combining (Grapheme_Extend) or format character is never a boundary, and looking back
    /// skips such characters.
    public static func fullyMatchesDigits(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        for scalar in scalars {
            switch scalar.value {
            case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return false
            default: break
            }
        }
        func ignorable(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isGraphemeExtend || scalar.properties.generalCategory == .format
        }
        func isDigit(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII
                ? (0x30...0x39).contains(scalar.value)
                : scalar.properties.numericType == .decimal
                    && scalar.properties.generalCategory == .decimalNumber
        }
        /// Whether the position before index `i` (between i-1 and i) is a word boundary.
        func boundary(at i: Int) -> Bool {
            var currentIsWord = false
            if i < scalars.count {
                if ignorable(scalars[i]) { return false }
                currentIsWord = isWordCharacter(scalars[i])
            }
            var previousIsWord = false
            var back = i - 1
            while back >= 0 {
                if !ignorable(scalars[back]) {
                    previousIsWord = isWordCharacter(scalars[back])
                    break
                }
                back -= 1
            }
            return currentIsWord != previousIsWord
        }
        var i = 0
        while i < scalars.count {
            guard isDigit(scalars[i]) else {
                i += 1
                continue
            }
            var j = i
            while j < scalars.count, isDigit(scalars[j]) { j += 1 }
            // Any 1...4 digits inside the run [i, j) with boundaries on both sides.
            for first in i..<j where boundary(at: first) {
                for last in first + 1...min(first + 4, j) where boundary(at: last) { return true }
            }
            i = j
        }
        return false
    }

    /// ICU's `\w`: alphabetic, marks, decimal digits, connector punctuation, ZWNJ and ZWJ.
    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let v = scalar.value
            return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
        }
        if scalar.value == 0x200C || scalar.value == 0x200D { return true }
        let properties = scalar.properties
        if properties.isAlphabetic || properties.numericType == .decimal { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
        default: return false
        }
    }

    /// The reference: Java's `Regex.matches` with ICU (NSRegularExpression), whole-text match.
    public static func fullyMatchesDigitsWithRegex(_ text: String) -> Bool {
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
            let event2Index: Int? =
                list.firstIndex { abs($0.year - event1.year) <= spread }
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
