public import Foundation

/// A saved article (in the default list or a named reading list) as the insights need it.
public struct SavedEntry: Sendable, Equatable {
    public let articleKey: String
    public let savedAt: Date
    public let thumbnailURL: String?

    public init(articleKey: String, savedAt: Date, thumbnailURL: String?) {
        self.articleKey = articleKey
        self.savedAt = savedAt
        self.thumbnailURL = thumbnailURL
    }
}

/// The Saved module of the Activity tab (seed 001, spec "Activity: saved articles module").
///
/// Saves are instants; they are bucketed into days in the viewer's current time zone (the seed:
/// "Month should be based on device's local time"). The window is the 30 local days ending today.
public struct SavedModule: Sendable, Equatable {
    /// Distinct articles saved (or added to any list) during the window.
    public let count: Int
    public let lastSavedAt: Date?
    /// "3:42 PM" when the last save is today, else "May 3" (with the year when not this year).
    public let lastSavedText: String?
    /// Thumbnails of the most recent saves that have one, newest first.
    public let thumbnails: [String]

    public static let windowDays = 30
    public static let maxThumbnails = 5

    public init(entries: [SavedEntry], now: Date, timeZone: TimeZone, locale: Locale) {
        let today = LocalDay(now, in: timeZone)
        let first = today.adding(days: -(Self.windowDays - 1))
        let inWindow = entries.filter { entry in
            let day = LocalDay(entry.savedAt, in: timeZone)
            return day >= first && day <= today
        }
        count = Set(inWindow.map(\.articleKey)).count
        let newest = entries.max { $0.savedAt < $1.savedAt }
        lastSavedAt = newest?.savedAt
        lastSavedText = newest.map { Self.format($0.savedAt, now: now, timeZone: timeZone, locale: locale) }
        // The circles are the module's articles: saves inside the window only (seed 001).
        var seen = Set<String>()
        thumbnails = inWindow.sorted { $0.savedAt > $1.savedAt }.compactMap { entry -> String? in
            guard let thumbnail = entry.thumbnailURL, seen.insert(entry.articleKey).inserted else { return nil }
            return thumbnail
        }.prefix(Self.maxThumbnails).map { $0 }
    }

    /// Local time if `instant` is today in `timeZone`, else a local date (year only when not this year).
    public static func format(_ instant: Date, now: Date, timeZone: TimeZone, locale: Locale) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        let day = LocalDay(instant, in: timeZone)
        let today = LocalDay(now, in: timeZone)
        if day == today {
            formatter.setLocalizedDateFormatFromTemplate("jmm")
        } else if day.year == today.year {
            formatter.setLocalizedDateFormatFromTemplate("MMMd")
        } else {
            formatter.setLocalizedDateFormatFromTemplate("yMMMd")
        }
        return formatter.string(from: instant)
    }
}

/// A reported span of reading.
public struct ReadingInterval: Sendable, Equatable {
    public let localDay: LocalDay
    public let seconds: Int

    public init(localDay: LocalDay, seconds: Int) {
        self.localDay = localDay
        self.seconds = seconds
    }

    /// One interval counts at most an hour (a tab left open is not reading), never below zero.
    public static let maxSeconds = 3600

    public static func clamp(start: Date, end: Date) -> Int {
        min(max(Int(end.timeIntervalSince(start).rounded(.down)), 0), maxSeconds)
    }
}

/// One day of the timeline.
public struct ActivityDay: Sendable, Equatable {
    public let day: LocalDay
    /// Distinct articles read that day (opening one twice counts once, as "Articles read" does).
    public let reads: Int
    public let saves: Int

    public init(day: LocalDay, reads: Int, saves: Int) {
        self.day = day
        self.reads = reads
        self.saves = saves
    }
}

/// The reading modules beside the Saved module.
public struct ReadingInsights: Sendable, Equatable {
    /// Distinct articles read in the 30 local days ending today.
    public let articlesRead30: Int
    /// Seconds of reading in the 7 local days ending today.
    public let secondsRead7: Int
    /// The everyday streak: consecutive read days ending today (or yesterday while today is
    /// unread), kept over rest days, pauses and a repair (`StreakWalk`).
    public let currentStreak: Int
    /// The last 7 local days, oldest first.
    public let timeline: [ActivityDay]

    public static let timelineDays = 7

    /// - Parameters:
    ///   - reads: (article, local day of the read) pairs; a read keeps the day of where it happened.
    ///   - saves: saved articles with their instants, bucketed in the viewer's zone like the Saved
    ///     module; an article saved twice on one day (to two lists) counts once that day.
    ///   - streakDays: more read days for the streak, which can be longer than the 30-day window.
    ///   - repairDays: days with at least three reads; `allowances`: rest days and pauses.
    public init(
        reads: [(article: String, day: LocalDay)], intervals: [ReadingInterval], saves: [SavedEntry],
        streakDays: [LocalDay] = [], repairDays: Set<LocalDay> = [], allowances: StreakAllowances = .none,
        today: LocalDay, timeZone: TimeZone
    ) {
        let first30 = today.adding(days: -29)
        articlesRead30 = Set(reads.filter { $0.day >= first30 && $0.day <= today }.map(\.article)).count
        let first7 = today.adding(days: -(Self.timelineDays - 1))
        secondsRead7 = intervals.filter { $0.localDay >= first7 && $0.localDay <= today }.reduce(0) {
            $0 + max(0, min($1.seconds, ReadingInterval.maxSeconds))
        }
        let readDays = Set(reads.map(\.day)).union(streakDays)
        currentStreak =
            StreakWalk(
                from: readDays.min() ?? today, today: today, readDays: readDays, repairDays: repairDays,
                allowances: allowances
            ).current
        var articlesPerDay: [LocalDay: Set<String>] = [:]
        for read in reads { articlesPerDay[read.day, default: []].insert(read.article) }
        var savedPerDay: [LocalDay: Set<String>] = [:]
        for save in saves { savedPerDay[LocalDay(save.savedAt, in: timeZone), default: []].insert(save.articleKey) }
        timeline = (0..<Self.timelineDays).map { offset in
            let day = first7.adding(days: offset)
            return ActivityDay(
                day: day, reads: articlesPerDay[day]?.count ?? 0, saves: savedPerDay[day]?.count ?? 0)
        }
    }
}

/// One legacy saved item from a device's history, as the import takes it.
public struct LegacySavedItem: Sendable, Equatable, Codable {
    public var language: String
    public var title: String
    public var savedAt: Date?
    public var readingListCreatedAt: Date?
    public var readingList: String?

    public init(
        language: String, title: String, savedAt: Date?, readingListCreatedAt: Date?, readingList: String? = nil
    ) {
        self.language = language
        self.title = title
        self.savedAt = savedAt
        self.readingListCreatedAt = readingListCreatedAt
        self.readingList = readingList
    }

    /// The instant to record: the saved instant, else the reading list's; nil when neither is
    /// known (such an item is reported back, never guessed).
    public var effectiveSavedAt: Date? { savedAt ?? readingListCreatedAt }
}

/// Wikipedia language codes: an ISO 639 code, optionally with subtags (`zh-hant`,
/// `be-tarask`), or one of the special editions.
public enum WikiLanguage {
    static let special: Set<String> = [
        "simple", "als", "bat-smg", "fiu-vro", "roa-rup", "zh-classical", "zh-min-nan", "zh-yue", "nds-nl", "map-bms",
        "cbk-zam",
    ]
    static let iso: Set<String> = Set(Locale.LanguageCode.isoLanguageCodes.map(\.identifier))

    public static func validate(_ raw: String, field: String) throws(DomainError) -> String {
        let code = raw.trimmed(newlines: false).lowercased()
        let primary = code.split(separator: "-").first.map(String.init) ?? ""
        let shapeOK =
            !code.isEmpty && code.count <= 16
            && code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        guard shapeOK, special.contains(code) || iso.contains(primary) else {
            throw .invalid(field: field, Message("activity.error.wikiLanguage", ["code": .text(raw)]))
        }
        return code
    }
}
