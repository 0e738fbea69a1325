import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

// The track stories' screens as typed page models, each built by a pure function from what
// `StoriesFeature` returns. Every stories page carries the section's own menu (`storyNav`).

/// An entry of the stories' own menu (`story-nav.mustache`).
struct StoryNavItem: Equatable {
    let path: String
    let title: String
    let current: Bool

    /// The menu with the section of `template` marked (the shop is part of Points).
    static func menu(for template: String) -> [StoryNavItem] {
        let sections = [
            "stories-bookmarks": "/stories/bookmarks", "stories-points": "/stories/points",
            "stories-shop": "/stories/points", "stories-profile": "/stories/profile", "stories-help": "/stories/help",
        ]
        let section = sections[template] ?? "/stories"
        return [
            ("/stories", "Stories"), ("/stories/bookmarks", "Bookmarks"), ("/stories/points", "Points"),
            ("/stories/profile", "Profile"), ("/stories/help", "Help"),
        ].map { StoryNavItem(path: $0.0, title: $0.1, current: $0.0 == section) }
    }
}

/// Where a story's pictures are served.
func storyAsset(_ path: String) -> String { "/content/stories/" + path }

/// Onboarding (`stories-welcome.mustache`): three slides, swiped or stepped by dots.
struct StoriesWelcomePage: Equatable {
    struct Slide: Equatable {
        let index: Int
        let number: Int
        let title: String
        let text: String
        let image: String
        let first: Bool
        let last: Bool
    }

    static let texts = [
        (
            "Stories from the track", "Read how the great race tracks came to be, chapter by chapter.",
            "covers/daytona.svg"
        ),
        (
            "Take a selfie at the track",
            "A selfie at a story's track unlocks its rewards: points, a trading card, sometimes a badge.",
            "covers/indianapolis.svg"
        ),
        (
            "Collect and trade", "Spend points on trading cards in the card shop, and finish daily tasks for more.",
            "cards/golden-brick.svg"
        ),
    ]

    let slides: [Slide] = texts.enumerated().map { index, slide in
        Slide(
            index: index, number: index + 1, title: slide.0, text: slide.1, image: storyAsset(slide.2),
            first: index == 0, last: index == texts.count - 1)
    }
    let count = texts.count
}

/// The pre-story choice of states and tracks (`stories-choose.mustache`).
struct StoriesChoosePage: Equatable {
    struct State: Equatable {
        let code: String
        let name: String
        let checked: Bool
    }

    struct Track: Equatable {
        let id: String
        let name: String
        let city: String
        let state: String
        let checked: Bool
    }

    let states: [State]
    let tracks: [Track]
    let errors: [String: String]

    init(
        _ content: StoryContent, states chosenStates: [String], tracks chosenTracks: [String], errors: [String: String]
    ) {
        states = content.states.map { State(code: $0.code, name: $0.name, checked: chosenStates.contains($0.code)) }
        tracks = content.tracks.map {
            Track(id: $0.id, name: $0.name, city: $0.city, state: $0.state, checked: chosenTracks.contains($0.id))
        }
        self.errors = errors
    }
}

/// A story in a list (`story-tile.mustache`).
struct StoryTile: Equatable {
    let id: String
    let title: String
    let description: String
    let cover: String
    let track: String
    let city: String
    let trackId: String
    let bookmarked: Bool
    let collected: Bool
    let progress: String
    /// Where the star's form returns.
    let back: String

    init(_ summary: StorySummary, back: String = "/stories") {
        let story = summary.story
        id = story.id
        title = story.title
        description = story.description
        cover = storyAsset(story.cover)
        track = summary.track?.name ?? story.track
        city = summary.track.map { "\($0.city), \($0.state)" } ?? ""
        trackId = story.track
        bookmarked = summary.bookmarked
        collected = summary.collected
        progress = summary.reached.map { "Chapter \($0.chapter + 1) of \(story.chapters.count)" } ?? "Not started"
        self.back = back
    }
}

/// The stories list with its map, or the bookmarks (`stories.mustache`, `stories-bookmarks.mustache`).
struct StoriesListPage: Equatable {
    struct Pin: Equatable {
        let track: String
        let name: String
        let x: Int
        let y: Int
        let latitude: Double
        let longitude: Double
        let count: Int
        let story: String
    }

    struct TrackChoice: Equatable {
        let id: String
        let name: String
        let state: String
        let checked: Bool
    }

    let q: String
    let count: Int
    let plural: Bool
    let none: Bool
    let stories: [StoryTile]
    let states: [String]
    let pins: [Pin]
    let mapView: Bool
    let leaflet: Bool
    let trackChoices: [TrackChoice]
    let trackSummary: String
    let trackQuery: String

    /// `found` the stories shown, `chosen` the tracks the dropdown narrows to.
    init(
        found: [StorySummary], content: StoryContent, query: String, chosen: Set<String>, bookmarks: Bool,
        mapView: Bool, leaflet: Bool, outline: USStates?
    ) {
        q = query
        count = found.count
        plural = found.count != 1
        none = found.isEmpty
        stories = found.map { StoryTile($0, back: bookmarks ? "/stories/bookmarks" : "/stories") }
        let map = StoryMap(tracks: content.tracks)
        states = outline.map(map.statePaths) ?? []
        let counts = Dictionary(grouping: found, by: \.story.track).mapValues(\.count)
        let pinned = content.tracks.filter { counts[$0.id] != nil }
        pins = zip(pinned, map.pins(pinned)).map { track, point in
            Pin(
                track: track.id, name: track.name, x: point.x, y: point.y, latitude: track.latitude,
                longitude: track.longitude, count: counts[track.id] ?? 0,
                story: found.first { $0.story.track == track.id }?.story.id ?? "")
        }
        self.mapView = mapView
        self.leaflet = leaflet
        trackChoices = content.tracks.sorted { $0.name < $1.name }.map {
            TrackChoice(id: $0.id, name: $0.name, state: $0.state, checked: chosen.contains($0.id))
        }
        trackSummary =
            chosen.isEmpty
            ? "All race tracks"
            : chosen.count == 1
                ? content.tracks.first { chosen.contains($0.id) }?.name ?? "1 race track"
                : "\(chosen.count) race tracks"
        trackQuery = chosen.sorted().map { "&amp;track=\($0)" }.joined()
    }
}

/// A story's rewards as the detail page names them.
struct StoryRewardView: Equatable {
    let points: Int
    let card: String?
    let badge: String?
}

/// A story with its progress and chapters (`story-detail.mustache`).
struct StoryDetailPage: Equatable {
    struct Chapter: Equatable {
        let index: Int
        let number: Int
        let title: String
        let pages: Int
        let read: Bool
    }

    let story: StoryTile
    let chapters: [Chapter]
    let totalPages: Int
    let reachedPages: Int
    /// The slider moves through the chapters, starting at the one reached.
    let chapterCount: Int
    let sliderChapter: Int
    let sliderTitle: String
    let reachedText: String
    let hasSelfie: Bool
    let collected: Bool
    let canCollect: Bool
    /// Why the button waits (the server refuses the same way).
    let collectWhy: String
    let reward: StoryRewardView
    let error: String?

    init(_ summary: StorySummary, content: StoryContent, error: String?) {
        let story = summary.story
        self.story = StoryTile(summary)
        let reachedChapter = summary.reached?.chapter ?? -1
        chapters = story.chapters.enumerated().map { index, chapter in
            Chapter(
                index: index, number: index + 1, title: chapter.title, pages: chapter.pages.count,
                read: reachedChapter >= index)
        }
        totalPages = story.chapters.reduce(0) { $0 + $1.pages.count }
        reachedPages =
            summary.reached.map { reached in
                story.chapters.prefix(reached.chapter).reduce(0) { $0 + $1.pages.count } + reached.page + 1
            } ?? 0
        chapterCount = story.chapters.count
        sliderChapter = max(reachedChapter, 0) + 1
        sliderTitle = story.chapters.isEmpty ? "" : story.chapters[max(reachedChapter, 0)].title
        reachedText = summary.reached.map { "Chapter \($0.chapter + 1), page \($0.page + 1)" } ?? "Not started yet"
        hasSelfie = summary.hasSelfie
        collected = summary.collected
        canCollect = summary.reached != nil && summary.hasSelfie && !summary.collected
        collectWhy =
            summary.reached == nil
            ? (summary.hasSelfie
                ? "Read a chapter to collect the rewards." : "Read a chapter and take a selfie at the track.")
            : "Take a selfie at the track to collect the rewards."
        reward = StoryRewardView(
            points: story.reward.points, card: story.reward.card.flatMap(content.card)?.name,
            badge: story.reward.badge.flatMap { id in content.badges.first { $0.id == id }?.title })
        self.error = error
    }
}

/// A page of a chapter with its comments (`story-page.mustache`).
struct StoryChapterPage: Equatable {
    struct Dot: Equatable {
        let href: String
        let number: Int
        let current: Bool
    }

    struct Comment: Equatable {
        let id: String
        let author: String
        let text: String
        let mine: Bool
        let when: String
    }

    let storyId: String
    let storyTitle: String
    let chapterIndex: Int
    let chapterNumber: Int
    let chapterTitle: String
    let text: String
    let image: String
    let video: String?
    let dots: [Dot]
    let previous: String?
    let next: String?
    let finished: Bool
    let comments: [Comment]
    let commentCount: Int
    let commentsOpen: Bool
    let commentError: String?
    let here: String

    init(
        story: Story, chapter chapterIndex: Int, page pageIndex: Int, comments: [StoryComment], viewer: MemberRecord,
        commentsOpen: Bool, commentError: String?
    ) {
        let chapter = story.chapters[chapterIndex]
        let page = chapter.pages[pageIndex]
        let base = "/stories/read/\(story.id)/\(chapterIndex)"
        let nextChapter =
            chapterIndex + 1 < story.chapters.count ? "/stories/read/\(story.id)/\(chapterIndex + 1)/0" : nil
        storyId = story.id
        storyTitle = story.title
        self.chapterIndex = chapterIndex
        chapterNumber = chapterIndex + 1
        chapterTitle = chapter.title
        text = page.text
        image = storyAsset(page.image)
        video = page.video.map(storyAsset)
        dots = chapter.pages.indices.map { Dot(href: "\(base)/\($0)", number: $0 + 1, current: $0 == pageIndex) }
        previous = pageIndex > 0 ? "\(base)/\(pageIndex - 1)" : nil
        next = pageIndex + 1 < chapter.pages.count ? "\(base)/\(pageIndex + 1)" : nextChapter
        finished = pageIndex + 1 == chapter.pages.count && nextChapter == nil
        self.comments = comments.map {
            Comment(
                id: $0.id, author: $0.authorName, text: $0.body, mine: $0.memberID == viewer.id,
                when: Wording.longDate(LocalDay($0.createdAt, in: viewer.zone)))
        }
        commentCount = comments.count
        self.commentsOpen = commentsOpen
        self.commentError = commentError
        here = "\(base)/\(pageIndex)"
    }
}

/// 4_Selfie2: the selfie just taken (`story-selfie.mustache`).
struct StorySelfiePage: Equatable {
    let storyId: String
    let storyTitle: String
    let trackName: String
    let canCollect: Bool

    init(_ summary: StorySummary) {
        storyId = summary.story.id
        storyTitle = summary.story.title
        trackName = summary.track?.name ?? "the track"
        canCollect = summary.reached != nil && !summary.collected
    }
}

/// What a story's rewards were, once collected (`story-rewards.mustache`).
struct StoryRewardsPage: Equatable {
    struct Card: Equatable {
        let name: String
        let image: String
        let rarity: String
    }

    struct Badge: Equatable {
        let title: String
        let image: String
        let description: String
    }

    let storyId: String
    let storyTitle: String
    let points: Int
    let balance: Int
    let card: Card?
    let badge: Badge?

    init(_ summary: StorySummary, content: StoryContent, balance: Int) {
        let reward = summary.story.reward
        storyId = summary.story.id
        storyTitle = summary.story.title
        points = reward.points
        self.balance = balance
        card = reward.card.flatMap(content.card).map {
            Card(name: $0.name, image: storyAsset($0.image), rarity: $0.rarity.rawValue)
        }
        badge = reward.badge.flatMap { badge in content.badges.first { $0.id == badge } }.map {
            Badge(title: $0.title, image: storyAsset($0.image), description: $0.description)
        }
    }
}

/// The help topics (`stories-help.mustache`).
struct StoriesHelpPage: Equatable {
    struct Topic: Equatable {
        let question: String
        let answer: String
    }

    let topics: [Topic]

    init(_ content: StoryContent) { topics = content.help.map { Topic(question: $0.question, answer: $0.answer) } }
}
