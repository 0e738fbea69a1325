import Foundation
import OpenAPIRuntime
import QuestlineCore

/// RFC 3339 instants (`2026-05-10T08:30:00Z`, `2026-05-10T10:30:00.250+02:00`) parsed and
/// printed with integer arithmetic. The runtime's default transcoder goes through ICU's date
/// formatter behind a lock, which the profile showed dominating batches of reads.
/// Output is UTC with milliseconds only when there are some.
public struct RFC3339DateTranscoder: DateTranscoder {
    public init() {}

    public struct InvalidDate: Error, CustomStringConvertible {
        public let text: String
        public var description: String {
            "Expected an RFC 3339 date-time from 1900 to 2199 like 2026-05-10T08:30:00Z, got \"\(text.prefix(40))\""
        }
    }

    /// Parses an instant from a request or a response; one outside `DateWindow` (1900–2199) is
    /// refused here, at the edge, before any arithmetic on it.
    public func decode(_ text: String) throws -> Date {
        guard let date = Self.parse(text), DateWindow.instants.contains(date) else { throw InvalidDate(text: text) }
        return date
    }

    public func encode(_ date: Date) throws -> String { Self.format(date) }

    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for i in start..<start + count {
                guard i < b.count, (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
            b[10] == 84 || b[10] == 116 || b[10] == 32,
            let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58, let second = digits(17, 2),
            hour < 24, minute < 60, second < 61,
            let date = LocalDay(year: year, month: month, day: day)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < b.count, b[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, (48...57).contains(b[index]) {
                fraction += Double(b[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        switch b[index] {
        case 90, 122:  // Z, z
            guard index + 1 == b.count else { return nil }
        case 43, 45:  // +, -
            guard index + 6 == b.count, let oh = digits(index + 1, 2), b[index + 3] == 58,
                let om = digits(index + 4, 2), oh < 24, om < 60
            else {
                return nil
            }
            offset = (oh * 3600 + om * 60) * (b[index] == 43 ? 1 : -1)
        default:
            return nil
        }
        let seconds = date.dayNumber * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    public static func format(_ date: Date) -> String {
        let totalMillis = Int((date.timeIntervalSince1970 * 1000).rounded())
        let millis = ((totalMillis % 1000) + 1000) % 1000
        let seconds = (totalMillis - millis) / 1000
        let dayNumber = Int((Double(seconds) / 86_400).rounded(.down))
        let day = LocalDay(dayNumber: dayNumber)
        let secondOfDay = seconds - dayNumber * 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        var text =
            day.iso + "T" + two(secondOfDay / 3600) + ":" + two(secondOfDay / 60 % 60) + ":" + two(secondOfDay % 60)
        if millis != 0 {
            text += "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + String(millis)
        }
        return text + "Z"
    }
}

extension OpenAPIRuntime.Configuration {
    /// The configuration Questline's server and client share.
    public static var questline: Self {
        .init(dateTranscoder: RFC3339DateTranscoder(), jsonEncodingOptions: [.sortedKeys])
    }
}
