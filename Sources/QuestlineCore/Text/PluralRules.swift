/// CLDR's plural categories (cardinal numbers) for the languages Questline ships, written from
/// the CLDR plural rules (`plurals.xml`, Unicode CLDR 44; Unicode License v3). A message's
/// `count` argument picks one of its forms by these: English "1 day" (one) and "2 days"
/// (other); Russian "1 день" (one), "3 дня" (few), "5 дней" (many); Arabic's six forms.
///
/// Only whole numbers reach the catalog's messages (counts of days, points, minutes), so only the
/// integer part of each rule is needed: `v` (visible fraction digits) is 0 and `i` is `n`.
public enum PluralCategory: String, Sendable, CaseIterable, Codable {
    case zero, one, two, few, many, other
}

public enum PluralRules {
    /// The categories a language's messages need (`other` always): what the catalog check
    /// requires of each plural message.
    public static func categories(for language: String) -> [PluralCategory] {
        switch base(language) {
        case "ar": [.zero, .one, .two, .few, .many, .other]
        case "ru": [.one, .few, .many, .other]
        case "fr", "es", "pt": [.one, .many, .other]
        case "zh": [.other]
        default: [.one, .other]  // en, de, tr, and the pseudo-locales
        }
    }

    /// The category of the whole number `n` in `language`.
    public static func category(_ n: Int, language: String) -> PluralCategory {
        Family(language: language).category(n)
    }

    /// The languages that share one rule for whole numbers, decided once per language.
    public enum Family: Sendable {
        case arabic, russian, frenchPortuguese, spanish, chinese
        /// en, de, tr, and the pseudo-locales.
        case english

        public init(language: String) {
            switch PluralRules.base(language) {
            case "ar": self = .arabic
            case "ru": self = .russian
            case "fr", "pt": self = .frenchPortuguese
            case "es": self = .spanish
            case "zh": self = .chinese
            default: self = .english
            }
        }

        /// The category of the whole number `n`.
        public func category(_ n: Int) -> PluralCategory {
            let i = n.magnitude
            switch self {
            case .arabic:
                // zero: n = 0; one: n = 1; two: n = 2; few: n % 100 = 3..10; many: n % 100 = 11..99
                if i == 0 { return .zero }
                if i == 1 { return .one }
                if i == 2 { return .two }
                if (3...10).contains(i % 100) { return .few }
                if (11...99).contains(i % 100) { return .many }
                return .other
            case .russian:
                // one: i % 10 = 1 and i % 100 != 11; few: i % 10 = 2..4 and i % 100 != 12..14;
                // many: i % 10 = 0 or i % 10 = 5..9 or i % 100 = 11..14
                if i % 10 == 1, i % 100 != 11 { return .one }
                if (2...4).contains(i % 10), !(12...14).contains(i % 100) { return .few }
                return .many
            case .frenchPortuguese:
                // one: i = 0,1; many: i != 0 and i % 1000000 = 0
                if i <= 1 { return .one }
                if i % 1_000_000 == 0 { return .many }
                return .other
            case .spanish:
                // one: n = 1; many: i != 0 and i % 1000000 = 0
                if i == 1 { return .one }
                if i != 0, i % 1_000_000 == 0 { return .many }
                return .other
            case .chinese:
                return .other
            case .english:
                // one: i = 1 (and v = 0)
                return i == 1 ? .one : .other
            }
        }
    }

    /// `zh-Hant` → `zh`, `pt-BR` → `pt`.
    static func base(_ language: String) -> String {
        String(language.prefix { $0 != "-" && $0 != "_" }).lowercased()
    }
}
