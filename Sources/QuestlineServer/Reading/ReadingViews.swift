import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

// The reading screens as typed page models, each built by a pure function from what the
// feature returns.

/// The one-time announcement of a campaign a member has not joined (`home.mustache`).
struct AnnouncementView: Equatable {
    let title: String
    /// "New: {title}".
    let heading: String
    /// What the challenge asks, or (when too few days are left for the goal) that the goal is
    /// out of reach and the streak still possible: the announcement then offers to read along,
    /// honestly.
    let text: String
    let outOfReach: Bool
    let joinLabel: String

    /// `widget`: the member's widget today (it says whether the goal is still in reach).
    init(_ campaign: Campaign, widget: WidgetModel?, localizer l: Localizer = RequestLanguage.localizer) {
        title = campaign.title ?? l("reading.campaign.untitled")
        heading = l("reading.announcement.heading", ["title": .text(title)])
        let possible = widget.flatMap { $0.goalInReach ? nil : $0.reachableStreak ?? 0 }
        outOfReach = possible != nil
        let arguments: [String: Message.Argument] = [
            "goal": .number(campaign.goalDays), "end": .day(campaign.endDay, .weekday),
        ]
        if let possible {
            text = l(
                "reading.announcement.outOfReach", arguments.merging(["count": .number(possible)]) { $1 })
            joinLabel = l("reading.announcement.readAlong")
        } else {
            text = l("reading.announcement.text", arguments.merging(["count": .number(campaign.goalDays)]) { $1 })
            joinLabel = l("reading.widget.cta.join")
        }
    }
}

/// The reading page (`reading.mustache`): the widget, one truthful header, search, and the
/// streak calendar.
struct ReadingPage: Equatable {
    struct CampaignTitle: Equatable { let title: String }

    let notice: String?
    let widget: WidgetCard?
    /// The challenge is named only when its widget shows: never "No reading challenge right
    /// now" above a challenge's title.
    let campaign: CampaignTitle?
    /// The widget's own Random is not repeated below it (one Random, not two).
    let widgetOffersRandom: Bool
    let canShare: Bool
    let shareState: String?
    let signedIn: Bool
    let admin: Bool
    let calendar: StreakCalendarView?

    /// `model` is the reader's widget (nil without one), `campaign` its campaign; `joined` and
    /// `claimed` say what the redirect came back from.
    init(
        model: WidgetModel?, campaign: Campaign?, member: MemberRecord?, calendar: StreakCalendar?, joined: Bool,
        claimed: Bool, localizer l: Localizer
    ) {
        let shown = model.flatMap { $0.state == .removed ? nil : $0 }
        widget = shown.map { WidgetCard($0, localizer: l) }
        self.campaign =
            shown != nil ? CampaignTitle(title: campaign?.title ?? l("reading.campaign.untitled")) : nil
        widgetOffersRandom = shown?.ctas.contains { $0.kind == .random } ?? false
        canShare = member != nil && (shown?.streak ?? 0) > 0
        shareState = shown?.state.rawValue
        signedIn = member != nil
        admin = member.map { AccessPolicy.allows($0.actor, .administer) } ?? false
        self.calendar = calendar.map { StreakCalendarView($0, path: "/reading", localizer: l) }
        if joined {
            // Says what the widget says: reads before joining count.
            let streak = model?.streak ?? 0
            notice =
                model?.state == .streakReadToday
                ? l("reading.notice.joinedReadToday")
                : streak > 0
                    ? l("reading.notice.joinedWithStreak", ["count": .number(streak)]) : l("reading.notice.joined")
        } else {
            notice = claimed ? l("reading.notice.claimed") : nil
        }
    }
}

/// An article in a list: its picture, or its initial where there is none.
struct ArticleRow: Equatable {
    let title: String
    let language: String
    let path: String
    let description: String?
    let image: String?
    let initial: String

    init(_ article: WikiSummary) {
        title = article.title
        language = article.language
        path = ReadingPages.articlePath(article)
        description = article.description
        image = article.thumbnail?.source
        initial = String(article.title.prefix(1))
    }
}

/// Search results, or what to read without a query (`reading-search.mustache`).
struct ReadingSearchPage: Equatable {
    let q: String
    let heading: String
    /// Searched while Wikipedia could not be reached: the results are the offline pack's.
    let offline: Bool
    let none: Bool
    /// What "no result" means: nothing on Wikipedia, or nothing among the articles kept offline
    /// (when those were what was searched).
    let noneText: String
    let articles: [ArticleRow]

    init(
        query: String?, articles found: [WikiSummary], source: ReadingFeature.ArticleSource, online: Bool,
        localizer l: Localizer
    ) {
        q = query ?? ""
        let searched = !(query ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        let query: [String: Message.Argument] = ["query": .text(q)]
        heading =
            searched
            ? l("reading.search.about", query)
            : source == .history ? l("reading.search.history") : l("reading.search.suggested")
        offline = searched && source == .pack && online
        none = found.isEmpty
        noneText = source == .pack ? l("reading.search.noneOffline", query) : l("reading.search.none", query)
        articles = found.map(ArticleRow.init)
    }
}

/// An article's page (`reading-article.mustache`): the summary, a link to Wikipedia, Save, and
/// the read its script reports under `readEvent`.
struct ArticlePage: Equatable {
    struct Image: Equatable {
        let source: String
        let alt: String
    }

    let articleTitle: String
    let url: String
    let language: String
    let description: String?
    let extract: String?
    let image: Image?
    let signedIn: Bool
    let justSaved: Bool
    let saved: Bool
    let readEvent: String
    let widget: WidgetCard?

    init(
        _ shown: WikiSummary, signedIn: Bool, saved: Bool, justSaved: Bool, readEvent: String, widget: WidgetModel?,
        localizer l: Localizer
    ) {
        articleTitle = shown.title
        url = shown.pageURL
        language = shown.language
        description = shown.description
        extract = shown.extract.isEmpty ? nil : shown.extract
        image = shown.thumbnail.map { Image(source: $0.source, alt: shown.title) }
        self.signedIn = signedIn
        self.justSaved = justSaved
        self.saved = saved
        self.readEvent = readEvent
        self.widget = widget.flatMap { $0.state == .removed ? nil : WidgetCard($0, localizer: l) }
    }
}

/// The QA preview of a widget state (`reading-preview.mustache`), in both sizes.
struct WidgetPreviewPage: Equatable {
    let widget: WidgetCard
    let small: WidgetCard
    let state: String
    let today: String
    let todayISO: String
    /// The campaigns' ids, listed in words ("2026 and demo").
    let campaignIDs: String

    init(_ model: WidgetModel, campaigns: [String], localizer l: Localizer) {
        widget = WidgetCard(model, interactive: false, localizer: l)
        small = WidgetCard(model, size: "small", interactive: false, localizer: l)
        state = model.state.rawValue
        today = l.format(model.today, .long)
        todayISO = model.today.iso
        campaignIDs = l.render(.list(campaigns.map { .text($0) }))
    }
}

/// The challenge funnel for administrators (`admin-funnel.mustache`).
struct FunnelPage: Equatable {
    struct Option: Equatable {
        let id: String
        let title: String
        let selected: Bool
    }

    let campaignTitle: String
    let chart: String
    let campaigns: [Option]

    init(_ campaign: Campaign, steps: [FunnelStep], campaigns: [Campaign], localizer l: Localizer) {
        campaignTitle = campaign.title ?? campaign.id
        chart =
            BarChart(
                title: l("reading.funnel.chart"), labels: steps.map { l($0.name) },
                series: [.init(name: l("reading.funnel.members"), style: "bar--a", values: steps.map(\.members))]
            ).funnelSVG
        self.campaigns = campaigns.map { Option(id: $0.id, title: $0.title ?? $0.id, selected: $0.id == campaign.id) }
    }
}
