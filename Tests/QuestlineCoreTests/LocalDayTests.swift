import Foundation
import QuestlineCore
import Testing

private func zone(_ id: String) -> TimeZone { TimeZoneID(id)!.timeZone }
private func instant(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }

@Suite struct LocalDayTests {
    @Test func parsesAndPrintsISO() {
        #expect(day("2026-02-06").iso == "2026-02-06")
        #expect(LocalDay(year: 2024, month: 2, day: 29) != nil)
        #expect(LocalDay(year: 2026, month: 2, day: 29) == nil)
        #expect(LocalDay(year: 1900, month: 2, day: 29) == nil)
        #expect(LocalDay(year: 2000, month: 2, day: 29) != nil)
        for bad in [
            "2026-2-06", "2026-02-6", "20260206", "2026-13-01", "2026-00-10", "2026-04-31", "abcd-ef-gh", "",
            " 2026-02-06",
        ] {
            #expect(LocalDay(iso: bad) == nil, "\(bad) should be refused")
        }
    }

    @Test func dayNumbersRoundTripAndMatchFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        var date = calendar.date(from: DateComponents(year: 1899, month: 12, day: 25))!
        for _ in 0..<(366 * 4 + 400) {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let local = LocalDay(year: parts.year!, month: parts.month!, day: parts.day!)!
            #expect(LocalDay(dayNumber: local.dayNumber) == local)
            #expect(local.dayNumber == Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
            date = calendar.date(byAdding: .day, value: 53, to: date)!
        }
        #expect(day("1970-01-01").dayNumber == 0)
    }

    @Test func arithmeticCrossesMonthsYearsAndLeapDays() {
        #expect(day("2026-01-31").adding(days: 1) == day("2026-02-01"))
        #expect(day("2024-02-28").adding(days: 1) == day("2024-02-29"))
        #expect(day("2026-02-28").adding(days: 1) == day("2026-03-01"))
        #expect(day("2026-12-31").adding(days: 1) == day("2027-01-01"))
        #expect(day("2026-03-01").adding(days: -1) == day("2026-02-28"))
        #expect(day("2026-01-01").days(until: day("2027-01-01")) == 365)
        #expect(day("2024-01-01").days(until: day("2025-01-01")) == 366)
        #expect(day("2026-05-07") < day("2026-05-08"))
        #expect(day("2026-11-22").isoWeekday == 7)  // a Sunday
        #expect(day("2026-11-23").isoWeekday == 1)
    }

    @Test func codableUsesISOText() throws {
        let data = try JSONEncoder().encode([day("2026-05-07")])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-05-07"]"#)
        #expect(try JSONDecoder().decode([LocalDay].self, from: data) == [day("2026-05-07")])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([LocalDay].self, from: Data(#"["2026-02-30"]"#.utf8))
        }
    }
}

@Suite struct TimeZoneDayTests {
    /// The hours a local day lasts.
    private func hours(_ iso: String, _ id: String) -> Double {
        let range = day(iso).interval(in: zone(id))
        return range.upperBound.timeIntervalSince(range.lowerBound) / 3600
    }

    @Test func newYorkDSTStartAndEndDays() {
        #expect(hours("2026-03-08", "America/New_York") == 23)
        #expect(hours("2026-11-01", "America/New_York") == 25)
        #expect(hours("2026-03-09", "America/New_York") == 24)
        // 01:59:59 EST, then 03:00 EDT: both on the 8th.
        #expect(LocalDay(instant("2026-03-08T06:59:59Z"), in: zone("America/New_York")) == day("2026-03-08"))
        #expect(LocalDay(instant("2026-03-08T07:00:00Z"), in: zone("America/New_York")) == day("2026-03-08"))
        // The repeated hour at the end of DST stays on the 1st; midnight after it is the 2nd.
        #expect(LocalDay(instant("2026-11-01T05:30:00Z"), in: zone("America/New_York")) == day("2026-11-01"))
        #expect(LocalDay(instant("2026-11-01T06:30:00Z"), in: zone("America/New_York")) == day("2026-11-01"))
        #expect(LocalDay(instant("2026-11-02T04:59:59Z"), in: zone("America/New_York")) == day("2026-11-01"))
        #expect(LocalDay(instant("2026-11-02T05:00:00Z"), in: zone("America/New_York")) == day("2026-11-02"))
        #expect(day("2026-11-02").start(in: zone("America/New_York")) == instant("2026-11-02T05:00:00Z"))
    }

    @Test func berlinDSTStartAndEndDays() {
        #expect(hours("2026-03-29", "Europe/Berlin") == 23)
        #expect(hours("2026-10-25", "Europe/Berlin") == 25)
        #expect(day("2026-03-29").start(in: zone("Europe/Berlin")) == instant("2026-03-28T23:00:00Z"))
        #expect(day("2026-03-30").start(in: zone("Europe/Berlin")) == instant("2026-03-29T22:00:00Z"))
        #expect(LocalDay(instant("2026-10-25T22:59:59Z"), in: zone("Europe/Berlin")) == day("2026-10-25"))
        #expect(LocalDay(instant("2026-10-25T23:00:00Z"), in: zone("Europe/Berlin")) == day("2026-10-26"))
    }

    @Test func dayStartsEvenWhenMidnightIsSkipped() {
        // Santiago springs forward at 24:00 on the first Saturday of September: the 6th of
        // September 2026 has no 00:00 and begins at 01:00 local time (04:00 UTC).
        let santiago = zone("America/Santiago")
        let start = day("2026-09-06").start(in: santiago)
        #expect(LocalDay(start, in: santiago) == day("2026-09-06"))
        #expect(LocalDay(start.addingTimeInterval(-1), in: santiago) == day("2026-09-05"))
        #expect(hours("2026-09-06", "America/Santiago") == 23)
    }

    @Test func halfAndQuarterHourOffsets() {
        // Kolkata is UTC+05:30 all year: its midnight is 18:30 UTC the day before.
        #expect(LocalDay(instant("2026-05-06T18:29:59Z"), in: zone("Asia/Kolkata")) == day("2026-05-06"))
        #expect(LocalDay(instant("2026-05-06T18:30:00Z"), in: zone("Asia/Kolkata")) == day("2026-05-07"))
        #expect(hours("2026-05-07", "Asia/Kolkata") == 24)
        // Kathmandu is UTC+05:45.
        #expect(LocalDay(instant("2026-05-06T18:14:59Z"), in: zone("Asia/Kathmandu")) == day("2026-05-06"))
        #expect(LocalDay(instant("2026-05-06T18:15:00Z"), in: zone("Asia/Kathmandu")) == day("2026-05-07"))
        // Adelaide is UTC+09:30, +10:30 in summer; its DST ends on 5 April 2026 (a 25-hour day).
        #expect(hours("2026-04-05", "Australia/Adelaide") == 25)
        #expect(day("2026-04-06").start(in: zone("Australia/Adelaide")) == instant("2026-04-05T14:30:00Z"))
    }

    @Test func flyingEastAcrossTheDateLineRepeatsADay() {
        // Leave Auckland (UTC+13) at 20:00 on 10 March, land in Honolulu (UTC-10) nine hours
        // later: it is 10 March again, early morning. Both reads are the same local day.
        let departure = instant("2026-03-10T07:00:00Z")
        let arrival = departure.addingTimeInterval(9 * 3600)
        let before = LocalDay(departure, in: zone("Pacific/Auckland"))
        let after = LocalDay(arrival, in: zone("Pacific/Honolulu"))
        #expect(before == day("2026-03-10"))
        #expect(after == day("2026-03-10"))
        #expect(before.days(until: after) == 0)
    }

    @Test func flyingWestAcrossTheDateLineSkipsADay() {
        // Leave Honolulu at 22:00 on 11 March, land in Auckland ten hours later: it is 13 March
        // there. The member's local days go 11 -> 13: no 12 March was lived.
        let departure = instant("2026-03-12T08:00:00Z")
        let arrival = departure.addingTimeInterval(10 * 3600)
        let before = LocalDay(departure, in: zone("Pacific/Honolulu"))
        let after = LocalDay(arrival, in: zone("Pacific/Auckland"))
        #expect(before == day("2026-03-11"))
        #expect(after == day("2026-03-13"))
        #expect(before.days(until: after) == 2)
    }

    @Test func samoaSkippedThirtiethOfDecember2011() {
        // Pacific/Apia moved across the date line: 29 December 2011 was followed by the 31st.
        let apia = zone("Pacific/Apia")
        #expect(LocalDay(instant("2011-12-30T09:59:59Z"), in: apia) == day("2011-12-29"))
        #expect(LocalDay(instant("2011-12-30T10:00:00Z"), in: apia) == day("2011-12-31"))
    }

    @Test func clockGivesTodayInTheMembersZone() {
        let clock = ManualClock(instant("2026-11-22T23:30:00Z"))
        #expect(clock.today(in: zone("UTC")) == day("2026-11-22"))
        #expect(clock.today(in: zone("Europe/Berlin")) == day("2026-11-23"))
        #expect(clock.today(in: zone("America/Los_Angeles")) == day("2026-11-22"))
        clock.advance(by: 3600)
        #expect(clock.today(in: zone("UTC")) == day("2026-11-23"))
    }

    @Test func onlyIANANamesAreTimeZones() {
        for good in [
            "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Apia",
            "America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC",
        ] {
            #expect(TimeZoneID(good) != nil, "\(good)")
        }
        for bad in [
            "", "GMT+5", "+05:30", "EST", "Mars/Olympus_Mons", "europe/berlin", "Europe/Berlin ", "Europe/Berlin/Extra",
            "../etc/passwd", "Europe//Berlin", String(repeating: "A", count: 100),
        ] {
            #expect(TimeZoneID(bad) == nil, "\(bad)")
        }
    }
}
