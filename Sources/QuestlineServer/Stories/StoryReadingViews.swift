import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

// A story's screens as typed page models: its detail, a page of a chapter with comments, the
// selfie just taken and the rewards collected.

/// A story with its progress and chapters (`story-detail.mustache`).
struct StoryDetailPage: Equatable {
    struct Chapter: Equatable {
        let index: Int
        let number: Int
        let title: String
        /// "Chapter 2: Esses and the stadium" (the slider's script reads it).
        let label: String
        /// "3 pages".
        let pages: String
        let read: Bool
    }

    let story: StoryTile
    let chapters: [Chapter]
    let totalPages: Int
    let reachedPages: Int
    /// "Reached: Chapter 1, page 2 (2 of 10 pages)".
    let reachedLine: String
    /// The slider moves through the chapters, starting at the one reached.
    let chapterCount: Int
    let sliderChapter: Int
    /// "Chapter 1: The brickyard", the chapter the slider is on.
    let sliderText: String
    let hasSelfie: Bool
    let collected: Bool
    let canCollect: Bool
    /// Why the button waits (the server refuses the same way).
    let collectWhy: String
    /// "Rewards: 140 points, the Golden Brick card, the Brickyard badge."
    let rewardLine: String
    let error: String?

    init(_ summary: StorySummary, content: StoryContent, error: String?, localizer l: Localizer) {
        let story = summary.story
        self.story = StoryTile(summary, localizer: l)
        let reachedChapter = summary.reached?.chapter ?? -1
        func label(_ index: Int) -> String {
            l("stories.detail.chapter", ["number": .number(index + 1), "title": .text(story.chapters[index].title)])
        }
        chapters = story.chapters.enumerated().map { index, chapter in
            Chapter(
                index: index, number: index + 1, title: chapter.title, label: label(index),
                pages: l(Message.count(chapter.pages.count, .pages)), read: reachedChapter >= index)
        }
        totalPages = story.chapters.reduce(0) { $0 + $1.pages.count }
        reachedPages =
            summary.reached.map { reached in
                story.chapters.prefix(reached.chapter).reduce(0) { $0 + $1.pages.count } + reached.page + 1
            } ?? 0
        let place =
            summary.reached.map {
                Message("stories.detail.place", ["chapter": .number($0.chapter + 1), "page": .number($0.page + 1)])
            } ?? Message("stories.detail.notStarted")
        reachedLine = l(
            "stories.detail.reached",
            ["place": .message(place), "reached": .number(reachedPages), "pages": .message(.count(totalPages, .pages))])
        chapterCount = story.chapters.count
        sliderChapter = max(reachedChapter, 0) + 1
        sliderText = story.chapters.isEmpty ? "" : label(max(reachedChapter, 0))
        hasSelfie = summary.hasSelfie
        collected = summary.collected
        canCollect = summary.reached != nil && summary.hasSelfie && !summary.collected
        collectWhy = l(
            summary.reached == nil
                ? (summary.hasSelfie ? "stories.detail.why.read" : "stories.detail.why.readAndSelfie")
                : "stories.detail.why.selfie")
        let card = story.reward.card.flatMap(content.card)?.name
        let badge = story.reward.badge.flatMap { id in content.badges.first { $0.id == id }?.title }
        // stories.detail.rewards.points, .card, .badge, .cardAndBadge
        let which =
            switch (card, badge) {
            case (nil, nil): "points"
            case (_?, nil): "card"
            case (nil, _?): "badge"
            case (_?, _?): "cardAndBadge"
            }
        rewardLine = l(
            "stories.detail.rewards.\(which)",
            [
                "points": .message(.count(story.reward.points, .points)), "card": .text(card ?? ""),
                "badge": .text(badge ?? ""),
            ])
        self.error = error
    }
}

/// A page of a chapter with its comments (`story-page.mustache`).
struct StoryChapterPage: Equatable {
    struct Dot: Equatable {
        let href: String
        let number: Int
        /// "Page 2".
        let label: String
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
    /// "Indianapolis · Chapter 2: Esses and the stadium".
    let heading: String
    let text: String
    let image: String
    let video: String?
    let dots: [Dot]
    let previous: String?
    let next: String?
    let finished: Bool
    let comments: [Comment]
    let commentCount: Int
    /// "Comments (2)".
    let commentsButton: String
    let commentsOpen: Bool
    let commentError: String?
    let here: String

    /// `chapter` and `page` as `StoriesFeature.openPage` found them at `chapterIndex` and
    /// `pageIndex` (it refuses indices outside the story).
    init(
        story: Story, chapter: StoryChapter, at chapterIndex: Int, page: StoryPage, at pageIndex: Int,
        comments: [StoryComment], viewer: MemberRecord, commentsOpen: Bool, commentError: String?,
        localizer l: Localizer
    ) {
        let base = "/stories/read/\(story.id)/\(chapterIndex)"
        let nextChapter =
            chapterIndex + 1 < story.chapters.count ? "/stories/read/\(story.id)/\(chapterIndex + 1)/0" : nil
        storyId = story.id
        storyTitle = story.title
        self.chapterIndex = chapterIndex
        chapterNumber = chapterIndex + 1
        chapterTitle = chapter.title
        heading = l(
            "stories.page.heading",
            ["story": .text(story.title), "number": .number(chapterIndex + 1), "title": .text(chapter.title)])
        text = page.text
        image = storyAsset(page.image)
        video = page.video.map(storyAsset)
        dots = chapter.pages.indices.map {
            Dot(
                href: "\(base)/\($0)", number: $0 + 1, label: l("stories.page.dot", ["number": .number($0 + 1)]),
                current: $0 == pageIndex)
        }
        previous = pageIndex > 0 ? "\(base)/\(pageIndex - 1)" : nil
        next = pageIndex + 1 < chapter.pages.count ? "\(base)/\(pageIndex + 1)" : nextChapter
        finished = pageIndex + 1 == chapter.pages.count && nextChapter == nil
        self.comments = comments.map {
            Comment(
                id: $0.id, author: $0.authorName, text: $0.body, mine: $0.memberID == viewer.id,
                when: l.format(LocalDay($0.createdAt, in: viewer.zone), .weekday))
        }
        commentCount = comments.count
        commentsButton = l("stories.page.commentsButton", ["count": .number(comments.count)])
        self.commentsOpen = commentsOpen
        self.commentError = commentError
        here = "\(base)/\(pageIndex)"
    }
}

/// 4_Selfie2: the selfie just taken (`story-selfie.mustache`).
struct StorySelfiePage: Equatable {
    let storyId: String
    let storyTitle: String
    let canCollect: Bool
    /// "Your selfie at Indianapolis Motor Speedway".
    let alt: String
    /// "Your selfie at … is saved. The rewards of “…” are waiting for you."
    let saved: String

    init(_ summary: StorySummary, localizer l: Localizer) {
        storyId = summary.story.id
        storyTitle = summary.story.title
        canCollect = summary.reached != nil && !summary.collected
        let track: [String: Message.Argument] = summary.track.map { ["track": .text($0.name)] } ?? [:]
        alt = l(summary.track == nil ? "stories.selfie.altNoTrack" : "stories.selfie.alt", track)
        saved =
            l(summary.track == nil ? "stories.selfie.savedNoTrack" : "stories.selfie.saved", track) + " "
            + l(
                canCollect ? "stories.selfie.rewardsWaiting" : "stories.selfie.readFirst",
                ["story": .text(summary.story.title)])
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
    /// "+140 points".
    let pointsText: String
    /// "balance 170".
    let balanceText: String
    let card: Card?
    let badge: Badge?

    init(_ summary: StorySummary, content: StoryContent, balance: Int, localizer l: Localizer) {
        let reward = summary.story.reward
        storyId = summary.story.id
        storyTitle = summary.story.title
        points = reward.points
        self.balance = balance
        pointsText = l("stories.rewards.points", ["count": .number(reward.points)])
        balanceText = l("stories.rewards.balance", ["balance": .number(balance)])
        card = reward.card.flatMap(content.card).map {
            Card(name: $0.name, image: storyAsset($0.image), rarity: l($0.rarity.title))
        }
        badge = reward.badge.flatMap { badge in content.badges.first { $0.id == badge } }.map {
            Badge(title: $0.title, image: storyAsset($0.image), description: $0.description)
        }
    }
}
