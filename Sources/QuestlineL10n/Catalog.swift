public import Foundation
public import QuestlineCore

/// The message catalogs: one Apple string catalog (`.xcstrings`, JSON) per language under
/// `Resources/Localizations`, read by this small reader on every platform (Foundation does not
/// read string catalogs at run time on Linux, and SwiftPM only copies them there).
///
/// The subset of the format used: `strings.<key>.comment` (the note for translators, in the
/// English catalog), and per language `localizations.<lang>.stringUnit.value`, or
/// `localizations.<lang>.variations.plural.<category>.stringUnit.value` for a message whose
/// `count` argument picks its form. Placeholders are `{name}`. English is the source and the
/// fallback, message by message (`Localizer`).
public struct Catalog: Sendable {
    /// One message in one language.
    public enum Entry: Sendable, Equatable {
        case text(String)
        case plural([PluralCategory: String])
    }

    /// By language, then key.
    public let entries: [String: [String: Entry]]
    /// The notes for translators, by key (the English catalog's comments).
    public let notes: [String: String]
    /// What a language's renderer reads, by language code: made once, when the catalogs load.
    let tables: [String: Table]

    /// One language's messages with English's where it has none, each with the plural rules
    /// its forms follow (English's for English words), so that rendering looks a message up once.
    struct Table: Sendable {
        let messages: [String: (entry: Entry, rules: PluralRules.Family)]
    }

    public init(entries: [String: [String: Entry]], notes: [String: String]) {
        self.entries = entries
        self.notes = notes
        let english = entries["en"] ?? [:]
        var tables: [String: Table] = [:]
        for language in Set(entries.keys).union(["en"]) {
            let own = entries[language] ?? [:]
            let rules = PluralRules.Family(language: language)
            var messages = english.mapValues { (entry: $0, rules: PluralRules.Family.english) }
            for (key, entry) in own { messages[key] = (entry, rules) }
            tables[language] = Table(messages: messages)
        }
        self.tables = tables
    }

    /// The table a language renders from: English's for a language without a catalog (the
    /// pseudo-locales).
    func table(_ language: Language) -> Table {
        (language.isPseudo ? nil : tables[language.code]) ?? tables["en"] ?? Table(messages: [:])
    }

    public enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, String)
        case malformed(String, String)

        public var description: String {
            switch self {
            case .unreadable(let file, let why): "\(file) cannot be read: \(why)"
            case .malformed(let file, let why): "\(file) is not a string catalog: \(why)"
            }
        }
    }

    /// The catalogs bundled with the package.
    public static let bundled: Catalog = {
        do {
            return try load(directory: Bundle.module.bundleURL.appendingPathComponent("Resources/Localizations"))
        } catch {
            // A build without its catalogs is a packaging error: English keys show instead of words.
            return Catalog(entries: [:], notes: [:])
        }
    }()

    /// Every `*.xcstrings` file of `directory`.
    public static func load(directory: URL) throws -> Catalog {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        var entries: [String: [String: Entry]] = [:]
        var notes: [String: String] = [:]
        for file in files.filter({ $0.pathExtension == "xcstrings" }).sorted(by: { $0.path < $1.path }) {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw LoadError.unreadable(file.lastPathComponent, "no such file")
            }
            let parsed = try parse(data, name: file.lastPathComponent)
            for (language, messages) in parsed.entries {
                entries[language, default: [:]].merge(messages) { _, new in new }
            }
            notes.merge(parsed.notes) { first, _ in first }
        }
        return Catalog(entries: entries, notes: notes)
    }

    /// One string catalog's messages and notes.
    public static func parse(_ data: Data, name: String) throws -> Catalog {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let strings = root["strings"] as? [String: Any]
        else { throw LoadError.malformed(name, "no \"strings\" object") }
        var entries: [String: [String: Entry]] = [:]
        var notes: [String: String] = [:]
        for (key, value) in strings {
            guard let message = value as? [String: Any] else {
                throw LoadError.malformed(name, "\(key) is not an object")
            }
            if let comment = message["comment"] as? String { notes[key] = comment }
            let localizations = message["localizations"] as? [String: Any] ?? [:]
            for (language, raw) in localizations {
                guard let localization = raw as? [String: Any] else { continue }
                if let unit = localization["stringUnit"] as? [String: Any], let text = unit["value"] as? String {
                    entries[language, default: [:]][key] = .text(text)
                } else if let variations = localization["variations"] as? [String: Any],
                    let plural = variations["plural"] as? [String: Any]
                {
                    var forms: [PluralCategory: String] = [:]
                    for (category, form) in plural {
                        guard let category = PluralCategory(rawValue: category),
                            let unit = (form as? [String: Any])?["stringUnit"] as? [String: Any],
                            let text = unit["value"] as? String
                        else { throw LoadError.malformed(name, "\(key) has a plural form that is not one") }
                        forms[category] = text
                    }
                    entries[language, default: [:]][key] = .plural(forms)
                } else {
                    throw LoadError.malformed(name, "\(key) in \(language) has neither a value nor plural forms")
                }
            }
        }
        return Catalog(entries: entries, notes: notes)
    }

    /// The `{name}` placeholders of a text, in order of first use.
    public static func placeholders(_ text: String) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !names.contains(name) {
                names.append(name)
            }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
