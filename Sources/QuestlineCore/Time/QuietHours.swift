public import Foundation

/// A member's quiet hours: no notification is produced, or pushed, from `start` until `end`
/// (local hours, 0–23; `start > end` spans midnight; `start == end` is never quiet).
public struct QuietHours: Sendable, Equatable, Codable {
    public let start: Int
    public let end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Children's default: 20:00 to 07:00.
    public static let children = QuietHours(start: 20, end: 7)

    public func contains(hour: Int) -> Bool {
        start == end ? false : start < end ? (start..<end).contains(hour) : hour >= start || hour < end
    }

    /// The first instant at or after `now` outside the quiet hours, in `zone`: `now` itself
    /// when it is not quiet, else the next local `end:00` (on a day where that hour is skipped
    /// by a DST change, the first instant after the gap).
    public func nextAllowed(after now: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard contains(hour: calendar.component(.hour, from: now)) else { return now }
        return calendar.nextDate(
            after: now, matching: DateComponents(hour: end, minute: 0, second: 0), matchingPolicy: .nextTime,
            repeatedTimePolicy: .first, direction: .forward) ?? now
    }
}
