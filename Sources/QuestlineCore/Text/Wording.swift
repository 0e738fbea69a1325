public import Foundation

/// How numbers, days and times read in sentences, in one place for every screen and the copy
/// the core writes: "1 day", "3 days"; "14 December 2026", never "2026-12-14"; "until
/// midnight", "until 21:00", "until 07:00 tomorrow". English, as the app's text is.
public enum Wording {
    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    /// Short weekday names, Monday first (ISO weekday 1 is index 0).
    public static let shortWeekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// "1 day", "2 days", "0 days".
    public static func count(_ number: Int, _ one: String, _ many: String? = nil) -> String {
        "\(number) \(number == 1 ? one : many ?? one + "s")"
    }

    /// Reading time as every screen says it: "< 1 min" (some reading, not yet a minute),
    /// "0 min", "12 min", "1 h 5 min".
    public static func readingTime(seconds: Int) -> String {
        let minutes = seconds / 60
        if seconds > 0, minutes == 0 { return "< 1 min" }
        if minutes < 60 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }

    /// "14 December 2026".
    public static func date(_ day: LocalDay) -> String { "\(day.day) \(months[day.month - 1]) \(day.year)" }

    /// "Monday 14 December 2026".
    public static func longDate(_ day: LocalDay) -> String { "\(weekdays[day.isoWeekday - 1]) \(date(day))" }

    /// "December 2026".
    public static func month(_ day: LocalDay) -> String { "\(months[day.month - 1]) \(day.year)" }

    /// "Mon 14".
    public static func shortDay(_ day: LocalDay) -> String { "\(shortWeekdays[day.isoWeekday - 1]) \(day.day)" }

    /// "Ada", "Ada and Bo", "Ada, Bo and Cy".
    public static func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Years as readers know them: "1944", "44 BC".
    public static func year(_ year: Int) -> String { year > 0 ? String(year) : "\(-year) BC" }

    /// "21:05" in `zone`.
    public static func time(_ instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// A moment, seen from `now` in `zone`: "21:05" (today), "midnight" (the end of today),
    /// "07:00 tomorrow", "yesterday at 21:05", "14 December 2026 at 21:05".
    public static func at(_ instant: Date, now: Date, in zone: TimeZone) -> String {
        let today = LocalDay(now, in: zone)
        if instant == today.adding(days: 1).start(in: zone) { return "midnight" }
        let day = LocalDay(instant, in: zone)
        let clock = time(instant, in: zone)
        if day == today { return clock }
        if day == today.adding(days: 1) { return "\(clock) tomorrow" }
        if day == today.adding(days: -1) { return "yesterday at \(clock)" }
        return "\(date(day)) at \(clock)"
    }

    /// When something ends, seen from `now` in `zone`: "until midnight" (the end of today),
    /// "until 21:00" (later today), "until 07:00 tomorrow", "until 14 December 2026".
    public static func until(_ instant: Date, now: Date, in zone: TimeZone) -> String {
        let today = LocalDay(now, in: zone)
        let day = LocalDay(instant, in: zone)
        if instant == today.adding(days: 1).start(in: zone) { return "until midnight" }
        if day == today { return "until \(time(instant, in: zone))" }
        if day == today.adding(days: 1) { return "until \(time(instant, in: zone)) tomorrow" }
        return "until \(time(instant, in: zone)) on \(date(day))"
    }
}
