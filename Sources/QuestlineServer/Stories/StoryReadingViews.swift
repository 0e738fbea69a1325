import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

// A story's screens as typed page models: its detail, a page of a chapter with comments, the
// selfie just taken and the rewards collected.

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

    /// `chapter` and `page` as `StoriesFeature.openPage` found them at `chapterIndex` and
    /// `pageIndex` (it refuses indices outside the story).
    init(
        story: Story, chapter: StoryChapter, at chapterIndex: Int, page: StoryPage, at pageIndex: Int,
        comments: [StoryComment], viewer: MemberRecord, commentsOpen: Bool, commentError: String?
    ) {
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
