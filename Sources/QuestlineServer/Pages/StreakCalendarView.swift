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

    /// A column heading: the weekday's narrow form ("M") and its whole name for assistive
    /// technology.
    struct Weekday: Equatable {
        let narrow: String
        let name: String
    }

    /// The month, "May 2026" in the reader's language.
    let title: String
    /// Links to the neighbouring months, only where there is something to see.
    let previous: String?
    let next: String?
    let weekdays: [Weekday]
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
            throw .invalid(field: "month", Message("reading.error.month", ["example": .text("2026-05")]))
        }
        return day
    }

    /// A Monday: the first column's day (the weeks run Monday to Sunday).
    static let monday = LocalDay(iso: "2024-01-01")!

    /// The calendar of the page at `path` (its month links stay on that page), in `l`'s words.
    init(_ calendar: StreakCalendar, path: String, localizer l: Localizer = RequestLanguage.localizer) {
        func link(_ month: LocalDay?) -> String? { month.map { "\(path)?month=\($0.iso.prefix(7))#calendar" } }
        title = l.format(calendar.month, .month)
        previous = link(calendar.previous)
        next = link(calendar.next)
        weekdays = (0..<7).map {
            let day = Self.monday.adding(days: $0)
            return Weekday(narrow: l.format(day, .weekdayNarrow), name: l.format(day, .weekdayName))
        }
        weeks = calendar.weeks.map { week in
            Week(
                days: week.map { cell in
                    guard let cell else { return Day(empty: true) }
                    let number = Message.Argument.number(cell.day.day)
                    let label =
                        cell.mark == .none
                        ? l.render(number) : l("reading.calendar.day.\(cell.mark.rawValue)", ["day": number])
                    return Day(number: cell.day.day, mark: cell.mark.rawValue, label: label)
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
