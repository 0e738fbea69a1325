import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Track stories over the API.
extension APIImplementation {
    static func assetURL(_ path: String) -> String { "/content/stories/" + path }

    func listStories(_ input: Operations.listStories.Input) async throws -> Operations.listStories.Output {
        let me = try identity.requireMember()
        let found = try await stories.stories(
            me, query: input.query.q ?? "", bookmarkedOnly: input.query.bookmarked ?? false)
        return .ok(.init(body: .json(.init(stories: found.map(Components.Schemas.StorySummary.init)))))
    }

    func getStoryCatalog(_ input: Operations.getStoryCatalog.Input) async throws -> Operations.getStoryCatalog.Output {
        _ = try identity.requireMember()
        let content = try await stories.content()
        return .ok(
            .init(
                body: .json(
                    .init(
                        states: content.states.map { .init(code: $0.code, name: $0.name) },
                        tracks: content.tracks.map(Components.Schemas.RaceTrack.init)))))
    }

    func getStoryPreferences(_ input: Operations.getStoryPreferences.Input) async throws
        -> Operations.getStoryPreferences.Output
    {
        let me = try identity.requireMember()
        return .ok(.init(body: .json(.init(try await stories.preferences(me)))))
    }

    func setStoryPreferences(_ input: Operations.setStoryPreferences.Input) async throws
        -> Operations.setStoryPreferences.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let preferences = try await stories.setPreferences(
            me, states: body.states ?? [], tracks: body.tracks ?? [], skip: body.skip ?? false, scope: writeScope)
        return .ok(.init(body: .json(.init(preferences))))
    }

    func finishOnboarding(_ input: Operations.finishOnboarding.Input) async throws -> Operations.finishOnboarding.Output
    {
        try await stories.markOnboarded(try identity.requireMember(), scope: writeScope)
        return .noContent(.init())
    }

    func getStory(_ input: Operations.getStory.Input) async throws -> Operations.getStory.Output {
        let me = try identity.requireMember()
        let summary = try await stories.story(me, id: input.path.storyId)
        let content = try await stories.content()
        let story = summary.story
        return .ok(
            .init(
                body: .json(
                    .init(
                        story: .init(summary),
                        chapters: story.chapters.map { .init(id: $0.id, title: $0.title, pages: $0.pages.count) },
                        reward: .init(
                            points: story.reward.points,
                            card: story.reward.card.flatMap(content.card).map { .init($0, copies: nil) },
                            badge: story.reward.badge.flatMap { id in content.badges.first { $0.id == id } }.map {
                                .init($0, awardedAt: nil)
                            })))))
    }

    func setStoryBookmark(_ input: Operations.setStoryBookmark.Input) async throws -> Operations.setStoryBookmark.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        try await stories.setBookmark(me, story: input.path.storyId, on: body.bookmarked, scope: writeScope)
        return .noContent(.init())
    }

    func getStoryPage(_ input: Operations.getStoryPage.Input) async throws -> Operations.getStoryPage.Output {
        let me = try identity.requireMember()
        let (story, chapter, page) = try await stories.openPage(
            me, story: input.path.storyId, chapter: input.path.chapter, page: input.path.page, scope: writeScope)
        return .ok(
            .init(
                body: .json(
                    .init(
                        storyId: story.id, chapter: input.path.chapter, chapterTitle: chapter.title,
                        page: input.path.page,
                        pages: chapter.pages.count, text: page.text, imageUrl: Self.assetURL(page.image),
                        videoUrl: page.video.map(Self.assetURL)))))
    }

    func listStoryComments(_ input: Operations.listStoryComments.Input) async throws
        -> Operations.listStoryComments.Output
    {
        let me = try identity.requireMember()
        let page = try Paging(limit: input.query.limit, offset: input.query.offset)
        let comments = try await stories.comments(
            story: input.path.storyId, chapter: input.path.chapter, limit: page.limit, offset: page.offset)
        return .ok(.init(body: .json(.init(comments: comments.map { .init($0, viewer: me.id) }))))
    }

    func addStoryComment(_ input: Operations.addStoryComment.Input) async throws -> Operations.addStoryComment.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let comment = try await stories.addComment(
            me, story: input.path.storyId, chapter: input.path.chapter, text: body.text, scope: writeScope)
        return .created(.init(body: .json(.init(comment, viewer: me.id))))
    }

    func deleteStoryComment(_ input: Operations.deleteStoryComment.Input) async throws
        -> Operations.deleteStoryComment.Output
    {
        try await stories.deleteComment(try identity.requireMember(), id: input.path.commentId, scope: writeScope)
        return .noContent(.init())
    }

    func uploadSelfie(_ input: Operations.uploadSelfie.Input) async throws -> Operations.uploadSelfie.Output {
        let me = try identity.requireMember()
        guard case .binary(let body) = input.body else {
            throw DomainError.invalid(field: "body", Message("stories.error.sendBytes"))
        }
        let bytes = try await [UInt8](collecting: body, upTo: BodyLimitMiddleware.uploadMaxBytes)
        try await stories.uploadSelfie(me, story: input.path.storyId, bytes: bytes, scope: writeScope)
        return .noContent(.init())
    }

    func getSelfie(_ input: Operations.getSelfie.Input) async throws -> Operations.getSelfie.Output {
        let image = try await stories.selfie(try identity.requireMember(), story: input.path.storyId)
        return .ok(.init(body: .binary(HTTPBody(image.bytes))))
    }

    func collectStoryRewards(_ input: Operations.collectStoryRewards.Input) async throws
        -> Operations.collectStoryRewards.Output
    {
        let reward = try await stories.collect(
            try identity.requireMember(), story: input.path.storyId, scope: writeScope)
        return .created(
            .init(
                body: .json(
                    .init(
                        points: reward.points, balance: reward.balance,
                        card: reward.card.map { .init($0, copies: nil) },
                        badge: reward.badge.map { .init($0, awardedAt: nil) }))))
    }

    func getStoryProfile(_ input: Operations.getStoryProfile.Input) async throws -> Operations.getStoryProfile.Output {
        let me = try identity.requireMember()
        let profile = try await stories.profile(me)
        return .ok(
            .init(
                body: .json(
                    .init(
                        displayName: me.displayName, details: .init(profile.details), hasPhoto: profile.hasPhoto,
                        balance: profile.balance,
                        badges: profile.badges.map { .init($0.badge, awardedAt: $0.awardedAt) },
                        achievements: profile.achievements.map {
                            .init(
                                id: $0.achievement.id, title: $0.achievement.title,
                                description: $0.achievement.description,
                                progress: $0.progress, target: $0.achievement.target)
                        },
                        cards: profile.cards.map { .init($0.card, copies: $0.copies) }))))
    }

    func setProfileDetails(_ input: Operations.setProfileDetails.Input) async throws
        -> Operations.setProfileDetails.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let details = try await stories.setDetails(
            me, location: body.location ?? "", favouriteTrack: body.favouriteTrack ?? "", bio: body.bio ?? "",
            scope: writeScope)
        return .ok(.init(body: .json(.init(details))))
    }

    func uploadProfilePhoto(_ input: Operations.uploadProfilePhoto.Input) async throws
        -> Operations.uploadProfilePhoto.Output
    {
        let me = try identity.requireMember()
        guard case .binary(let body) = input.body else {
            throw DomainError.invalid(field: "body", Message("stories.error.sendBytes"))
        }
        try await stories.uploadPhoto(
            me, bytes: try await [UInt8](collecting: body, upTo: BodyLimitMiddleware.uploadMaxBytes), scope: writeScope)
        return .noContent(.init())
    }

    func getProfilePhoto(_ input: Operations.getProfilePhoto.Input) async throws -> Operations.getProfilePhoto.Output {
        let image = try await stories.photo(try identity.requireMember())
        return .ok(.init(body: .binary(HTTPBody(image.bytes))))
    }

    func getPoints(_ input: Operations.getPoints.Input) async throws -> Operations.getPoints.Output {
        let me = try identity.requireMember()
        let page = try Paging(limit: input.query.limit, offset: input.query.offset)
        let (balance, entries) = try await stories.points(me, limit: page.limit, offset: page.offset)
        return .ok(
            .init(body: .json(.init(balance: balance, entries: entries.map(Components.Schemas.LedgerEntry.init)))))
    }

    func listDailyTasks(_ input: Operations.listDailyTasks.Input) async throws -> Operations.listDailyTasks.Output {
        let tasks = try await stories.dailyTasks(try identity.requireMember())
        return .ok(
            .init(
                body: .json(
                    .init(
                        tasks: tasks.map {
                            .init(id: $0.task.id, title: $0.task.title, points: $0.task.points, done: $0.done)
                        }))))
    }

    func completeDailyTask(_ input: Operations.completeDailyTask.Input) async throws
        -> Operations.completeDailyTask.Output
    {
        let balance = try await stories.completeTask(
            try identity.requireMember(), task: input.path.taskId, scope: writeScope)
        return .created(.init(body: .json(.init(balance: balance))))
    }

    func listShopCards(_ input: Operations.listShopCards.Input) async throws -> Operations.listShopCards.Output {
        let me = try identity.requireMember()
        let query = input.query.q ?? ""
        guard query.count <= 100 else {
            throw DomainError.invalid(field: "q", Message("stories.error.searchTooLong", ["max": .number(100)]))
        }
        let cards = try await stories.content().shop(query)
        let balance = try await stories.points(me, limit: 1, offset: 0).balance
        return .ok(.init(body: .json(.init(balance: balance, cards: cards.map { .init($0, copies: nil) }))))
    }

    func buyCard(_ input: Operations.buyCard.Input) async throws -> Operations.buyCard.Output {
        let (card, balance) = try await stories.buy(
            try identity.requireMember(), card: input.path.cardId, scope: writeScope)
        return .created(.init(body: .json(.init(card: .init(card, copies: nil), balance: balance))))
    }

    func listHelpTopics(_ input: Operations.listHelpTopics.Input) async throws -> Operations.listHelpTopics.Output {
        _ = try identity.requireMember()
        return .ok(
            .init(
                body: .json(
                    .init(
                        topics: try await stories.content().help.map { .init(question: $0.question, answer: $0.answer) }
                    ))))
    }
}

// MARK: Core values to wire types

extension Components.Schemas.RaceTrack {
    init(_ track: RaceTrack) {
        self.init(
            id: track.id, name: track.name, state: track.state, city: track.city, latitude: track.latitude,
            longitude: track.longitude)
    }
}

extension Components.Schemas.StoryPreferences {
    init(_ preferences: StoryPreferences) {
        self.init(
            onboarded: preferences.onboarded, skipped: preferences.skipped, states: preferences.states,
            tracks: preferences.tracks)
    }
}

extension Components.Schemas.StorySummary {
    init(_ summary: StorySummary) {
        let story = summary.story
        self.init(
            id: story.id, title: story.title, description: story.description,
            coverUrl: APIImplementation.assetURL(story.cover),
            track: summary.track.map(Components.Schemas.RaceTrack.init)
                ?? .init(id: story.track, name: story.track, state: "", city: "", latitude: 0, longitude: 0),
            bookmarked: summary.bookmarked, hasSelfie: summary.hasSelfie, collected: summary.collected,
            chapters: story.chapters.count,
            reachedChapter: summary.reached?.chapter, reachedPage: summary.reached?.page)
    }
}

extension Components.Schemas.TradingCard {
    init(_ card: TradingCard, copies: Int?) {
        self.init(
            id: card.id, name: card.name, imageUrl: APIImplementation.assetURL(card.image),
            rarity: .init(rawValue: card.rarity.rawValue) ?? .common,
            price: card.price, description: card.description, copies: copies)
    }
}

extension Components.Schemas.StoryBadgeView {
    init(_ badge: StoryBadge, awardedAt: Date?) {
        self.init(
            id: badge.id, title: badge.title, description: badge.description,
            imageUrl: APIImplementation.assetURL(badge.image), awardedAt: awardedAt)
    }
}

extension Components.Schemas.StoryComment {
    init(_ comment: QuestlineStore.StoryComment, viewer: MemberID) {
        self.init(
            id: comment.id, author: comment.authorName, text: comment.body, createdAt: comment.createdAt,
            mine: comment.memberID == viewer)
    }
}

extension Components.Schemas.ProfileDetails {
    init(_ details: MemberDetails) {
        self.init(location: details.location, favouriteTrack: details.favouriteTrack, bio: details.bio)
    }
}

extension Components.Schemas.LedgerEntry {
    init(_ entry: LedgerEntry) {
        self.init(
            id: entry.id, kind: .init(rawValue: entry.kind.rawValue) ?? .adjust, points: entry.points,
            balanceAfter: entry.balanceAfter,
            // Reasons kept as messages (`Message.stored`) in the request's language; older rows as written.
            reason: RequestLanguage.localizer(Message(stored: entry.reason)), challengeId: entry.questID?.rawValue,
            createdAt: entry.createdAt)
    }
}
