import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

// The stories member's own screens as typed page models: the profile with badges and cards,
// points with daily tasks, and the card shop.

/// The stories profile (`stories-profile.mustache`): details, photo, badges, achievements, cards.
struct StoriesProfilePage: Equatable {
    struct Details: Equatable {
        let location: String
        let favouriteTrack: String
        let bio: String
    }

    struct Badge: Equatable {
        let id: String
        let title: String
        let description: String
        let image: String
        let earned: Bool
    }

    struct Achievement: Equatable {
        let title: String
        let description: String
        let progress: Int
        let target: Int
        let done: Bool
    }

    struct Card: Equatable {
        let id: String
        let name: String
        let image: String
        let rarity: String
        let description: String
        let copies: Int
        let several: Bool
    }

    let name: String
    let details: Details
    let editing: Bool
    let hasPhoto: Bool
    let initial: String
    let balance: Int
    /// "170 points".
    let balanceText: String
    let badges: [Badge]
    let achievements: [Achievement]
    let cards: [Card]
    let noCards: Bool
    /// "No cards yet: collect a story's rewards or visit the <a …>card shop</a>." (HTML).
    let noCardsLine: String
    let cardsTab: Bool
    let badgesTab: Bool
    let errors: [String: String]
    let saved: Bool

    /// `editing` when asked for or when a refused form comes back with `errors`.
    init(
        _ profile: StoryProfile, member: MemberRecord, cardsTab: Bool, editing: Bool, errors: [String: String],
        saved: Bool, localizer l: Localizer
    ) {
        name = member.displayName
        details = Details(
            location: profile.details.location, favouriteTrack: profile.details.favouriteTrack,
            bio: profile.details.bio)
        self.editing = editing || !errors.isEmpty
        hasPhoto = profile.hasPhoto
        initial = String(member.displayName.prefix(1)).uppercased()
        balance = profile.balance
        balanceText = l(Message.count(profile.balance, .points))
        badges = profile.badges.map {
            Badge(
                id: $0.badge.id, title: $0.badge.title, description: $0.badge.description,
                image: storyAsset($0.badge.image), earned: $0.awardedAt != nil)
        }
        achievements = profile.achievements.map {
            Achievement(
                title: $0.achievement.title, description: $0.achievement.description, progress: $0.progress,
                target: $0.achievement.target, done: $0.progress >= $0.achievement.target)
        }
        cards = profile.cards.map {
            Card(
                id: $0.card.id, name: $0.card.name, image: storyAsset($0.card.image), rarity: l($0.card.rarity.title),
                description: $0.card.description, copies: $0.copies, several: $0.copies > 1)
        }
        noCards = profile.cards.isEmpty
        noCardsLine = l.html(
            Message("stories.profile.noCards"),
            markup: ["shop": "<a href=\"/stories/shop\">\(HTML.escaped(l("stories.profile.noCardsShop")))</a>"])
        self.cardsTab = cardsTab
        badgesTab = !cardsTab
        self.errors = errors
        self.saved = saved
    }
}

/// Points, their history and the daily tasks (`stories-points.mustache`).
struct StoriesPointsPage: Equatable {
    struct Entry: Equatable {
        let reason: String
        let points: String
        let plus: Bool
        let when: String
    }

    struct Task: Equatable {
        let id: String
        let title: String
        /// "+10".
        let points: String
        let done: Bool
        let hint: String
    }

    struct Redeemable: Equatable {
        let title: String
        /// "500 points".
        let points: String
        let toast: String
        /// Offered only when the balance covers it; otherwise what is missing is said.
        let affordable: Bool
        let missing: String
    }

    /// What the TI-Points screen offers to redeem, by key (`stories.redeem.ticketDiscount`, its
    /// toast `….toast`). Seed 003 stubs its Redeem buttons with a toast: nothing is spent.
    static let redeemables = [("ticketDiscount", 500), ("pitLaneTour", 1_000), ("signedPhoto", 1_500)]

    let balance: Int
    /// "<span data-balance>170</span> points" (HTML).
    let balanceLine: String
    let tasksTab: Bool
    let pointsTab: Bool
    let entries: [Entry]
    let noEntries: Bool
    let tasks: [Task]
    let notice: String?
    let redeemables: [Redeemable]

    init(
        balance: Int, entries: [LedgerEntry], tasks: [(task: DailyTask, done: Bool)], zone: TimeZone,
        tasksTab: Bool, notice: String?, localizer l: Localizer
    ) {
        self.balance = balance
        balanceLine = l.html(
            Message.count(balance, .points),
            markup: ["count": "<span data-balance>\(HTML.escaped(l.render(.number(balance))))</span>"])
        self.tasksTab = tasksTab
        pointsTab = !tasksTab
        func signed(_ points: Int) -> String {
            points > 0 ? "+" + l.render(.number(points)) : l.render(.number(points))
        }
        self.entries = entries.map {
            // Reasons are kept as messages (`Message.stored`); older rows read as written.
            Entry(
                reason: l(Message(stored: $0.reason)), points: signed($0.points), plus: $0.points > 0,
                when: l.format(LocalDay($0.createdAt, in: zone), .weekday))
        }
        noEntries = entries.isEmpty
        self.tasks = tasks.map {
            Task(
                id: $0.task.id, title: $0.task.title, points: signed($0.task.points), done: $0.done,
                hint: l($0.task.action.hint))
        }
        self.notice = notice
        redeemables = Self.redeemables.map { key, points in
            Redeemable(
                title: l("stories.redeem.\(key)"), points: l(Message.count(points, .points)),
                toast: l("stories.redeem.\(key).toast", ["count": .number(balance)]),
                affordable: balance >= points,
                missing: l("stories.redeem.missing", ["count": .number(points - balance)]))
        }
    }
}

/// The card shop (`stories-shop.mustache`): what a card costs and, known before asking,
/// whether the balance covers it.
struct StoriesShopPage: Equatable {
    struct Card: Equatable {
        let id: String
        let name: String
        let image: String
        let rarity: String
        let price: Int
        /// "200 points".
        let priceText: String
        /// A card beyond the balance offers no Buy, and says how many points are missing.
        let affordable: Bool
        let short: Int
        /// "30 more points needed".
        let shortText: String
        let owned: Int?
        /// "Spend 200 points on Pit Crew?"
        let confirm: String
        /// "Buy Pit Crew for 200 points", "Buy another Pit Crew for 200 points".
        let buyLabel: String
    }

    let q: String
    let balance: Int
    /// "<strong data-balance>170</strong> points to spend" (HTML).
    let balanceLine: String
    let none: Bool
    let cards: [Card]
    let notice: String?

    init(
        query: String, cards: [TradingCard], balance: Int, owned: [String: Int], notice: String?,
        localizer l: Localizer
    ) {
        q = query
        self.balance = balance
        balanceLine = l.html(
            Message("stories.shop.balance", ["count": .number(balance)]),
            markup: ["count": "<strong data-balance>\(HTML.escaped(l.render(.number(balance))))</strong>"])
        none = cards.isEmpty
        self.cards = cards.map { card in
            let price: [String: Message.Argument] = ["count": .number(card.price), "card": .text(card.name)]
            return Card(
                id: card.id, name: card.name, image: storyAsset(card.image), rarity: l(card.rarity.title),
                price: card.price, priceText: l(Message.count(card.price, .points)), affordable: card.price <= balance,
                short: max(card.price - balance, 0),
                shortText: l("stories.shop.short", ["count": .number(max(card.price - balance, 0))]),
                owned: owned[card.id], confirm: l("stories.shop.confirm", price),
                buyLabel: l(owned[card.id] == nil ? "stories.shop.buyLabel" : "stories.shop.buyAnotherLabel", price))
        }
        self.notice = notice
    }
}
