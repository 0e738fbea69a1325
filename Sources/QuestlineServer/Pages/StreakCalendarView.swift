import QuestlineCore

/// The streak calendar's template data, shared by the reading page and the Activity tab.
enum StreakCalendarView {
    /// The month asked for in the address (`?month=YYYY-MM`), nil for the current one.
    static func month(_ raw: Substring?) throws(DomainError) -> LocalDay? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let day = LocalDay(iso: raw + "-01") else {
            throw .invalid(field: "month", "Give the month as YYYY-MM, for example 2026-05.")
        }
        return day
    }

    static func data(_ calendar: StreakCalendar, path: String) -> [String: Any] {
        func link(_ month: LocalDay?) -> Any {
            month.map { "\(path)?month=\($0.iso.prefix(7))#calendar" } ?? false
        }
        let names = ["read", "frozen: a freeze kept the streak", "missed", "today, not read yet", ""]
        let marks: [StreakCalendar.Mark] = [.read, .frozen, .missed, .today, .none]
        return [
            "title": calendar.title, "previous": link(calendar.previous), "next": link(calendar.next),
            "weeks": calendar.weeks.map { week in
                [
                    "days": week.map { cell -> [String: Any] in
                        guard let cell else { return ["empty": true] }
                        let what = names[marks.firstIndex(of: cell.mark) ?? 4]
                        return [
                            "number": cell.day.day, "mark": cell.mark.rawValue,
                            "label": what.isEmpty ? "\(cell.day.day)" : "\(cell.day.day): \(what)",
                        ]
                    }
                ]
            },
            "readCount": calendar.readCount, "frozenCount": calendar.frozenCount,
            "missedCount": calendar.missedCount,
        ]
    }
}
