public import Foundation

/// The phrases every screen shares, as messages: a count of a unit ("3 days", "1 point"), and
/// when something happens or ends, seen from now in a zone ("until 21:00", "07:00 tomorrow").
/// One place, so that no screen says them its own way; the catalog says them in each language.
extension Message {
    /// What is counted. The catalog has one message per unit (`unit.days`), with its plural forms.
    public enum Unit: String, Sendable, CaseIterable {
        case days, minutes, points, articles, games, quests, reads, visits, times, learningDays, steps, apps,
            households, requests, questions, stories, pages, cards, cheers, members, morePoints
    }

    /// "3 days", "1 point", in the reader's language and plural form.
    public static func count(_ number: Int, _ unit: Unit) -> Message {
        Message("unit.\(unit.rawValue)", ["count": .number(number)])
    }

    /// A moment seen from `now` in `zone`: "midnight" (the end of today), "21:05" (today),
    /// "07:00 tomorrow", "yesterday at 21:05", "14 December 2026 at 21:05".
    public static func at(_ instant: Date, now: Date, in zone: TimeZoneID) -> Message {
        let today = LocalDay(now, in: zone.timeZone)
        if instant == today.adding(days: 1).start(in: zone.timeZone) { return Message("time.at.midnight") }
        let day = LocalDay(instant, in: zone.timeZone)
        let time = Argument.time(instant, zone)
        if day == today { return Message("time.at.today", ["time": time]) }
        if day == today.adding(days: 1) { return Message("time.at.tomorrow", ["time": time]) }
        if day == today.adding(days: -1) { return Message("time.at.yesterday", ["time": time]) }
        return Message("time.at.day", ["time": time, "day": .day(day, .long)])
    }

    /// When something ends, seen from `now` in `zone`: "until midnight", "until 21:00", "until
    /// 07:00 tomorrow", "until 21:00 on 14 December 2026".
    public static func until(_ instant: Date, now: Date, in zone: TimeZoneID) -> Message {
        let today = LocalDay(now, in: zone.timeZone)
        let day = LocalDay(instant, in: zone.timeZone)
        let time = Argument.time(instant, zone)
        if instant == today.adding(days: 1).start(in: zone.timeZone) { return Message("time.until.midnight") }
        if day == today { return Message("time.until.today", ["time": time]) }
        if day == today.adding(days: 1) { return Message("time.until.tomorrow", ["time": time]) }
        return Message("time.until.day", ["time": time, "day": .day(day, .long)])
    }

    /// Reading time as every screen says it: "< 1 min" (some reading, not yet a minute),
    /// "12 min", "1 h 5 min".
    public static func readingTime(seconds: Int) -> Message {
        let minutes = seconds / 60
        if seconds > 0, minutes == 0 { return Message("time.duration.underAMinute") }
        if minutes < 60 { return Message("time.duration.minutes", ["minutes": .number(minutes)]) }
        return Message("time.duration.hours", ["hours": .number(minutes / 60), "minutes": .number(minutes % 60)])
    }
}
