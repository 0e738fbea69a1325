import Foundation
import QuestlineCore
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

/// `Wording`: counts, dates and times as sentences read them.
@Suite struct WordingTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    func at(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func countsAndDates() {
        #expect(Wording.count(1, "day") == "1 day" && Wording.count(0, "day") == "0 days")
        #expect(Wording.count(2, "child", "children") == "2 children")
        let day = LocalDay(iso: "2026-12-14")!
        #expect(Wording.date(day) == "14 December 2026" && Wording.longDate(day) == "Monday 14 December 2026")
        #expect(Wording.shortDay(day) == "Mon 14" && Wording.month(day) == "December 2026")
        #expect(Wording.year(-44) == "44 BC")
    }

    @Test func untilAndAtReadTheSameOnEveryScreen() {
        let now = at("2026-05-07T10:00:00Z")  // 12:00 in Berlin
        #expect(Wording.until(at("2026-05-07T22:00:00Z"), now: now, in: berlin) == "until midnight")
        #expect(Wording.until(at("2026-05-07T19:00:00Z"), now: now, in: berlin) == "until 21:00")
        #expect(Wording.until(at("2026-05-08T05:00:00Z"), now: now, in: berlin) == "until 07:00 tomorrow")
        #expect(Wording.until(at("2026-05-10T05:00:00Z"), now: now, in: berlin) == "until 07:00 on 10 May 2026")
        #expect(Wording.at(at("2026-05-06T19:05:00Z"), now: now, in: berlin) == "yesterday at 21:05")
        #expect(Wording.at(at("2026-05-07T08:30:00Z"), now: now, in: berlin) == "10:30")
        #expect(Wording.at(at("2026-05-07T22:00:00Z"), now: now, in: berlin) == "midnight")
    }
}
