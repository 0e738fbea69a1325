public import Foundation

/// A language the interface speaks: its catalog's code (BCP 47), the locale that formats its
/// numbers, days and lists, and its direction. English is the source and the fallback.
///
/// The ten languages of "Which came first?" are shipped complete; two pseudo-locales check that
/// nothing is left in code (`qps-ploc`: every message lengthened by about 40 % and marked,
/// `[!! … !!]`) and that pages mirror (`qps-plocm`: the same, right to left).
public struct Language: Sendable, Hashable, CustomStringConvertible {
    /// The catalog's code: `en`, `de`, …, `zh-Hans`, `zh-Hant`, `qps-ploc`, `qps-plocm`.
    public let code: String

    public static let english = Language(known: "en")
    /// The languages shipped complete, in the order pickers list them.
    public static let shipped: [Language] = ["en", "de", "fr", "es", "pt", "ru", "ar", "tr", "zh-Hans", "zh-Hant"]
        .map(Language.init(known:))
    public static let pseudo = Language(known: "qps-ploc")
    public static let pseudoRightToLeft = Language(known: "qps-plocm")
    /// Every language a request may ask for.
    public static let all = shipped + [pseudo, pseudoRightToLeft]

    private init(known code: String) {
        self.code = code
        self.locale = Locale(identifier: code.hasPrefix("qps-") || code == "en" ? "en_GB" : code)
    }

    /// A language is its code (the locale follows from it).
    public static func == (a: Language, b: Language) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The language for a code as people and browsers spell it (`de`, `de-AT`, `zh-TW`,
    /// `zh-hans`, `pt-BR`), or nil when Questline does not speak it.
    public init?(_ raw: String) {
        // A code as the catalog spells it (a member's saved language) needs no normalizing.
        if let exact = Language.all.first(where: { $0.code == raw }) {
            self = exact
            return
        }
        let tag = raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-").lowercased()
        guard !tag.isEmpty else { return nil }
        if let exact = Language.all.first(where: { $0.code.lowercased() == tag }) {
            self = exact
            return
        }
        let parts = tag.split(separator: "-").map(String.init)
        if parts.first == "zh" {
            // Scripts and regions of Chinese: Traditional for Taiwan, Hong Kong, Macau.
            let traditional = parts.contains { ["hant", "tw", "hk", "mo"].contains($0) }
            self = Language(known: traditional ? "zh-Hant" : "zh-Hans")
            return
        }
        guard let base = parts.first, let found = Language.shipped.first(where: { $0.code == base }) else {
            return nil
        }
        self = found
    }

    public var description: String { code }

    /// The locale that formats numbers, days, times and lists (the pseudo-locales format as
    /// English does). English writes days and times as the product always has, day before month
    /// and a 24-hour clock ("14 December 2026", "21:05"): British English's formats.
    public let locale: Locale

    public var isPseudo: Bool { code.hasPrefix("qps-") }

    public var isRightToLeft: Bool { code == "ar" || code == "qps-plocm" }

    /// `rtl` or `ltr`, for `dir`.
    public var direction: String { isRightToLeft ? "rtl" : "ltr" }

    /// The language's name in itself, for the language picker ("Deutsch", "العربية").
    public var nativeName: String {
        switch code {
        case "en": "English"
        case "de": "Deutsch"
        case "fr": "Français"
        case "es": "Español"
        case "pt": "Português"
        case "ru": "Русский"
        case "ar": "العربية"
        case "tr": "Türkçe"
        case "zh-Hans": "中文（简体）"
        case "zh-Hant": "中文（繁體）"
        case "qps-ploc": "[!! Pseudo !!]"
        default: "[!! Pseudo RTL !!]"
        }
    }

    /// The best language of an `Accept-Language` header (weights honoured; English when none
    /// is spoken here). Pseudo-locales are never chosen this way.
    public static func best(acceptLanguage header: String?) -> Language? {
        guard let header else { return nil }
        var choices: [(language: Language, weight: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, let language = Language(tag), !language.isPseudo else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { choices.append((language, weight, order)) }
        }
        return choices.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.first?.language
    }
}
