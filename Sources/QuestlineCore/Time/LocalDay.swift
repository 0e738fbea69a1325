public import Foundation

/// A calendar day (year, month, day) with no time zone attached: "the member's today".
///
/// A `LocalDay` is always computed from an instant plus an IANA time zone, as a calendar day,
/// never by adding 86,400 seconds. Its text form is ISO 8601 `YYYY-MM-DD`.
public struct LocalDay: Hashable, Comparable, Sendable {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Creates a day, or returns nil when the date does not exist in the Gregorian calendar.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= LocalDay.daysInMonth(year: year, month: month)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The calendar day that `instant` falls on in `timeZone`: the UTC day of the instant
    /// shifted by the zone's offset at that instant (integer arithmetic; no Calendar, which is
    /// about twenty times slower and sits on every hot path).
    public init(_ instant: Date, in timeZone: TimeZone) {
        let local = instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant))
        self.init(dayNumber: Int((local / 86_400).rounded(.down)))
    }

    /// Parses `YYYY-MM-DD` strictly (four-digit year, two-digit month and day).
    public init?(iso string: some StringProtocol) {
        let bytes = Array(string.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD`.
    public var iso: String {
        let y = String(year)
        let m = String(month)
        let d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-"
            + (m.count == 1 ? "0" + m : m) + "-" + (d.count == 1 ? "0" + d : d)
    }

    /// Days since 1970-01-01 (proleptic Gregorian), exact integer arithmetic.
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The day with the given day number (inverse of `dayNumber`).
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.month = m
        self.day = d
    }

    /// This day moved by `days` calendar days (negative goes back).
    public func adding(days: Int) -> LocalDay { LocalDay(dayNumber: dayNumber + days) }

    /// The first day of this day's month.
    public var firstOfMonth: LocalDay { adding(days: 1 - day) }

    /// The last day of this day's month.
    public var lastOfMonth: LocalDay { adding(days: LocalDay.daysInMonth(year: year, month: month) - day) }

    /// The number of calendar days from `self` to `other` (positive when `other` is later).
    public func days(until other: LocalDay) -> Int { other.dayNumber - dayNumber }

    /// ISO weekday: 1 = Monday ... 7 = Sunday.
    public var isoWeekday: Int {
        let w = (dayNumber + 3) % 7  // 1970-01-01 was a Thursday (3 when Monday is 0)
        return (w < 0 ? w + 7 : w) + 1
    }

    /// The Monday of this day's ISO week (Monday to Sunday): weekly quests, co-op quests and
    /// league weeks all start on it.
    public var monday: LocalDay { adding(days: 1 - isoWeekday) }

    /// The instant this day starts in `timeZone` (the first instant of the day, which is not
    /// always 00:00 on days where a DST change skips midnight).
    public func start(in timeZone: TimeZone) -> Date {
        LocalDay.starts.value(ZonedDay(day: self, zone: timeZone)) {
            let calendar = LocalDay.calendar(timeZone)
            let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
            return calendar.startOfDay(for: noon)
        }
    }

    /// A day in a zone: the key of the days' first instants kept (`start(in:)`, which the
    /// calendar takes a while to work out and every settlement and widget asks for).
    struct ZonedDay: Hashable, Sendable {
        let day: LocalDay
        let zone: TimeZone
    }

    static let starts = Memo<ZonedDay, Date>(limit: 20_000)

    /// The first instant of the local day after the one holding `instant` in `zone` (its next
    /// midnight, whatever that day's length).
    public static func nextMidnight(after instant: Date, in zone: TimeZone) -> Date {
        LocalDay(instant, in: zone).adding(days: 1).start(in: zone)
    }

    /// The instants `[start, end)` this day covers in `timeZone`: 23, 24 or 25 hours long, or
    /// another length in zones with unusual transitions.
    public func interval(in timeZone: TimeZone) -> Range<Date> {
        start(in: timeZone)..<adding(days: 1).start(in: timeZone)
    }

    public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}

extension LocalDay: CustomStringConvertible {
    public var description: String { iso }
}

extension LocalDay: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = LocalDay(iso: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected a date as YYYY-MM-DD, got \"\(text)\"")
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }
}
