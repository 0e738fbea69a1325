public import Foundation

/// A guardian's week of one child, Monday to Sunday in the child's local days (the week co-op
/// quests and leagues run on, `LocalDay.monday`): per day, learning minutes, quests completed,
/// points earned and spent. Pure: built from the child's rows and zone.
public struct WeeklyReport: Sendable, Equatable {
    public struct Day: Sendable, Equatable {
        public let day: LocalDay
        public var learningMinutes = 0
        public var questsCompleted = 0
        public var pointsEarned = 0
        public var pointsSpent = 0
    }

    public let days: [Day]

    public let first: LocalDay
    public var last: LocalDay { first.adding(days: 6) }

    /// The week of `day` (its Monday to Sunday): `learning` by day (the ledger's whole minutes),
    /// each completion's instant and each ledger entry's instant and points (spending is
    /// negative), bucketed into the child's local days in `zone`.
    public init(
        week day: LocalDay, zone: TimeZone, learning: [LocalDay: Int], completions: [Date],
        ledger: [(at: Date, points: Int)]
    ) {
        let first = day.monday
        let last = first.adding(days: 6)
        self.first = first
        var days = (0..<7).map { Day(day: first.adding(days: $0)) }
        func index(_ day: LocalDay) -> Int? { day < first || day > last ? nil : first.days(until: day) }
        for (day, minutes) in learning { if let i = index(day) { days[i].learningMinutes += minutes } }
        for instant in completions { if let i = index(LocalDay(instant, in: zone)) { days[i].questsCompleted += 1 } }
        for entry in ledger {
            guard let i = index(LocalDay(entry.at, in: zone)) else { continue }
            if entry.points >= 0 { days[i].pointsEarned += entry.points } else { days[i].pointsSpent -= entry.points }
        }
        self.days = days
    }

    public var learningMinutes: Int { days.reduce(0) { $0 + $1.learningMinutes } }
    public var questsCompleted: Int { days.reduce(0) { $0 + $1.questsCompleted } }
    public var pointsEarned: Int { days.reduce(0) { $0 + $1.pointsEarned } }
    public var pointsSpent: Int { days.reduce(0) { $0 + $1.pointsSpent } }
}
