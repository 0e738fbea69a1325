import Foundation
import QuestlineCore
import QuestlineL10n
import QuestlineTestSupport
import Testing

@Suite struct TrimmingTests {
    /// Property: on random strings of spaces of every kind, line breaks, combining marks,
    /// format characters, emoji and letters, `trimmed` returns what Foundation returns.
    @Test func trimmingMatchesFoundationOnRandomStrings() {
        let pool: [Unicode.Scalar] = [
            "a", "Z", "é", "\u{301}", "\u{200B}", "\u{200D}", "\u{FEFF}", "👍", "\u{1F3FD}", " ", "\t", "\n", "\r",
            "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{2009}", "\u{200A}", "\u{2028}",
            "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{180E}", "中", "ß",
        ]
        var generator = SeededGenerator(seed: 17)
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                text.append(pool.randomElement(using: &generator)!)
            }
            let string = String(text)
            let scalars = string.unicodeScalars.map { String($0.value, radix: 16) }
            #expect(string.trimmed() == string.trimmingCharacters(in: .whitespacesAndNewlines), "\(scalars)")
            #expect(string.trimmed(newlines: false) == string.trimmingCharacters(in: .whitespaces), "\(scalars)")
        }
        #expect(
            "  Octopus \n".trimmed() == "Octopus" && " \t ".trimmed().isEmpty && "a\n".trimmed(newlines: false) == "a\n"
        )
    }

    @Test func controlCharactersAreC0AndC1OnlyNotFormatCharacters() {
        for control in ["\u{0}", "\u{1}", "\t", "\n", "\r", "\u{1F}", "\u{7F}", "\u{85}", "\u{9F}"] {
            #expect(("Oct" + control + "opus").containsControlCharacter, "\(control.unicodeScalars.map(\.value))")
        }
        for fine in ["Octopus", "Ünïcödé", "👩\u{200D}💻", "a\u{200E}b", "\u{A0}", "\u{FEFF}x", "中文", ""] {
            #expect(!fine.containsControlCharacter, "\(fine.unicodeScalars.map(\.value))")
        }
    }
}

/// The shared phrases (`Phrases.swift`) as every screen reads them, in English.
@Suite struct PhraseTests {
    let berlin = TimeZoneID("Europe/Berlin")!
    let english = Localizer.english
    func at(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func countsAndDays() {
        #expect(english(Message.count(1, .days)) == "1 day" && english(Message.count(0, .days)) == "0 days")
        let day = LocalDay(iso: "2026-12-14")!
        #expect(english.format(day, .long) == "14 December 2026")
        #expect(english.render(.year(-44)) == "44 BC" && english.render(.year(1944)) == "1944")
    }

    @Test func untilAndAtReadTheSameOnEveryScreen() {
        let now = at("2026-05-07T10:00:00Z")  // 12:00 in Berlin
        func until(_ text: String) -> String { english(Message.until(at(text), now: now, in: berlin)) }
        func atTime(_ text: String) -> String { english(Message.at(at(text), now: now, in: berlin)) }
        #expect(until("2026-05-07T22:00:00Z") == "until midnight")
        #expect(until("2026-05-07T19:00:00Z") == "until 21:00")
        #expect(until("2026-05-08T05:00:00Z") == "until 07:00 tomorrow")
        #expect(until("2026-05-10T05:00:00Z") == "until 07:00 on 10 May 2026")
        #expect(atTime("2026-05-06T19:05:00Z") == "yesterday at 21:05")
        #expect(atTime("2026-05-07T08:30:00Z") == "10:30")
        #expect(atTime("2026-05-07T22:00:00Z") == "midnight")
    }
}
