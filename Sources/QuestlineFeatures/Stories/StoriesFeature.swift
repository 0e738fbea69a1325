public import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore
public import QuestlineStore

/// The content in memory: it changes only on an import, and a server re-reads it at most
/// every 30 s (an import from the CLI is another process).
final class StoryContentCache: Sendable {
    private let value = NIOLockedValueBox<(content: StoryContent, loadedAt: Date)?>(nil)
    static let lifetime: TimeInterval = 30

    func get(now: Date, load: () async throws -> StoryContent?) async throws -> StoryContent {
        if let cached = value.withLockedValue({ $0 }), now.timeIntervalSince(cached.loadedAt) < Self.lifetime,
            now >= cached.loadedAt
        {
            return cached.content
        }
        guard let content = try await load() else {
            throw DomainError.unavailable(Message("stories.error.noContent"))
        }
        value.withLockedValue { $0 = (content, now) }
        return content
    }

    func invalidate() { value.withLockedValue { $0 = nil } }
}

/// A story as a list shows it.
public struct StorySummary: Sendable {
    public let story: Story
    public let track: RaceTrack?
    public let bookmarked: Bool
    /// Chapter and page reached (0-based), if started.
    public let reached: (chapter: Int, page: Int)?
    public let hasSelfie: Bool
    public let collected: Bool
}

/// What collecting a story's rewards granted.
public struct CollectedReward: Sendable {
    public let points: Int
    public let card: TradingCard?
    public let badge: StoryBadge?
    public let balance: Int
}

/// The profile screen: details, badges, achievements with progress, cards.
public struct StoryProfile: Sendable {
    public let details: MemberDetails
    public let hasPhoto: Bool
    public let badges: [(badge: StoryBadge, awardedAt: Date?)]
    public let achievements: [(achievement: Achievement, progress: Int)]
    public let cards: [(card: TradingCard, copies: Int)]
    public let balance: Int
}

/// Track stories for a member: preferences, reading, comments, bookmarks, selfies and
/// rewards, the profile, points with daily tasks, and the card shop.
public struct StoriesFeature: Sendable {
    private let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    let cache: StoryContentCache

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        cache = StoryContentCache()
    }

    public func content() async throws -> StoryContent {
        try await cache.get(now: clock.now()) { try await store.stories.content()?.content }
    }

    private func story(_ id: String, in content: StoryContent) throws -> Story {
        guard let story = content.story(id) else { throw DomainError.notFound(Message("stories.error.noSuchStory")) }
        return story
    }

    // MARK: Onboarding and preferences

    public func preferences(_ member: MemberRecord) async throws -> StoryPreferences {
        try await store.stories.read { try await $0.preferences(member.id) }
    }

    public func markOnboarded(_ member: MemberRecord, scope: WriteScope) async throws {
        try await store.stories.write(scope) { q in
            var preferences = try await q.preferences(member.id)
            preferences.onboarded = true
            try await q.setPreferences(member.id, preferences, now: clock.now())
        }
    }

    public func setPreferences(
        _ member: MemberRecord, states: [String], tracks: [String], skip: Bool, scope: WriteScope
    ) async throws
        -> StoryPreferences
    {
        let chosen = try StoryRules.preferences(
            states: states, tracks: tracks, skip: skip, content: try await content())
        return try await store.stories.write(scope) { q in
            let preferences = StoryPreferences(
                onboarded: true, skipped: skip, states: chosen.states, tracks: chosen.tracks)
            try await q.setPreferences(member.id, preferences, now: clock.now())
            return preferences
        }
    }

    // MARK: Stories

    public func stories(_ member: MemberRecord, query: String, bookmarkedOnly: Bool = false) async throws
        -> [StorySummary]
    {
        guard query.count <= 100 else {
            throw DomainError.invalid(field: "q", Message("stories.error.searchTooLong", ["max": .number(100)]))
        }
        let content = try await content()
        let (preferences, activity) = try await store.stories.read { q in
            (try await q.preferences(member.id), try await q.activity(member.id))
        }
        return content.search(query, preferredTracks: Set(preferences.tracks))
            .filter { !bookmarkedOnly || activity.bookmarks.contains($0.id) }
            .map { summary($0, content: content, activity: activity) }
    }

    private func summary(_ story: Story, content: StoryContent, activity: StoryActivity) -> StorySummary {
        StorySummary(
            story: story, track: content.track(story.track), bookmarked: activity.bookmarks.contains(story.id),
            reached: activity.progress[story.id], hasSelfie: activity.selfies.contains(story.id),
            collected: activity.collected.contains(story.id))
    }

    public func story(_ member: MemberRecord, id: String) async throws -> StorySummary {
        let content = try await content()
        let story = try story(id, in: content)
        return summary(
            story, content: content, activity: try await store.stories.read { try await $0.activity(member.id) })
    }

    /// Opens a page: returns it and records the progress (the furthest page is kept).
    public func openPage(_ member: MemberRecord, story id: String, chapter: Int, page: Int, scope: WriteScope)
        async throws -> (
            Story, StoryChapter, StoryPage
        )
    {
        let content = try await content()
        let story = try story(id, in: content)
        guard story.chapters.indices.contains(chapter) else {
            throw DomainError.notFound(Message("stories.error.noSuchChapter"))
        }
        let chapterValue = story.chapters[chapter]
        guard chapterValue.pages.indices.contains(page) else {
            throw DomainError.notFound(Message("stories.error.noSuchPage"))
        }
        try await store.stories.write(scope) { q in
            let lastPage = page == chapterValue.pages.count - 1
            if try await q.recordPage(
                member.id, story: id, chapter: chapter, page: page, chapterID: chapterValue.id,
                lastPage: lastPage, now: clock.now())
            {
                try await awardBadges(q, member: member, content: content)
            }
            if lastPage { try await completeTasks(q, .chapter, member: member, content: content) }
        }
        return (story, chapterValue, chapterValue.pages[page])
    }

    public func setBookmark(_ member: MemberRecord, story id: String, on: Bool, scope: WriteScope) async throws {
        _ = try story(id, in: try await content())
        try await store.stories.write(scope) {
            try await $0.setBookmark(member.id, story: id, on: on, now: clock.now())
        }
    }

    // MARK: Comments

    private func chapterID(_ story: Story, _ chapter: Int) throws -> String {
        guard story.chapters.indices.contains(chapter) else {
            throw DomainError.notFound(Message("stories.error.noSuchChapter"))
        }
        return story.chapters[chapter].id
    }

    public func comments(story id: String, chapter: Int, limit: Int, offset: Int) async throws -> [StoryComment] {
        let chapterID = try chapterID(try story(id, in: try await content()), chapter)
        return try await store.stories.read {
            try await $0.comments(story: id, chapter: chapterID, limit: limit, offset: offset)
        }
    }

    public func addComment(_ member: MemberRecord, story id: String, chapter: Int, text: String, scope: WriteScope)
        async throws
        -> StoryComment
    {
        let content = try await content()
        let chapterID = try chapterID(try story(id, in: content), chapter)
        let body = try StoryRules.comment(text)
        let commentID = ids.makeUUID().uuidString.lowercased()
        return try await store.stories.write(scope) { q in
            try await q.addComment(
                id: commentID, member: member.id, story: id, chapter: chapterID, body: body, now: clock.now())
            try await awardBadges(q, member: member, content: content)
            try await completeTasks(q, .comment, member: member, content: content)
            return try await q.comment(commentID).orNoRow("the comment just written")
        }
    }

    /// A member deletes only their own comments.
    public func deleteComment(_ member: MemberRecord, id: String, scope: WriteScope) async throws {
        try await store.stories.write(scope) { q in
            guard let comment = try await q.comment(id) else {
                throw DomainError.notFound(Message("stories.error.noSuchComment"))
            }
            try AccessPolicy.check(member.actor, .deleteComment(author: comment.memberID))
            try await q.deleteComment(id)
        }
    }

    // MARK: Selfies and rewards

    public func uploadSelfie(_ member: MemberRecord, story id: String, bytes: [UInt8], scope: WriteScope) async throws {
        let content = try await content()
        _ = try story(id, in: content)
        let type = try UploadedImage.validate(bytes, field: "selfie")
        try await store.stories.write(scope) { q in
            try await q.putImage(member.id, kind: "selfie:" + id, contentType: type, bytes: bytes, now: clock.now())
            try await awardBadges(q, member: member, content: content)
            try await completeTasks(q, .selfie, member: member, content: content)
        }
    }

    /// The member's own selfie for a story (nobody else's is ever served).
    public func selfie(_ member: MemberRecord, story id: String) async throws -> MemberImage {
        guard let image = try await store.stories.read({ try await $0.image(member.id, kind: "selfie:" + id) }) else {
            throw DomainError.notFound(Message("stories.error.noSelfie"))
        }
        return image
    }

    /// Collects a story's rewards: needs a selfie, happens once.
    public func collect(_ member: MemberRecord, story id: String, scope: WriteScope) async throws -> CollectedReward {
        let content = try await content()
        let story = try story(id, in: content)
        let now = clock.now()
        return try await store.stories.write(scope) { q in
            try await q.points.lock(member.id)
            // The rewards are for reading the story: a page of it must have been opened.
            guard try await q.activity(member.id).progress[id] != nil else {
                throw DomainError.conflict(field: nil, message: Message("stories.error.readFirst"))
            }
            guard try await q.image(member.id, kind: "selfie:" + id) != nil else {
                throw DomainError.conflict(field: nil, message: Message("stories.error.selfieFirst"))
            }
            guard try await q.collect(member.id, story: id, now: now) else {
                throw DomainError.conflict(field: nil, message: Message("stories.error.alreadyCollected"))
            }
            var balance = try await q.points.balance(member.id).balance
            if story.reward.points > 0 {
                balance = try await q.points.append(
                    member.id, kind: .story, points: story.reward.points,
                    reason: Message("stories.ledger.storyRewards", ["story": .text(story.title)]).stored,
                    id: ids.makeUUID().uuidString.lowercased(), now: now)
            }
            let card = story.reward.card.flatMap(content.card)
            if let card { try await q.addCard(member.id, card: card.id, now: now) }
            let badge = story.reward.badge.flatMap { badge in content.badges.first { $0.id == badge } }
            if let badge, try await q.award(member.id, badge: badge.id, now: now) {
                try await recordBadge(q, member: member, badge: badge.id, now: now)
            }
            try await q.live?.record(
                .storyRewardsCollected, member: member.id,
                data: OutboxData.StoryRewardsCollected(
                    memberId: member.id.rawValue, storyId: story.id, points: story.reward.points, cardId: card?.id,
                    badgeId: badge?.id), now: now)
            try await awardBadges(q, member: member, content: content)
            if story.reward.points > 0 { try await announcePoints(q, member: member, now: now) }
            return CollectedReward(points: story.reward.points, card: card, badge: badge, balance: balance)
        }
    }

    private func recordBadge(_ q: StoryMemberQueries, member: MemberRecord, badge: String, now: Date) async throws {
        try await q.live?.record(
            .badgeAwarded, member: member.id,
            data: OutboxData.BadgeAwarded(memberId: member.id.rawValue, badgeId: badge, feature: "stories"), now: now)
    }

    /// A member of a household changed their points: its devices re-read them, with the write.
    private func announcePoints(_ q: StoryMemberQueries, member: MemberRecord, now: Date) async throws {
        guard let household = member.householdID else { return }
        try await q.live?.announce(.points, household: household, child: member.id, now: now)
    }

    // MARK: Badges and achievements

    private static func counts(_ activity: StoryActivity, pointsEarned: Int) -> (AchievementMetric) -> Int {
        { metric in
            StoryRules.progress(
                metric, storiesCompleted: activity.collected.count, comments: activity.comments,
                selfies: activity.selfies.count,
                cards: activity.cards.values.reduce(0, +), pointsEarned: pointsEarned, tasksDone: activity.tasksDone,
                chaptersRead: activity.chaptersRead)
        }
    }

    /// Awards the badges whose counts have been reached (each once).
    private func awardBadges(_ q: StoryMemberQueries, member: MemberRecord, content: StoryContent) async throws {
        let activity = try await q.activity(member.id)
        let count = Self.counts(activity, pointsEarned: try await q.points.balance(member.id).earned)
        for badge in content.badges {
            guard let metric = badge.metric, let target = badge.target, activity.badges[badge.id] == nil,
                count(metric) >= target
            else { continue }
            let now = clock.now()
            if try await q.award(member.id, badge: badge.id, now: now) {
                try await recordBadge(q, member: member, badge: badge.id, now: now)
            }
        }
    }

    // MARK: Profile

    public func profile(_ member: MemberRecord) async throws -> StoryProfile {
        let content = try await content()
        return try await store.stories.read { q in
            let activity = try await q.activity(member.id)
            let points = try await q.points.balance(member.id)
            let count = Self.counts(activity, pointsEarned: points.earned)
            return StoryProfile(
                details: try await q.details(member.id), hasPhoto: try await q.image(member.id, kind: "photo") != nil,
                badges: content.badges.map { ($0, activity.badges[$0.id]) },
                achievements: content.achievements.map { ($0, min(count($0.metric), $0.target)) },
                cards: content.cards.compactMap { card in activity.cards[card.id].map { (card, $0) } },
                balance: points.balance)
        }
    }

    public func setDetails(
        _ member: MemberRecord, location: String, favouriteTrack: String, bio: String, scope: WriteScope
    ) async throws
        -> MemberDetails
    {
        var v = FieldValidation()
        func field(_ value: String, _ name: String, max: Int) -> String {
            let trimmed = value.trimmed()
            v.check { () throws(DomainError) in
                if trimmed.count > max {
                    throw .invalid(field: name, Message("stories.error.detailTooLong", ["max": .number(max)]))
                }
            }
            return trimmed
        }
        let details = MemberDetails(
            location: field(location, "location", max: 80),
            favouriteTrack: field(favouriteTrack, "favouriteTrack", max: 80),
            bio: field(bio, "bio", max: 500))
        try v.finish()
        try await store.stories.write(scope) { try await $0.setDetails(member.id, details, now: clock.now()) }
        return details
    }

    public func uploadPhoto(_ member: MemberRecord, bytes: [UInt8], scope: WriteScope) async throws {
        let type = try UploadedImage.validate(bytes, field: "photo")
        try await store.stories.write(scope) {
            try await $0.putImage(member.id, kind: "photo", contentType: type, bytes: bytes, now: clock.now())
        }
    }

    public func photo(_ member: MemberRecord) async throws -> MemberImage {
        guard let image = try await store.stories.read({ try await $0.image(member.id, kind: "photo") }) else {
            throw DomainError.notFound(Message("stories.error.noPhoto"))
        }
        return image
    }

    // MARK: Points, daily tasks, shop

    /// Today's daily tasks (in the member's zone) and whether each is done.
    public func dailyTasks(_ member: MemberRecord) async throws -> [(task: DailyTask, done: Bool)] {
        let content = try await content()
        let today = LocalDay(clock.now(), in: member.zone)
        let done = try await store.stories.read { try await $0.tasksDone(member.id, day: today) }
        return content.dailyTasks.map { ($0, done.contains($0.id)) }
    }

    /// Completes a daily task: once per local day; credits its points.
    /// Today's daily tasks done by `action`, each paid once a day, in the caller's transaction.
    private func completeTasks(
        _ q: StoryMemberQueries, _ action: TaskAction, member: MemberRecord, content: StoryContent
    ) async throws {
        let now = clock.now()
        let today = LocalDay(now, in: member.zone)
        var paid = false
        for task in content.dailyTasks where task.action == action {
            guard try await q.completeTask(member.id, task: task.id, day: today, now: now) else { continue }
            _ = try await q.points.append(
                member.id, kind: .task, points: task.points,
                reason: Message("stories.ledger.dailyTask", ["task": .text(task.title)]).stored,
                id: ids.makeUUID().uuidString.lowercased(), now: now)
            paid = true
        }
        if paid {
            try await awardBadges(q, member: member, content: content)
            try await announcePoints(q, member: member, now: now)
        }
    }

    /// The stories were opened (the web app's Stories area, or an app's check-in): the "open"
    /// tasks are done for today.
    public func checkIn(_ member: MemberRecord, scope: WriteScope) async throws {
        let content = try await content()
        guard content.dailyTasks.contains(where: { $0.action == .open }) else { return }
        try await store.stories.write(scope) { q in try await completeTasks(q, .open, member: member, content: content)
        }
    }

    /// Completes a task through the API: only a task done by opening the stories (an app's
    /// check-in); the others complete themselves when their action is done, never on a claim.
    public func completeTask(_ member: MemberRecord, task id: String, scope: WriteScope) async throws -> Int {
        let content = try await content()
        guard let task = content.dailyTasks.first(where: { $0.id == id }) else {
            throw DomainError.notFound(Message("stories.error.noSuchTask"))
        }
        guard task.action == .open else {
            throw DomainError.conflict(field: nil, message: task.action.completesItself(task.title))
        }
        let now = clock.now()
        let today = LocalDay(now, in: member.zone)
        return try await store.stories.write(scope) { q in
            guard try await q.completeTask(member.id, task: id, day: today, now: now) else {
                throw DomainError.conflict(
                    field: nil, message: Message("stories.error.taskDoneToday", ["task": .text(task.title)]))
            }
            let balance = try await q.points.append(
                member.id, kind: .task, points: task.points,
                reason: Message("stories.ledger.dailyTask", ["task": .text(task.title)]).stored,
                id: ids.makeUUID().uuidString.lowercased(), now: now)
            try await awardBadges(q, member: member, content: content)
            try await announcePoints(q, member: member, now: now)
            return balance
        }
    }

    /// The copies the member owns of each card (the shop marks them).
    public func ownedCards(_ member: MemberRecord) async throws -> [String: Int] {
        try await store.stories.read { try await $0.activity(member.id).cards }
    }

    /// Buys a card: spends its price (never below zero) and adds it to the collection.
    public func buy(_ member: MemberRecord, card id: String, scope: WriteScope) async throws -> (
        card: TradingCard, balance: Int
    ) {
        let content = try await content()
        guard let card = content.card(id) else { throw DomainError.notFound(Message("stories.error.noSuchCard")) }
        let now = clock.now()
        return try await store.stories.write(scope) { q in
            let balance: Int
            do {
                balance = try await q.points.append(
                    member.id, kind: .purchase, points: -card.price,
                    reason: Message("stories.ledger.card", ["card": .text(card.name)]).stored,
                    id: ids.makeUUID().uuidString.lowercased(), now: now)
            } catch PointsError.insufficientPoints(let have) {
                throw DomainError.conflict(
                    field: "cardId",
                    message: Message(
                        "stories.error.cardTooDear",
                        [
                            "card": .text(card.name), "price": .message(.count(card.price, .points)),
                            "balance": .number(have),
                        ]))
            }
            try await q.addCard(member.id, card: card.id, now: now)
            try await awardBadges(q, member: member, content: content)
            try await announcePoints(q, member: member, now: now)
            return (card, balance)
        }
    }

    public func points(_ member: MemberRecord, limit: Int, offset: Int) async throws -> (
        balance: Int, entries: [LedgerEntry]
    ) {
        try await store.stories.read { q in
            (
                try await q.points.balance(member.id).balance,
                try await q.points.entries(member.id, limit: limit, offset: offset)
            )
        }
    }
}
