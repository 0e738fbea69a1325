import Foundation
import Testing

@testable import QuestlineCore

/// Answers kept for reuse: made once, the same when asked again, forgotten when the memo is full.
@Suite struct MemoTests {
    @Test func anAnswerIsMadeOnceAndForgottenWhenTheMemoIsFull() {
        let memo = Memo<Int, String>(limit: 2)
        var made = 0
        func ask(_ key: Int) -> String {
            memo.value(key) {
                made += 1
                return "answer \(key)"
            }
        }
        #expect(ask(1) == "answer 1")
        #expect(ask(1) == "answer 1")
        #expect(made == 1)
        _ = ask(2)
        #expect(made == 2)
        // Full: the third key starts it over, so the first is made again.
        _ = ask(3)
        _ = ask(1)
        #expect(made == 4)
    }

    @Test func aKeptDayStartIsTheCalendarsOnEveryDayOfTheYearInZonesWithTransitions() {
        let zones = ["Europe/Berlin", "America/Santiago", "America/Havana", "Australia/Lord_Howe", "Pacific/Apia"]
            .compactMap(TimeZone.init(identifier:))
        for zone in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            var day = LocalDay(year: 2026, month: 1, day: 1)!
            while day.year == 2026 {
                let noon = calendar.date(
                    from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!
                let fresh = calendar.startOfDay(for: noon)
                #expect(day.start(in: zone) == fresh, "\(day.iso) in \(zone.identifier)")
                #expect(day.start(in: zone) == fresh, "\(day.iso) in \(zone.identifier), asked again")
                day = day.adding(days: 1)
            }
        }
    }
}
