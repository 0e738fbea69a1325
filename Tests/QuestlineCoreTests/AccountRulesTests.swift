import Foundation
import QuestlineCore
import QuestlineL10n
import Testing

@Suite struct AccountRulesTests {
    @Test func emailsAreNormalisedOrRefusedNamingTheField() throws {
        #expect(try AccountRules.email("  Ada@Example.COM ") == "ada@example.com")
        for bad in [
            "", "ada", "ada@", "@example.com", "ada@example", "a b@example.com", "ada@@example.com", "ada@.com",
        ] {
            #expect(throws: DomainError.invalid(field: "email", Message("accounts.error.emailShape"))) {
                try AccountRules.email(bad)
            }
        }
        #expect(Localizer.english("accounts.error.emailShape") == "Enter an e-mail address like name@example.com.")
    }

    /// `LoginName.key`: one key for every spelling of a login name (sign-up, lookup, lockout).
    @Test func loginNamesHaveOneKey() throws {
        let same: [(String, String)] = [
            ("Ada@Example.COM", "ada@example.com"),
            (" ada@example.com\t", "ada@example.com"),
            ("ada@example.com\n", "ada@example.com"),
            ("ada@example.com\r\n", "ada@example.com"),
            ("\u{2028}ada@example.com\u{2029}", "ada@example.com"),  // line and paragraph separators
            ("ada@example.com\u{85}", "ada@example.com"),  // NEL
            ("\u{A0}ada@example.com\u{3000}", "ada@example.com"),  // no-break and ideographic spaces
            ("\u{200B}ada@example.com\u{FEFF}", "ada@example.com"),  // zero-width space, byte-order mark
            ("ada@example.com\u{200D}\u{2060}\u{AD}", "ada@example.com"),  // joiner, word joiner, soft hyphen
            ("Jose\u{301}@example.com", "jos\u{E9}@example.com"),  // decomposed é: NFC
            ("JOS\u{C9}@example.com", "jos\u{E9}@example.com"),
            ("Stra\u{DF}e@example.com", "strasse@example.com"),  // full case folding
            ("\u{FB01}le@example.com", "file@example.com"),  // the ﬁ ligature folds to fi
            ("\u{212B}ngstrom", "\u{E5}ngstrom"),  // the Angstrom sign is Å: NFC, then folded
            ("Demo-Kid", "demo-kid"),
        ]
        for (typed, key) in same {
            #expect(LoginName.key(typed) == key, "\(typed.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(LoginName.key(" \u{200B}\n ") == "")
        // Inside a name, invisible characters stay: such a name is another (refused at sign-up).
        #expect(LoginName.key("ad\u{200B}a@example.com") != "ada@example.com")
        #expect(throws: DomainError.self) { try AccountRules.email("ad\u{200B}a@example.com") }
        #expect(throws: DomainError.self) { try AccountRules.email("ada@exa\u{2028}mple.com") }
        // Sign-up stores the key: the same account whatever the spelling.
        #expect(try AccountRules.email("\u{2028}Stra\u{DF}e@Example.com ") == "strasse@example.com")
        #expect(try AccountRules.username("Kid.One\u{85}") == "kid.one")
    }

    @Test func passwordsAreLongEnoughAndFitBcrypt() throws {
        #expect(try AccountRules.password("12345678") == "12345678")
        #expect(throws: DomainError.self) { try AccountRules.password("1234567") }
        #expect(throws: DomainError.self) { try AccountRules.password(String(repeating: "é", count: 40)) }  // 80 bytes
        // Said in letters, not bytes (a person does not count bytes).
        do {
            _ = try AccountRules.password(String(repeating: "a", count: 73))
            Issue.record("a 73-letter password was accepted")
        } catch {
            let text = Localizer.english(error.message)
            #expect(!text.contains("bytes") && text.contains("72 letters"), "\(text)")
        }
    }

    @Test func namesAndUsernames() throws {
        #expect(try AccountRules.displayName("  Ada  ") == "Ada")
        #expect(throws: DomainError.self) { try AccountRules.displayName("   ") }
        #expect(throws: DomainError.self) { try AccountRules.displayName(String(repeating: "x", count: 51)) }
        #expect(throws: DomainError.self) { try AccountRules.displayName("Ada\u{0007}") }
        #expect(try AccountRules.username("Kid.One") == "kid.one")
        for bad in ["ab", "with space", "emoji😀", String(repeating: "k", count: 33), "at@sign"] {
            #expect(throws: DomainError.self) { try AccountRules.username(bad) }
        }
    }

    @Test func validationCollectsEveryField() {
        var validation = FieldValidation()
        _ = validation.check { () throws(DomainError) in try AccountRules.email("nope") }
        _ = validation.check { () throws(DomainError) in try AccountRules.password("short") }
        _ = validation.check { () throws(DomainError) in try AccountRules.timeZone("Mars/Base") }
        #expect(validation.issues.map(\.field) == ["email", "password", "timeZone"])
        #expect(throws: DomainError.self) { try validation.finish() }
    }
}

@Suite struct RandomUUIDTests {
    /// Version 4, RFC 9562 variant, and 122 random bits: no two alike in 10,000, and every
    /// random hex digit takes many values.
    @Test func randomUUIDsAreVersionFourAndDistinct() {
        let ids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let text = id.uuidString.lowercased()
            #expect(Array(text)[14] == "4", "\(text)")
            #expect("89ab".contains(Array(text)[19]), "\(text)")
            #expect(UUID(uuidString: text) == id)
        }
        let firstDigits = Set(ids.map { $0.uuidString.first! })
        #expect(firstDigits.count == 16)
    }

    @Test func timeOrderedUUIDsCarryTheClocksMillisecondsAndSortByThem() {
        // 2026-03-29 01:00:00.123 UTC, the start of Europe's summer time: ids know no zones.
        let instant = Date(timeIntervalSince1970: 1_774_746_000.123_4)
        let clock = ManualClock(instant)
        let ids = TimeOrderedIDGenerator(clock: clock)
        let sameMillisecond = (0..<10_000).map { _ in ids.makeUUID().uuidString.lowercased() }
        #expect(Set(sameMillisecond).count == sameMillisecond.count)
        let prefix = "019d371a-dafb-7"  // 1,774,746,000,123 ms in hex, then version 7
        for text in sameMillisecond {
            #expect(text.hasPrefix(prefix), "\(text)")
            #expect("89ab".contains(Array(text)[19]), "\(text)")
        }
        // A millisecond later sorts after every id of the one before.
        clock.advance(by: 0.001)
        let later = ids.makeUUID()
        #expect(sameMillisecond.allSatisfy { $0 < later.uuidString.lowercased() })
        #expect(UUID.timeOrdered(at: Date(timeIntervalSince1970: -5)).uuidString.hasPrefix("00000000-0000-7"))
    }
}
