import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The Activity tab (`activity.mustache`): the Saved module, the three figures, the last seven
/// days, the streak calendar and the badges.
struct ActivityPage: Equatable {
    struct Saved: Equatable {
        let count: String
        /// "articles saved in the last 30 days", agreeing with the count.
        let caption: String
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

        init(label: String, reads: Int, saves: Int, maxReads: Int, localizer l: Localizer) {
            self.label = label
            self.reads = reads
            self.saves = saves
            self.maxReads = maxReads
            let count = Message.Argument.message(.count(reads, .reads))
            summary = l("activity.timeline.summary", ["reads": count, "count": .number(saves)])
            readsLabel = l("activity.timeline.readsLabel", ["day": .text(label), "reads": count])
        }
    }

    struct BadgeView: Equatable {
        let title: String
        let day: String
    }

    let saved: Saved
    let articlesRead: String
    let timeSpent: String
    let streak: String
    /// "days in a row", agreeing with the streak.
    let streakCaption: String
    let timeline: [Day]
    let quiet: Bool
    let calendar: StreakCalendarView
    let badges: [BadgeView]
    let noBadges: Bool
    /// The member's year, for the link to its review.
    let year: Int
    let yearInReview: String

    init(_ view: ActivityView, calendar: StreakCalendar, zone: TimeZone, today: LocalDay, localizer l: Localizer) {
        let insights = view.insights
        saved = Saved(
            count: l.render(.number(view.saved.count)),
            caption: l("activity.saved.caption", ["count": .number(view.saved.count)]),
            lastSaved: view.saved.lastSavedText, thumbnails: view.saved.thumbnails,
            hasThumbnails: !view.saved.thumbnails.isEmpty)
        articlesRead = l.render(.number(insights.articlesRead30))
        timeSpent = l(Message.readingTime(seconds: insights.secondsRead7))
        streak = l.render(.number(insights.currentStreak))
        streakCaption = l("activity.streak.caption", ["count": .number(insights.currentStreak)])
        let maxReads = max(insights.timeline.map(\.reads).max() ?? 0, 1)
        timeline = insights.timeline.map {
            Day(label: l.format($0.day, .short), reads: $0.reads, saves: $0.saves, maxReads: maxReads, localizer: l)
        }
        quiet = insights.timeline.allSatisfy { $0.reads == 0 && $0.saves == 0 }
        self.calendar = StreakCalendarView(calendar, path: "/activity")
        // A badge's title is the name its feature gave it (a campaign's), or a message kept with it.
        badges = view.badges.map {
            BadgeView(title: l(Message(stored: $0.title)), day: l.format(LocalDay($0.awardedAt, in: zone), .weekday))
        }
        noBadges = view.badges.isEmpty
        year = today.year
        yearInReview = l("recap.heading", ["period": .message(RecapPeriod.year(today.year).title)])
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
        /// "Unsave Octopus", for screen readers.
        let unsaveLabel: String
    }

    let articles: [Article]
    let none: Bool
    let notice: String?

    init(_ saved: [SavedArticle], removed: Bool, localizer l: Localizer) {
        articles = saved.map { article in
            Article(
                title: article.title, language: article.language, image: article.thumbnailURL,
                lists: l.render(
                    .list(
                        article.lists.map {
                            $0.isEmpty ? .message(Message("activity.saved.defaultList")) : .text($0)
                        })),
                path: ReadingPages.articlePath(title: article.title, language: article.language),
                unsaveLabel: l("activity.saved.unsaveLabel", ["title": .text(article.title)]))
        }
        none = saved.isEmpty
        notice = removed ? l("activity.saved.removed") : nil
    }
}
