public import Foundation

/// Hours of the local day, from `start` until `end` (0–23; `start > end` spans midnight;
/// `start == end` is none): a member's quiet hours (no notification is produced or pushed), a
/// child's downtime (reward apps stay shielded).
public struct LocalHours: Sendable, Equatable, Codable {
    public let start: Int
    public let end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Children's default: 20:00 to 07:00.
    public static let children = LocalHours(start: 20, end: 7)

    /// Hours a member chose (quiet hours, downtime), or none: each an hour from 0 to 23, both or
    /// neither, and two different hours (from 21:00 to 21:00 would be none at all, and
    /// accepting it would let a member believe it is set). Issues name `field.start`,
    /// `field.end` or `field`.
    public static func validated(start: Int?, end: Int?, field: String) throws(DomainError) -> LocalHours? {
        var issues: [FieldIssue] = []
        for (name, hour) in [("\(field).start", start), ("\(field).end", end)] {
            if let hour, !(0...23).contains(hour) {
                issues.append(FieldIssue(field: name, message: Message("input.error.hour")))
            }
        }
        if (start == nil) != (end == nil) {
            issues.append(FieldIssue(field: field, message: Message("input.error.hoursBoth")))
        }
        if let start, let end, start == end {
            issues.append(
                FieldIssue(field: field, message: Message("input.error.hoursSame")))
        }
        if !issues.isEmpty { throw .invalid(issues) }
        return start.flatMap { start in end.map { LocalHours(start: start, end: $0) } }
    }

    public func contains(hour: Int) -> Bool {
        start == end ? false : start < end ? (start..<end).contains(hour) : hour >= start || hour < end
    }

    /// The first instant at or after `now` outside these hours, in `zone`: `now` itself when
    /// it is outside, else the next local `end:00` (on a day where that hour is skipped by a
    /// DST change, the first instant after the gap).
    public func nextAllowed(after now: Date, in zone: TimeZone) -> Date {
        contains(now, in: zone) ? Self.next(hour: end, after: now, in: zone) : now
    }

    /// Whether `instant` falls in these hours, in `zone`.
    public func contains(_ instant: Date, in zone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return contains(hour: calendar.component(.hour, from: instant))
    }

    /// The next instant after `now` at which these hours begin or end, in `zone` (nil when
    /// they are empty).
    public func nextBoundary(after now: Date, in zone: TimeZone) -> Date? {
        guard start != end else { return nil }
        return min(Self.next(hour: start, after: now, in: zone), Self.next(hour: end, after: now, in: zone))
    }

    /// The next local `hour:00` after `now` (the first instant after a DST gap that skips it).
    static func next(hour: Int, after now: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.nextDate(
            after: now, matching: DateComponents(hour: hour, minute: 0, second: 0), matchingPolicy: .nextTime,
            repeatedTimePolicy: .first, direction: .forward) ?? now.addingTimeInterval(3600)
    }
}
