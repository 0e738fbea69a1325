import Foundation
public import QuestlineCore

/// Renders messages in one language: the catalog's words for the key (English when the language
/// lacks the message), the plural form its `count` picks (`PluralRules`), and every argument in
/// the language's locale: numbers with its digits and grouping, days and times as its calendar
/// writes them (Foundation's ICU formats), lists joined its way. Text from people or content (a
/// name, a title) is isolated from the sentence's direction where the two may differ.
public struct Localizer: Sendable {
    public let language: Language
    let table: Catalog.Table

    public init(_ language: Language, catalog: Catalog = .bundled) {
        self.language = language
        self.table = catalog.table(language)
    }

    public static let english = Localizer(.english)

    /// The message in this language.
    public func callAsFunction(_ message: Message) -> String { render(message) }

    /// A message without arguments, by its key.
    public func callAsFunction(_ key: String) -> String { render(Message(key)) }

    /// A message by its key and arguments.
    public func callAsFunction(_ key: String, _ arguments: [String: Message.Argument]) -> String {
        render(Message(key, arguments))
    }

    /// Whether the catalog has the message in this language or in English.
    public func has(_ key: String) -> Bool {
        table.messages[key] != nil
    }

    /// The message's raw text in this language (or English), before its arguments: `count`
    /// picks the plural form. Nil when no catalog has the key.
    public func template(_ key: String, count: Int? = nil) -> String? {
        guard let (entry, rules) = table.messages[key] else { return nil }
        let text: String
        switch entry {
        case .text(let value): text = value
        case .plural(let forms):
            text = forms[rules.category(count ?? 0)] ?? forms[.other] ?? forms.values.first ?? ""
        }
        return language.isPseudo ? Self.pseudo(text) : text
    }

    func render(_ message: Message) -> String {
        if message.isVerbatim, case .text(let text) = message.arguments["text"] { return text }
        var count: Int?
        if case .number(let n) = message.arguments["count"] { count = n }
        guard let text = template(message.key, count: count) else { return message.key }
        return fill(text, message.arguments)
    }

    /// Replaces each `{name}` of `text` with its argument, rendered (an unknown name stays).
    func fill(_ text: String, _ arguments: [String: Message.Argument]) -> String {
        // Scanned as UTF-8 (braces are ASCII): `String.contains("{")` goes through Foundation's
        // string search, which was a fifth of this function's time on the quest board.
        let bytes = text.utf8
        let openBrace = UInt8(ascii: "{")
        let closeBrace = UInt8(ascii: "}")
        guard var open = bytes.firstIndex(of: openBrace) else { return text }
        var result = ""
        var from = bytes.startIndex
        while true {
            guard let close = bytes[open...].firstIndex(of: closeBrace) else { break }
            result += text[from..<open]
            let name = String(text[bytes.index(after: open)..<close])
            result += arguments[name].map(render) ?? "{\(name)}"
            from = bytes.index(after: close)
            guard let next = bytes[from...].firstIndex(of: openBrace) else { break }
            open = next
        }
        return result + text[from...]
    }

    /// One argument in this language.
    public func render(_ argument: Message.Argument) -> String {
        switch argument {
        case .text(let text): return isolated(text)
        case .number(let number):
            // Below a thousand every shipped locale writes a whole number as ASCII digits, as
            // `String` does (LocalizationTests checks it against Foundation), without a formatter.
            return (0..<1000).contains(number) ? String(number) : number.formatted(.number.locale(language.locale))
        case .percent(let percent): return (Double(percent) / 100).formatted(.percent.locale(language.locale))
        case .day(let day, let style): return format(day, style)
        case .time(let instant, let zone):
            // Hours in two digits ("07:00", "07:00 AM"): the locale's order, separator and day
            // period, the way CLDR's short times write hours in most locales.
            return instant.formatted(
                Date.FormatStyle(locale: language.locale, calendar: calendar(zone.timeZone), timeZone: zone.timeZone)
                    .hour(.twoDigits(amPM: .abbreviated)).minute(.twoDigits))
        case .year(let year):
            return year > 0
                ? String(year) : render(Message("time.yearBC", ["year": .text(String(-year))]))
        case .message(let message): return render(message)
        case .list(let items):
            return items.map(render).formatted(.list(type: .and).locale(language.locale))
        }
    }

    /// A day in one of the styles the screens use, in this language's calendar words.
    public func format(_ day: LocalDay, _ style: Message.DayStyle) -> String {
        Self.days.value(WrittenDay(language: language.code, day: day, style: style)) {
            // The pseudo-locales mark the locale's words for days as they mark messages.
            language.isPseudo ? Self.pseudo(formatted(day, style)) : formatted(day, style)
        }
    }

    /// A day in a style and a language: the key of the days written (`format`), kept because
    /// ICU's formatting is most of what a widget's or a board's words cost.
    struct WrittenDay: Hashable, Sendable {
        let language: String
        let day: LocalDay
        let style: Message.DayStyle
    }

    static let days = Memo<WrittenDay, String>(limit: 20_000)

    private func formatted(_ day: LocalDay, _ style: Message.DayStyle) -> String {
        let noon = day.start(in: .gmt).addingTimeInterval(12 * 3600)
        let base = Date.FormatStyle(locale: language.locale, calendar: calendar(.gmt), timeZone: .gmt)
        switch style {
        case .long: return noon.formatted(base.day().month(.wide).year())
        case .weekday: return noon.formatted(base.weekday(.wide).day().month(.wide).year())
        case .month: return noon.formatted(base.month(.wide).year())
        case .short: return noon.formatted(base.weekday(.abbreviated).day())
        case .shortMonth: return noon.formatted(base.weekday(.abbreviated).day().month(.abbreviated))
        case .weekdayName: return noon.formatted(base.weekday(.wide))
        case .weekdayShort: return noon.formatted(base.weekday(.abbreviated))
        case .weekdayNarrow: return noon.formatted(base.weekday(.narrow))
        }
    }

    private func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = language.locale
        calendar.timeZone = zone
        return calendar
    }

    /// Text put into a sentence (a name, a title): isolated (U+2068 … U+2069) when its direction
    /// may differ from the sentence's, so "Kit" in Arabic, or an Arabic title in English, keeps
    /// the sentence's punctuation where it belongs.
    public func isolated(_ text: String) -> String {
        guard language.isRightToLeft || text.unicodeScalars.contains(where: Self.isRightToLeft) else { return text }
        return "\u{2068}" + text + "\u{2069}"
    }

    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        // Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic and Arabic presentation forms.
        (0x0590...0x08FF).contains(scalar.value) || (0xFB1D...0xFDFF).contains(scalar.value)
            || (0xFE70...0xFEFF).contains(scalar.value)
    }

    /// The pseudo-locales' text: letters accented, about 40 % longer, marked at both ends so
    /// a test sees any text that did not come from the catalog. Placeholders stay as they are.
    static func pseudo(_ text: String) -> String {
        let accents: [Character: Character] = [
            "a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü", "c": "ç", "n": "ñ", "y": "ý", "A": "Á", "E": "É",
            "I": "Í",
            "O": "Ö", "U": "Ü", "C": "Ç", "N": "Ñ",
        ]
        var result = ""
        var inPlaceholder = false
        var letters = 0
        for character in text {
            if character == "{" { inPlaceholder = true }
            if character == "}" { inPlaceholder = false }
            if inPlaceholder {
                result.append(character)
                continue
            }
            if character.isLetter { letters += 1 }
            result.append(accents[character] ?? character)
        }
        let padding = String(repeating: "~", count: max(1, letters * 2 / 5))
        return "[!! " + result + " " + padding + " !!]"
    }
}
