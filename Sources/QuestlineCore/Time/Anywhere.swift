public import Foundation

/// The zones that begin and finish a calendar day first and last on Earth: UTC+14 (Kiritimati)
/// begins each day first, UTC−12 finishes it last ("anywhere on Earth"). Rules that must hold
/// whatever zone a member moves to are decided against these.
public enum Anywhere {
    /// The zone whose day begins first (UTC+14).
    public static let firstZone = TimeZone(secondsFromGMT: 14 * 3600) ?? .gmt
    /// The zone whose day ends last (UTC−12).
    public static let lastZone = TimeZone(secondsFromGMT: -12 * 3600) ?? .gmt

    /// The first calendar day that has not begun anywhere at `now`: a change that must not
    /// reach a day already begun (a pause, new rest days) starts on it at the earliest, so that
    /// no change of zone afterwards can make it cover a day that had begun when it was asked for.
    public static func firstDayNotBegun(at now: Date) -> LocalDay { LocalDay(now, in: firstZone).adding(days: 1) }
}
