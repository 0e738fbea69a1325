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
    let badges: [Badge]
    let achievements: [Achievement]
    let cards: [Card]
    let noCards: Bool
    let cardsTab: Bool
    let badgesTab: Bool
    let errors: [String: String]
    let saved: Bool

    /// `editing` when asked for or when a refused form comes back with `errors`.
    init(
        _ profile: StoryProfile, member: MemberRecord, cardsTab: Bool, editing: Bool, errors: [String: String],
        saved: Bool
    ) {
        name = member.displayName
        details = Details(
            location: profile.details.location, favouriteTrack: profile.details.favouriteTrack,
            bio: profile.details.bio)
        self.editing = editing || !errors.isEmpty
        hasPhoto = profile.hasPhoto
        initial = String(member.displayName.prefix(1)).uppercased()
        balance = profile.balance
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
                id: $0.card.id, name: $0.card.name, image: storyAsset($0.card.image), rarity: $0.card.rarity.rawValue,
                description: $0.card.description, copies: $0.copies, several: $0.copies > 1)
        }
        noCards = profile.cards.isEmpty
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
        let points: Int
        let done: Bool
        let hint: String
    }

    struct Redeemable: Equatable {
        let title: String
        let points: Int
        let toast: String
        /// Offered only when the balance covers it; otherwise what is missing is said.
        let affordable: Bool
        let missing: String
    }

    /// What the TI-Points screen offers to redeem. Seed 003 stubs its Redeem buttons with a
    /// toast: nothing is spent.
    static let redeemables = [
        (title: "Race-day ticket discount", points: 500), (title: "Pit lane tour", points: 1_000),
        (title: "Signed driver photo", points: 1_500),
    ]

    let balance: Int
    let tasksTab: Bool
    let pointsTab: Bool
    let entries: [Entry]
    let noEntries: Bool
    let tasks: [Task]
    let notice: String?
    let redeemables: [Redeemable]

    init(
        balance: Int, entries: [LedgerEntry], tasks: [(task: DailyTask, done: Bool)], zone: TimeZone,
        tasksTab: Bool, notice: String?
    ) {
        self.balance = balance
        self.tasksTab = tasksTab
        pointsTab = !tasksTab
        self.entries = entries.map {
            Entry(
                reason: $0.reason, points: $0.points > 0 ? "+\($0.points)" : "\($0.points)", plus: $0.points > 0,
                when: Wording.longDate(LocalDay($0.createdAt, in: zone)))
        }
        noEntries = entries.isEmpty
        self.tasks = tasks.map {
            Task(id: $0.task.id, title: $0.task.title, points: $0.task.points, done: $0.done, hint: $0.task.action.hint)
        }
        self.notice = notice
        redeemables = Self.redeemables.map {
            Redeemable(
                title: $0.title, points: $0.points,
                toast: "Redeeming \($0.title.lowercased()) is coming soon. Your \(balance) points are kept.",
                affordable: balance >= $0.points,
                missing: "\(Wording.count($0.points - balance, "more point")) to go")
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
        /// A card beyond the balance offers no Buy, and says how many points are missing.
        let affordable: Bool
        let short: Int
        let owned: Int?
    }

    let q: String
    let balance: Int
    let none: Bool
    let cards: [Card]
    let notice: String?

    init(query: String, cards: [TradingCard], balance: Int, owned: [String: Int], notice: String?) {
        q = query
        self.balance = balance
        none = cards.isEmpty
        self.cards = cards.map {
            Card(
                id: $0.id, name: $0.name, image: storyAsset($0.image), rarity: $0.rarity.rawValue, price: $0.price,
                affordable: $0.price <= balance, short: max($0.price - balance, 0), owned: owned[$0.id])
        }
        self.notice = notice
    }
}
