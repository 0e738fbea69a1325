import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The Activity tab (`activity.mustache`): the Saved module, the three figures, the last seven
/// days, the streak calendar and the badges.
struct ActivityPage: Equatable {
    struct Saved: Equatable {
        let count: Int
        let lastSaved: String?
        let thumbnails: [String]
        let hasThumbnails: Bool
    }

    struct Day: Equatable {
        let label: String
        let reads: Int
        let saves: Int
        /// The scale of the bars: the busiest day's reads (at least 1).
        let maxReads: Int
        /// "1 read · 0 saved".
        let summary: String
        /// "Mon 14: 1 read".
        let readsLabel: String

        init(label: String, reads: Int, saves: Int, maxReads: Int) {
            self.label = label
            self.reads = reads
            self.saves = saves
            self.maxReads = maxReads
            summary = "\(Wording.count(reads, "read")) · \(saves) saved"
            readsLabel = "\(label): \(Wording.count(reads, "read"))"
        }
    }

    struct BadgeView: Equatable {
        let title: String
        let day: String
    }

    let saved: Saved
    let articlesRead: Int
    let timeSpent: String
    let streak: Int
    let streakUnit: String
    let timeline: [Day]
    let quiet: Bool
    let calendar: StreakCalendarView
    let badges: [BadgeView]
    let noBadges: Bool
    /// The member's year, for the link to its review.
    let year: Int

    init(_ view: ActivityView, calendar: StreakCalendar, zone: TimeZone, today: LocalDay) {
        let insights = view.insights
        saved = Saved(
            count: view.saved.count, lastSaved: view.saved.lastSavedText, thumbnails: view.saved.thumbnails,
            hasThumbnails: !view.saved.thumbnails.isEmpty)
        articlesRead = insights.articlesRead30
        timeSpent = Wording.readingTime(seconds: insights.secondsRead7)
        streak = insights.currentStreak
        streakUnit = insights.currentStreak == 1 ? "day" : "days"
        let maxReads = max(insights.timeline.map(\.reads).max() ?? 0, 1)
        timeline = insights.timeline.map {
            Day(label: Wording.shortDay($0.day), reads: $0.reads, saves: $0.saves, maxReads: maxReads)
        }
        quiet = insights.timeline.allSatisfy { $0.reads == 0 && $0.saves == 0 }
        self.calendar = StreakCalendarView(calendar, path: "/activity")
        badges = view.badges.map { BadgeView(title: $0.title, day: Wording.longDate(LocalDay($0.awardedAt, in: zone))) }
        noBadges = view.badges.isEmpty
        year = today.year
    }

}

/// The Saved list (`activity-saved.mustache`).
struct SavedListPage: Equatable {
    struct Article: Equatable {
        let title: String
        let language: String
        let image: String?
        /// The lists it is in ("Saved" for the default one).
        let lists: String
        let path: String
    }

    let articles: [Article]
    let none: Bool
    let notice: String?

    init(_ saved: [SavedArticle], removed: Bool) {
        articles = saved.map { article in
            Article(
                title: article.title, language: article.language, image: article.thumbnailURL,
                lists: article.lists.map { $0.isEmpty ? "Saved" : $0 }.joined(separator: ", "),
                path: ReadingPages.articlePath(title: article.title, language: article.language))
        }
        none = saved.isEmpty
        notice = removed ? "Removed from your saved articles." : nil
    }
}
