public import Foundation

/// Words a person reads, before they are in a language: a message of the catalog (its key) and
/// its arguments. The core decides *which* message and *what* goes in it; the reader's language
/// renders it (`QuestlineL10n.Localizer`): the message's words, the plural form its `count`
/// selects, numbers, days, times and lists in the reader's locale.
///
/// Keys are dotted (`widget.notEnrolled.title.1`); the English catalog
/// (`Sources/QuestlineL10n/Resources/Localizations/en.xcstrings`) holds every key with a note for
/// translators. Placeholders in a message are `{name}`, one per argument.
public struct Message: Sendable, Hashable, Codable, CustomStringConvertible {
    public let key: String
    public let arguments: [String: Argument]

    public init(_ key: String, _ arguments: [String: Argument] = [:]) {
        self.key = key
        self.arguments = arguments
    }

    /// What a message says in a log line or a test's failure: its key and arguments, never a
    /// language.
    public var description: String {
        arguments.isEmpty
            ? key : key + "(" + arguments.keys.sorted().map { "\($0): \(arguments[$0]!)" }.joined(separator: ", ") + ")"
    }

    /// One argument of a message.
    public indirect enum Argument: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Text that is not a message (a name, a title a person typed, an article's title): put
        /// in as it is, isolated from the sentence's direction.
        case text(String)
        /// A whole number, in the locale's digits and grouping; an argument named `count` also
        /// selects the message's plural form.
        case number(Int)
        /// A percentage (`75` is 75 %), in the locale's way.
        case percent(Int)
        /// A local day, in one of the styles every screen uses.
        case day(LocalDay, DayStyle)
        /// A moment's local time of day ("21:05", "9:05 PM") in a zone.
        case time(Date, TimeZoneID)
        /// A year as readers know it ("1944", "44 BC").
        case year(Int)
        /// Another message, rendered in the same language (a phrase inside a sentence).
        case message(Message)
        /// Several arguments joined as the locale joins a list ("Ada, Bo and Cy").
        case list([Argument])

        public var description: String {
            switch self {
            case .text(let text): "\"\(text)\""
            case .number(let number): String(number)
            case .percent(let percent): "\(percent)%"
            case .day(let day, let style): "\(day.iso)/\(style.rawValue)"
            case .time(let instant, let zone): "\(instant.timeIntervalSince1970)@\(zone.identifier)"
            case .year(let year): "year \(year)"
            case .message(let message): message.description
            case .list(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
            }
        }
    }

    /// How a day reads.
    public enum DayStyle: String, Sendable, Hashable, Codable {
        /// "14 December 2026".
        case long
        /// "Monday 14 December 2026".
        case weekday
        /// "December 2026".
        case month
        /// "Mon 14".
        case short
        /// "Mon 14 Dec": a day within the next weeks, where the month may differ.
        case shortMonth
        /// "Monday".
        case weekdayName
        /// "Mon".
        case weekdayShort
        /// "M": a calendar's column heading.
        case weekdayNarrow
    }
}

extension Message {
    /// Text that is content, not words of the product (a friend group's name, a quest's title a
    /// guardian typed), where a message is expected: shown as it is in every language.
    public static func plain(_ text: String) -> Message { Message("text.plain", ["text": .text(text)]) }
}

extension Message {
    /// The key of words not (yet) in the catalog, shown as written in every language.
    public static let verbatimKey = "="

    /// Words not (yet) in the catalog, shown as they are written in every language (the
    /// pseudo-locales show them unmarked, so a test finds them). Content is never this: an
    /// article's title or a name is an argument of a message.
    public static func verbatim(_ text: String) -> Message { Message(verbatimKey, ["text": .text(text)]) }

    public var isVerbatim: Bool { key == Self.verbatimKey }
}

extension TimeZoneID: Codable {
    /// As its IANA name.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let zone = TimeZoneID(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a zone: \(text)"))
        }
        self = zone
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}

extension Message {
    /// A message kept in a row (a ledger entry's reason, a badge's title): `msg:` and its JSON,
    /// so the reader sees it in their language whenever it is read. Text kept before messages
    /// were (plain English) reads back as `verbatim`.
    public var stored: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return "msg:" + String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The message a row keeps (`stored`), or its text as written.
    public init(stored text: String) {
        if text.hasPrefix("msg:"),
            let message = try? JSONDecoder().decode(Message.self, from: Data(text.dropFirst(4).utf8))
        {
            self = message
        } else {
            self = .verbatim(text)
        }
    }
}
