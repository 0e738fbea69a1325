public import Foundation

/// A language the interface speaks: its catalog's code (BCP 47), the locale that formats its
/// numbers, days and lists, and its direction. English is the source and the fallback.
///
/// The ten languages of "Which came first?" are shipped complete; two pseudo-locales check that
/// nothing is left in code (`qps-ploc`: every message lengthened by about 40 % and marked,
/// `[!! … !!]`) and that pages mirror (`qps-plocm`: the same, right to left).
public struct Language: Sendable, Hashable, CustomStringConvertible {
    /// Its place in `Language.known`: a language is one small number, which every request's
    /// context carries and copies at no cost.
    private let index: UInt8

    /// The catalog's codes, the shipped languages first in the order pickers list them, then the
    /// pseudo-locales; each with the locale that formats for it (`locale`).
    private static let known: [(code: String, locale: Locale)] = [
        "en", "de", "fr", "es", "pt", "ru", "ar", "tr", "zh-Hans", "zh-Hant", "qps-ploc", "qps-plocm",
    ].map { code in (code, Locale(identifier: code.hasPrefix("qps-") || code == "en" ? "en_GB" : code)) }

    /// The catalog's code: `en`, `de`, …, `zh-Hans`, `zh-Hant`, `qps-ploc`, `qps-plocm`.
    public var code: String { Language.known[Int(index)].code }

    public static let english = Language(known: "en")
    /// The languages shipped complete, in the order pickers list them.
    public static let shipped: [Language] = (0..<10).map { Language(index: UInt8($0)) }
    public static let pseudo = Language(known: "qps-ploc")
    public static let pseudoRightToLeft = Language(known: "qps-plocm")
    /// Every language a request may ask for.
    public static let all = shipped + [pseudo, pseudoRightToLeft]

    private init(index: UInt8) { self.index = index }

    /// One of `known`'s codes.
    private init(known code: String) {
        index = UInt8(Language.known.firstIndex { $0.code == code } ?? 0)
    }

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
    public var locale: Locale { Language.known[Int(index)].locale }

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
