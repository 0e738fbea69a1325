public import Foundation

/// The dates a request may name: 1900-01-01 through 2199-12-31, for days (`YYYY-MM-DD`) and for
/// instants (RFC 3339) alike. Outside it, a date is refused naming its field: no campaign,
/// quest, read or report lies there, and calendar arithmetic on year 0001 or 9999 runs off the
/// calendar (a month after 9999-12 is year 10000, which `LocalDay` cannot hold). Features
/// narrow it further: reads and saves start at Wikipedia's launch, usage reports reach back 30
/// days, the game's archive 365.
public enum DateWindow {
    public static let firstDay = LocalDay(dayNumber: -25_567)  // 1900-01-01
    public static let lastDay = LocalDay(dayNumber: 84_005)  // 2199-12-31
    /// Nobody read or saved a Wikipedia article before 15 January 2001.
    public static let wikipediaLaunch = LocalDay(dayNumber: 11_337)  // 2001-01-15

    public static var days: ClosedRange<LocalDay> { firstDay...lastDay }

    /// The instants of the window (in UTC).
    public static var instants: Range<Date> {
        Date(
            timeIntervalSince1970: Double(firstDay.dayNumber) * 86_400)..<Date(
                timeIntervalSince1970: Double(lastDay.dayNumber + 1) * 86_400)
    }

    /// Parses a day from a request: `YYYY-MM-DD`, a real date, inside the window.
    public static func day(_ raw: some StringProtocol, field: String, example: String = "2026-05-01")
        throws(DomainError) -> LocalDay
    {
        guard let day = LocalDay(iso: raw) else {
            // A date field in a page always sends YYYY-MM-DD or nothing: nothing is "choose".
            guard !raw.isEmpty else { throw .invalid(field: field, Message("input.error.chooseDate")) }
            throw .invalid(field: field, Message("input.error.dateShape", ["example": .text(example)]))
        }
        guard days.contains(day) else { throw .invalid(field: field, outside) }
        return day
    }

    /// The problem with the instant of a read or a save, if any: it must lie from Wikipedia's
    /// launch on (the future is each feature's own rule, with its allowed clock skew).
    public static func readingIssue(_ instant: Date, field: String) -> FieldIssue? {
        if instant < Date(timeIntervalSince1970: Double(wikipediaLaunch.dayNumber) * 86_400) {
            return FieldIssue(
                field: field, message: Message("input.error.beforeWikipedia", ["date": .text(wikipediaLaunch.iso)]))
        }
        return instants.contains(instant) ? nil : FieldIssue(field: field, message: outside)
    }

    static var outside: Message {
        Message("input.error.dateOutside", ["first": .text(firstDay.iso), "last": .text(lastDay.iso)])
    }
}
