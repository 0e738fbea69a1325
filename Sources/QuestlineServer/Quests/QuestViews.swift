import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// What the family pages show, built from what the use cases return.
extension QuestsPages {
    // MARK: View data

    /// Whether the page offers a guardian's tools for `child` (`AccessPolicy`, as the use cases
    /// decide).
    static func manages(_ me: MemberRecord, _ child: MemberRecord) -> Bool {
        child.householdID.map { AccessPolicy.allows(me.actor, .manageHousehold($0)) } ?? false
    }
}

// MARK: Typed page models

/// An app of a child's catalog, as the pages list it.
struct AppView: Equatable {
    let token: String
    let name: String
    let icon: String
    let role: String
    let pointsPerMinute: Int
    let learning: Bool
    /// The picture the device reported for it, if any.
    var iconURL: String? = nil
    /// Chosen in the builder, and for reward apps with how many minutes.
    var checked = false
    var minutes: Int? = nil

    init(_ app: QuestApp) {
        token = app.token
        name = app.name
        icon = app.icon
        role = app.role.rawValue
        pointsPerMinute = app.pointsPerMinute
        learning = app.role == .learning
    }
}

/// A quest's card (`quest-card.mustache`): the core's `QuestCard` in words.
struct QuestCardView: Equatable {
    struct Step: Equatable {
        let text: String
        let state: String
        let minutes: Int
        let stateText: String
    }

    let id: String
    let title: String
    let summary: String
    let progress: String
    let percent: Int
    let state: String
    let completed: Bool
    let paused: Bool
    let period: String
    let stateText: String
    let goal: String
    let bonus: Int
    let steps: [Step]
    let hasSteps: Bool
    /// The reward apps it unlocks ("🎮 Minecraft · 20 min"), or nil: the card says bonus points.
    let rewards: String?

    init(_ view: QuestView, apps: [QuestApp]) {
        let names = Dictionary(apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let spec = view.quest.spec
        id = view.quest.id.rawValue
        title = spec.title
        summary = view.card.summary
        progress = view.card.progressText
        percent = view.card.percent
        state = view.card.state.rawValue
        completed = view.card.state == .completed
        paused = view.card.state == .paused
        period = view.card.periodText
        switch view.card.state {
        case .notStarted: stateText = "Starts \(Wording.date(spec.startDay))"
        case .inProgress: stateText = "In progress"
        case .completed: stateText = "Completed!"
        case .paused: stateText = "Paused"
        case .ended: stateText = "Ended"
        }
        goal = spec.goal.title
        bonus = spec.bonusPercent
        steps = view.card.steps.map { step in
            let words: String
            switch step.state {
            case .met: words = "Done"
            case .missed: words = "Missed"
            case .today: words = "Today: \(step.minutes) min"
            case .upcoming: words = "Coming up"
            }
            return Step(text: step.text, state: step.state.rawValue, minutes: step.minutes, stateText: words)
        }
        hasSteps = !steps.isEmpty
        rewards =
            spec.rewardApps.isEmpty
            ? nil
            : spec.rewardApps.map {
                "\(names[$0.token]?.icon ?? "🎮") \(names[$0.token]?.name ?? $0.token) · \($0.minutes) min"
            }
            .joined(separator: ", ")
    }
}

/// What a screen says of the reward apps, all from the one shield decision (`ShieldPolicy`,
/// `RewardUse`): unlocked now with minutes left, unlocked but waiting for downtime or a reward
/// day to end, why redemption waits, and (for guardians) use while blocked today.
struct ShieldView: Equatable {
    struct Line: Equatable {
        let name: String
        let icon: String
        let minutesLeft: Int
        let until: String
    }

    struct Blocked: Equatable {
        let name: String
        let icon: String
        let minutes: Int
        let at: String
        let reason: String
    }

    let unlocked: [Line]
    let hasUnlocked: Bool
    let waiting: [Line]
    let hasWaiting: Bool
    let restriction: String?
    let blockedUse: [Blocked]
    let hasBlockedUse: Bool

    init(_ board: QuestBoard, now: Date) {
        let names = Dictionary(board.apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let zone = board.child.zone
        unlocked = board.policy.apps.filter { !$0.blocked }.map { app in
            Line(
                name: names[app.token]?.name ?? app.token, icon: names[app.token]?.icon ?? "🎮",
                minutesLeft: app.minutesLeft,
                until: app.unlockedUntil.map { Wording.until($0, now: now, in: zone) } ?? "")
        }
        let blockedTokens = Set(board.policy.apps.filter(\.blocked).map(\.token))
        restriction = board.restriction.map {
            QuestsFeature.restrictionMessage($0.reason, until: $0.until, zone: zone, now: now)
        }
        waiting = board.grants.filter { blockedTokens.contains($0.grant.token) }.map { grant in
            Line(
                name: names[grant.grant.token]?.name ?? grant.grant.token,
                icon: names[grant.grant.token]?.icon ?? "🎮", minutesLeft: grant.minutesLeft,
                until: Wording.until(grant.grant.expiresAt, now: now, in: zone))
        }
        blockedUse = board.blockedToday.map { use in
            let reason: String
            switch use.reason {
            case .noGrant: reason = "not unlocked"
            case .downtime: reason = "downtime"
            case .notToday: reason = "reward apps off today"
            case .unlocked: reason = "blocked"
            }
            return Blocked(
                name: names[use.token]?.name ?? use.token, icon: names[use.token]?.icon ?? "🎮", minutes: use.minutes,
                at: Wording.at(use.at, now: now, in: zone), reason: reason)
        }
        hasUnlocked = !unlocked.isEmpty
        hasWaiting = !waiting.isEmpty
        hasBlockedUse = !blockedUse.isEmpty
    }
}

/// The child's quest board (`quests.mustache`).
struct BoardPage {
    struct Badge: Equatable {
        let title: String
        let icon: String
        let description: String
        let earned: Bool
    }

    struct Rules: Equatable {
        let pointsPerMinute: Int
        let minMinutes: Int
        let maxMinutes: Int
    }

    let live: String?
    let childId: String
    let balance: Int
    let streak: Int
    let minutes: Int
    let quests: [QuestCardView]
    let noQuests: Bool
    let badges: [Badge]
    let shield: ShieldView
    let rewardApps: [AppView]
    let canRedeem: Bool
    let redeemWaits: Bool
    /// The balance covers the smallest redemption; otherwise how many points are missing.
    let affordable: Bool
    let missing: String
    let rules: Rules
    let errors: [String: String]
    let notice: String?
    /// The household together: the family streak and the ways in (`family-card.mustache`).
    var family: FamilyCard?
    /// This week's and the next's co-op quests (`coop-card.mustache`).
    var coop: [CoopCard] = []

    /// From the board and the message a redirect left (a redemption's answer).
    init(board: QuestBoard, message: Flash.Message?, now: Date) {
        live = liveEventsPath(board.child)
        childId = board.child.id.rawValue
        balance = board.balance
        streak = board.stats.currentStreak
        minutes = board.stats.learningMinutes
        let active = board.quests.filter { $0.quest.status == .active }
        quests = active.map { QuestCardView($0, apps: board.apps) }
        noQuests = active.isEmpty
        badges = board.badges.map {
            Badge(
                title: $0.badge.title, icon: $0.badge.icon, description: $0.badge.description,
                earned: $0.awardedAt != nil)
        }
        shield = ShieldView(board, now: now)
        rewardApps = board.apps.filter { $0.role == .reward }.map(AppView.init)
        canRedeem = !rewardApps.isEmpty
        redeemWaits = board.restriction != nil
        let cheapest = board.rules.minMinutes * board.rules.pointsPerMinute
        affordable = board.balance >= cheapest
        missing =
            "The smallest redemption (\(Wording.count(board.rules.minMinutes, "minute"))) costs \(Wording.count(cheapest, "point")): \(cheapest - board.balance) more to go."
        rules = Rules(
            pointsPerMinute: board.rules.pointsPerMinute, minMinutes: board.rules.minMinutes,
            maxMinutes: board.rules.maxMinutes)
        if let message, message.kind == .error {
            // Without the form's fields (nothing to redeem yet), every refusal is the form's.
            errors = [(affordable ? message.field : nil) ?? "form": message.text]
        } else {
            errors = [:]
        }
        notice = message.flatMap { $0.kind == .notice ? $0.text : nil }
    }
}
