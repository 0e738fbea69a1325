import QuestlineCore
import QuestlineL10n

/// The streak calendar (`streak-calendar.mustache`), shared by the reading page and the Activity
/// tab.
struct StreakCalendarView: Equatable {
    struct Day: Equatable {
        var empty = false
        var number = 0
        var mark = ""
        var label = ""
    }

    struct Week: Equatable {
        let days: [Day]
    }

    let title: String
    /// Links to the neighbouring months, only where there is something to see.
    let previous: String?
    let next: String?
    let weeks: [Week]
    let readCount: Int
    let frozenCount: Int
    let missedCount: Int
    let restCount: Int
    let pausedCount: Int
    let repairedCount: Int
    /// Whether the legend names rest, paused and repaired days (only where the month has some).
    let restShown: Bool
    let pausedShown: Bool
    let repairedShown: Bool

    /// The month asked for in the address (`?month=YYYY-MM`), nil for the current one.
    static func month(_ raw: Substring?) throws(DomainError) -> LocalDay? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let day = LocalDay(iso: raw + "-01") else {
            throw .invalid(field: "month", "Give the month as YYYY-MM, for example 2026-05.")
        }
        return day
    }

    /// The calendar of the page at `path` (its month links stay on that page).
    init(_ calendar: StreakCalendar, path: String) {
        func link(_ month: LocalDay?) -> String? { month.map { "\(path)?month=\($0.iso.prefix(7))#calendar" } }
        title = calendar.title
        previous = link(calendar.previous)
        next = link(calendar.next)
        weeks = calendar.weeks.map { week in
            Week(
                days: week.map { cell in
                    guard let cell else { return Day(empty: true) }
                    let what: String =
                        switch cell.mark {
                        case .read: "read"
                        case .frozen: "frozen: a freeze kept the streak"
                        case .missed: "missed"
                        case .rest: "rest day"
                        case .paused: "paused"
                        case .repaired: "repaired: three reads earned it back"
                        case .today: "today, not read yet"
                        case .none: ""
                        }
                    return Day(
                        number: cell.day.day, mark: cell.mark.rawValue,
                        label: what.isEmpty ? "\(cell.day.day)" : "\(cell.day.day): \(what)")
                })
        }
        readCount = calendar.readCount
        frozenCount = calendar.frozenCount
        missedCount = calendar.missedCount
        restCount = calendar.restCount
        pausedCount = calendar.pausedCount
        repairedCount = calendar.repairedCount
        restShown = calendar.restCount > 0
        pausedShown = calendar.pausedCount > 0
        repairedShown = calendar.repairedCount > 0
    }
}
