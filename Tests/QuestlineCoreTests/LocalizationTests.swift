import Foundation
import QuestlineCore
import Testing

@testable import QuestlineL10n

/// Messages in the reader's language: CLDR plurals, the locale's numbers, days and lists,
/// English as the fallback message by message, the pseudo-locales, choosing the language.
@Suite struct LocalizationTests {
    @Test func pluralCategoriesFollowCLDR() {
        let russian = [1, 2, 5, 11, 21, 22, 25, 111, 112, 0].map { PluralRules.category($0, language: "ru") }
        #expect(russian == [.one, .few, .many, .many, .one, .few, .many, .many, .many, .many])
        let arabic = [0, 1, 2, 3, 10, 11, 99, 100, 101, 102, 103, 111].map { PluralRules.category($0, language: "ar") }
        #expect(arabic == [.zero, .one, .two, .few, .few, .many, .many, .other, .other, .other, .few, .many])
        #expect([0, 1, 2].map { PluralRules.category($0, language: "fr") } == [.one, .one, .other])
        #expect(PluralRules.category(1_000_000, language: "es") == .many)
        #expect([0, 1, 2].map { PluralRules.category($0, language: "en") } == [.other, .one, .other])
        #expect(PluralRules.category(1, language: "zh-Hant") == .other)
        #expect(
            PluralRules.categories(for: "ar").count == 6
                && PluralRules.categories(for: "ru") == [.one, .few, .many, .other])
    }

    func catalog() throws -> Catalog {
        let text = #"""
            {"sourceLanguage": "en", "strings": {
              "unit.days": {"comment": "days", "localizations": {
                "en": {"variations": {"plural": {"one": {"stringUnit": {"state": "translated", "value": "{count} day"}},
                                                  "other": {"stringUnit": {"state": "translated", "value": "{count} days"}}}}},
                "ru": {"variations": {"plural": {"one": {"stringUnit": {"state": "translated", "value": "{count} день"}},
                                                  "few": {"stringUnit": {"state": "translated", "value": "{count} дня"}},
                                                  "many": {"stringUnit": {"state": "translated", "value": "{count} дней"}},
                                                  "other": {"stringUnit": {"state": "translated", "value": "{count} дня"}}}}}}},
              "greet": {"comment": "a greeting", "localizations": {"en": {"stringUnit": {"state": "translated", "value": "Hello, {name}, on {day}"}},
                                                                  "ar": {"stringUnit": {"state": "translated", "value": "مرحبا {name}، {day}"}}}},
              "only.english": {"comment": "untranslated", "localizations": {"en": {"stringUnit": {"state": "translated", "value": "Only in English"}}}}
            }, "version": "1.0"}
            """#
        return try Catalog.parse(Data(text.utf8), name: "test.xcstrings")
    }

    @Test func messagesRenderInTheReadersLanguage() throws {
        let catalog = try catalog()
        let russian = Localizer(Language("ru")!, catalog: catalog)
        #expect([1, 3, 5, 21].map { russian(Message.count($0, .days)) } == ["1 день", "3 дня", "5 дней", "21 день"])
        #expect(Localizer(.english, catalog: catalog)(Message.count(1, .days)) == "1 day")
        // English is the fallback, message by message.
        #expect(russian("only.english") == "Only in English")
        let day = LocalDay(iso: "2026-12-14")!
        let german = Localizer(Language("de")!, catalog: catalog)
        #expect(german("greet", ["name": .text("Ada"), "day": .day(day, .long)]) == "Hello, Ada, on 14. Dezember 2026")
        // A Latin name inside Arabic is isolated from the sentence's direction.
        let arabic = Localizer(Language("ar")!, catalog: catalog)
        #expect(
            arabic("greet", ["name": .text("Kit"), "day": .day(day, .weekdayName)]).contains("\u{2068}Kit\u{2069}"))
        #expect(german.render(.number(1_234_567)) == "1.234.567")
        #expect(
            Localizer(.english, catalog: catalog).render(.list([.text("Ada"), .text("Bo"), .text("Cy")]))
                == "Ada, Bo and Cy")
        #expect(german.render(.list([.text("Ada"), .text("Bo")])) == "Ada und Bo")
        // Words not yet in the catalog show as written, never marked.
        #expect(Localizer(.pseudo, catalog: catalog)(.verbatim("Plain")) == "Plain")
        let pseudo = Localizer(.pseudo, catalog: catalog)("greet", ["name": .text("Ada"), "day": .day(day, .long)])
        #expect(pseudo.hasPrefix("[!! ") && pseudo.hasSuffix(" !!]") && pseudo.contains("Ada"), "\(pseudo)")
        #expect(pseudo.count >= "Hello, Ada, on December 14, 2026".count * 13 / 10)
    }

    /// The renderer writes whole numbers below a thousand without a formatter: the same as each
    /// shipped locale's own formatting, and placeholders fill around any text.
    @Test func smallNumbersAndPlaceholdersRenderAsTheLocaleWritesThem() throws {
        for language in Language.all {
            let l = Localizer(language, catalog: try catalog())
            for number in [0, 7, 42, 999, 1000, 1440, -3] {
                #expect(l.render(.number(number)) == number.formatted(.number.locale(language.locale)), "\(language)")
            }
        }
        let l = Localizer(.english, catalog: try catalog())
        #expect(l.fill("{a}-{b}", ["a": .number(1), "b": .text("x")]) == "1-x")
        #expect(l.fill("no braces", [:]) == "no braces" && l.fill("{unknown} and {", [:]) == "{unknown} and {")
        #expect(l.fill("é {a}ü{a}", ["a": .text("中")]) == "é 中ü中")
    }

    @Test func theLanguageIsChosenAsPeopleAndBrowsersSpellIt() {
        #expect(Language("de-AT")?.code == "de" && Language("zh-TW")?.code == "zh-Hant")
        #expect(Language("zh-hans")?.code == "zh-Hans" && Language("zh-cn")?.code == "zh-Hans")
        #expect(Language("pt_BR")?.code == "pt" && Language("nl") == nil)
        #expect(Language.best(acceptLanguage: "nl-NL,nl;q=0.9,de;q=0.8,en;q=0.7")?.code == "de")
        #expect(Language.best(acceptLanguage: "fr;q=0.3, ar")?.code == "ar")
        #expect(Language.best(acceptLanguage: "qps-ploc") == nil && Language.best(acceptLanguage: nil) == nil)
        #expect(Language("ar")!.isRightToLeft && !Language("de")!.isRightToLeft)
    }

    @Test func theBundledCatalogHasEveryPhrase() {
        let english = Localizer.english
        #expect(english(Message.count(1, .points)) == "1 point" && english(Message.count(2, .points)) == "2 points")
        #expect(english(Message.readingTime(seconds: 30)) == "< 1 min")
        for unit in Message.Unit.allCases { #expect(english.has("unit.\(unit.rawValue)"), "unit.\(unit.rawValue)") }
    }
}
