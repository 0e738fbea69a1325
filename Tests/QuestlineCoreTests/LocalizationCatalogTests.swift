import Foundation
import QuestlineCore
import QuestlineL10n
import Testing

/// The shipped catalogs, as the product reads them: every shipped language has every English
/// message, with the same placeholders and the plural forms CLDR gives it; every English message
/// has a note for translators. (`scripts/l10n/catalog.py check` checks the same files, and that
/// the code uses every message.)
@Suite struct LocalizationCatalogTests {
    let catalog = Catalog.bundled

    @Test func everyEnglishMessageHasANoteAndText() throws {
        let english = try #require(catalog.entries["en"])
        #expect(english.count > 500)
        for (key, entry) in english {
            #expect(!(catalog.notes[key] ?? "").trimmingCharacters(in: .whitespaces).isEmpty, "\(key) has no note")
            switch entry {
            case .text(let text): #expect(!text.isEmpty, "\(key)")
            case .plural(let forms): #expect(forms[.one] != nil && forms[.other] != nil, "\(key)")
            }
        }
    }

    @Test(arguments: Language.shipped.filter { $0 != .english })
    func everyLanguageHasEveryMessage(_ language: Language) throws {
        let english = try #require(catalog.entries["en"])
        let translated = catalog.entries[language.code] ?? [:]
        var missing: [String] = []
        for (key, source) in english.sorted(by: { $0.key < $1.key }) {
            guard let target = translated[key] else {
                missing.append(key)
                continue
            }
            #expect(
                Set(Self.placeholders(target)) == Set(Self.placeholders(source)),
                "\(language): \(key) has other placeholders than English")
            if case .plural = source {
                guard case .plural(let forms) = target else {
                    Issue.record("\(language): \(key) needs plural forms")
                    continue
                }
                let needed = PluralRules.categories(for: language.code)
                #expect(needed.allSatisfy { forms[$0] != nil }, "\(language): \(key) lacks some of \(needed)")
            }
        }
        #expect(missing.isEmpty, "\(language) lacks \(missing.count) messages: \(missing.prefix(20))")
        #expect(Set(translated.keys).subtracting(english.keys).isEmpty, "\(language) has messages English lacks")
    }

    static func placeholders(_ entry: Catalog.Entry) -> [String] {
        switch entry {
        case .text(let text): Catalog.placeholders(text)
        case .plural(let forms): forms.values.flatMap(Catalog.placeholders)
        }
    }
}
