public import Foundation

/// One usage report from a device: an app was in use from `start` for `seconds`, on a device
/// whose clock was in `zone`.
public struct UsageRecord: Sendable, Equatable {
    public let token: String
    public let start: Date
    public let seconds: Int
    public let zone: TimeZoneID

    public init(token: String, start: Date, seconds: Int, zone: TimeZoneID) {
        self.token = token
        self.start = start
        self.seconds = seconds
        self.zone = zone
    }

    public var end: Date { start.addingTimeInterval(TimeInterval(seconds)) }

    /// The local days the report falls on, in the zone it was stamped with (the device's clock
    /// decides a report's day and time of day, not the child's zone at the time of settling).
    public var localDays: [LocalDay] {
        let zone = zone.timeZone
        var day = LocalDay(start, in: zone)
        let last = LocalDay(end.addingTimeInterval(-0.001), in: zone)
        var days: [LocalDay] = []
        while day <= last {
            days.append(day)
            day = day.adding(days: 1)
        }
        return days
    }
}

/// A stretch of use of one app within one local day (in the zone the device reported).
public struct UsagePiece: Sendable, Equatable {
    public let token: String
    public let day: LocalDay
    public let start: Date
    public let end: Date
    public let zone: TimeZone

    public var seconds: Double { end.timeIntervalSince(start) }
}

/// Usage as progress sees it: reports merged per app (overlaps and duplicates count once,
/// whatever order they came in) and cut at local midnight. Everything below is a pure
/// function of the set of reports, so late, repeated or reordered reports give the result
/// clean ones would.
public struct UsageTimeline: Sendable {
    public let pieces: [UsagePiece]

    public init(_ records: [UsageRecord]) {
        var pieces: [UsagePiece] = []
        var midnights = DayStarts()
        let byToken = Dictionary(grouping: records, by: \.token)
        for token in byToken.keys.sorted() {
            // Sort by start (then zone, so that equal starts always merge the same way).
            let sorted = byToken[token]!.sorted { ($0.start, $0.zone.identifier) < ($1.start, $1.zone.identifier) }
            var current: (start: Date, end: Date, zone: TimeZone)?
            for record in sorted where record.seconds > 0 {
                if let open = current, record.start <= open.end {
                    current = (open.start, max(open.end, record.end), open.zone)
                } else {
                    if let open = current {
                        Self.cut(token, open.start, open.end, open.zone, into: &pieces, midnights: &midnights)
                    }
                    current = (record.start, record.end, record.zone.timeZone)
                }
            }
            if let open = current {
                Self.cut(token, open.start, open.end, open.zone, into: &pieces, midnights: &midnights)
            }
        }
        self.pieces = pieces.sorted { ($0.start, $0.token) < ($1.start, $1.token) }
    }

    private init(pieces: [UsagePiece]) { self.pieces = pieces }

    /// The usage on local days up to `today` (the child's, in the zone a guardian set): a
    /// report stamped in a zone where it is already a later day counts on that day, once the
    /// child's today reaches it. Before, such a report completed and paid a period the child had
    /// not reached, and unlocked reward apps for now.
    public func through(_ today: LocalDay) -> UsageTimeline {
        UsageTimeline(pieces: pieces.filter { $0.day <= today })
    }

    private static func cut(
        _ token: String, _ start: Date, _ end: Date, _ zone: TimeZone, into pieces: inout [UsagePiece],
        midnights: inout DayStarts
    ) {
        var from = start
        while from < end {
            let day = LocalDay(from, in: zone)
            let next = midnights.start(of: day.adding(days: 1), in: zone)
            let to = min(end, next)
            pieces.append(UsagePiece(token: token, day: day, start: from, end: to, zone: zone))
            from = to
        }
    }

    /// Minutes and points per app and local day, over every learning app: what the ledger's
    /// earn entries are credited from. Whole minutes per app and day.
    public func earnings(catalog: [String: QuestApp]) -> [DayEarning] {
        var seconds: [DayKey: Double] = [:]
        for piece in pieces where catalog[piece.token]?.role == .learning {
            seconds[DayKey(token: piece.token, day: piece.day), default: 0] += piece.seconds
        }
        return seconds.map { key, total in
            let minutes = Int(total / 60)
            return DayEarning(
                token: key.token, day: key.day, minutes: minutes,
                points: minutes * (catalog[key.token]?.pointsPerMinute ?? 0))
        }.sorted { ($0.day, $0.token) < ($1.day, $1.token) }
    }

    struct DayKey: Hashable {
        let token: String
        let day: LocalDay
    }
}

/// Local midnights already computed (a Calendar computation each), per zone and day: usage
/// has many reports a day, so each day's start is computed once.
struct DayStarts {
    private var cache: [Key: Date] = [:]

    private struct Key: Hashable {
        let zone: String
        let day: Int
        let minute: Int
    }

    mutating func start(of day: LocalDay, in zone: TimeZone) -> Date {
        instant(day, minute: 0, zone: zone)
    }

    /// The instant a local wall-clock minute of `day` falls on in `zone` (a minute skipped by
    /// a DST change maps to the instant after the gap).
    mutating func instant(_ day: LocalDay, minute: Int, zone: TimeZone) -> Date {
        let key = Key(zone: zone.identifier, day: day.dayNumber, minute: minute)
        if let known = cache[key] { return known }
        let value: Date
        if minute == 0 {
            value = day.start(in: zone)
        } else if minute >= 1440 {
            value = instant(day.adding(days: 1), minute: 0, zone: zone)
        } else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let components = DateComponents(
                year: day.year, month: day.month, day: day.day, hour: minute / 60, minute: minute % 60)
            value = calendar.date(from: components) ?? day.start(in: zone).addingTimeInterval(TimeInterval(minute * 60))
        }
        cache[key] = value
        return value
    }
}

/// Learning minutes and points earned in one app on one local day.
public struct DayEarning: Sendable, Equatable, Hashable {
    public let token: String
    public let day: LocalDay
    public let minutes: Int
    public let points: Int

    public init(token: String, day: LocalDay, minutes: Int, points: Int) {
        self.token = token
        self.day = day
        self.minutes = minutes
        self.points = points
    }
}
