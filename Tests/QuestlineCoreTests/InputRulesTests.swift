import Foundation
import QuestlineCore
import QuestlineL10n
import Testing

/// The rules every request's input meets: the text rule, the date window, paging bounds.
@Suite struct InputRulesTests {
    @Test(arguments: [
        ("plain text", false, true), ("café ☕️ 👩‍👩‍👧", false, true), ("right\u{200F}to-left mark", false, true),
        ("a\u{0}b", false, false), ("a\u{0}b", true, false), ("a\u{7}b", true, false), ("a\u{7F}b", false, false),
        ("a\u{85}b", false, false), ("a\u{9F}b", true, false), ("\u{A0}non-breaking", false, true),
        ("two\nlines", false, false), ("two\nlines", true, true), ("tab\there", false, false),
        ("tab\there", true, true),
        ("crlf\r\nlines", true, true), ("crlf\r\nlines", false, false),
    ])
    func theTextRuleRefusesControlCharactersAndLineBreaksOutsideMultiLineFields(
        text: String, multiline: Bool, allowed: Bool
    ) {
        #expect((TextRule.issue(text, field: "f", multiline: multiline) == nil) == allowed)
    }

    @Test func multiLineFieldsAreKnownByTheLastNameOfTheirPath() throws {
        #expect(TextRule.issue("a\nb", field: "bio") == nil)
        #expect(TextRule.issue("a\nb", field: "profile.bio") == nil)
        #expect(TextRule.issue("a\nb", field: "comments[2].text") == nil)
        let issue = try #require(TextRule.issue("a\nb", field: "items[3].title"))
        #expect(issue.field == "items[3].title")
        #expect(throws: DomainError.invalid(field: "password", Message("input.error.controlCharacters"))) {
            try AccountRules.password("abcdefgh\u{0}XYZ")
        }
        #expect(
            Localizer.english("input.error.controlCharacters")
                == "Remove control characters (NUL, line breaks, tabs and the like).")
    }

    @Test func theDateWindowRunsFrom1900To2199() throws {
        #expect(DateWindow.firstDay.iso == "1900-01-01")
        #expect(DateWindow.lastDay.iso == "2199-12-31")
        #expect(DateWindow.wikipediaLaunch.iso == "2001-01-15")
        #expect(try DateWindow.day("2199-12-31", field: "d").iso == "2199-12-31")
        for outside in ["0001-01-01", "1899-12-31", "2200-01-01", "9999-12-31"] {
            #expect(throws: DomainError.self) { try DateWindow.day(outside, field: "d") }
        }
        // A date field left empty (a page's date picker sends YYYY-MM-DD or nothing): "choose".
        #expect(throws: DomainError.invalid(field: "start", Message("input.error.chooseDate"))) {
            try DateWindow.day("", field: "start")
        }
        let shape = Message("input.error.dateShape", ["example": .text("2026-05-01")])
        #expect(throws: DomainError.invalid(field: "endDate", shape)) {
            try DateWindow.day("10000-01-01", field: "endDate")
        }
        #expect(Localizer.english(shape) == "Use a date like 2026-05-01.")
        let outside = try #require(
            DateWindow.readingIssue(try Date("2200-01-01T00:00:00Z", strategy: .iso8601), field: "at"))
        #expect(Localizer.english(outside.message) == "Use a date from 1900-01-01 to 2199-12-31.")
        let instant = { (text: String) in try Date(text, strategy: .iso8601) }
        #expect(DateWindow.readingIssue(try instant("2001-01-15T00:00:00Z"), field: "at") == nil)
        #expect(DateWindow.readingIssue(try instant("2001-01-14T23:59:59Z"), field: "at")?.field == "at")
        #expect(DateWindow.readingIssue(try instant("2200-01-01T00:00:00Z"), field: "at")?.field == "at")
        #expect(DateWindow.instants.contains(try instant("2199-12-31T23:59:59Z")))
        #expect(!DateWindow.instants.contains(try instant("1899-12-31T23:59:59Z")))
    }

    @Test func pagingIsRefusedOutsideItsBoundsNamingEachParameter() throws {
        let page = try Paging(limit: nil, offset: nil)
        #expect(page.limit == 50 && page.offset == 0)
        do {
            _ = try Paging(limit: -1, offset: Int.max)
            Issue.record("a page outside its bounds was accepted")
        } catch {
            guard case .invalid(let issues) = error else { throw error }
            #expect(issues.map(\.field) == ["limit", "offset"])
            #expect(
                issues.map { Localizer.english($0.message) } == [
                    "Use a limit from 1 to 200.", "Use an offset from 0 to 1000000.",
                ])
        }
        #expect(throws: DomainError.self) { try Paging(limit: 201, offset: 0) }
        #expect(try Paging(limit: 200, offset: 1_000_000).offset == 1_000_000)
    }

    @Test func monthsStartAndEndWithoutLeavingTheCalendar() throws {
        let leap = try #require(LocalDay(year: 2028, month: 2, day: 17))
        #expect(leap.firstOfMonth.iso == "2028-02-01")
        #expect(leap.lastOfMonth.iso == "2028-02-29")
        let december = try #require(LocalDay(year: 9999, month: 12, day: 31))
        #expect(december.firstOfMonth.iso == "9999-12-01")
        #expect(december.lastOfMonth == december)
    }
}
