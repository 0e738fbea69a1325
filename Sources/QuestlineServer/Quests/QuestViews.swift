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
    /// Its points per minute in words ("2 pt/min"), where a page shows them.
    var rate: String? = nil
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
    /// The percentage in words ("33%"), the progress bar's text.
    let percentText: String
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
    /// What completing it pays: "Unlocks 🎮 Minecraft · 20 min · +10% bonus", or "+10% bonus points".
    let pays: String

    init(_ view: QuestView, apps: [QuestApp], localizer l: Localizer) {
        let names = Dictionary(apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let spec = view.quest.spec
        id = view.quest.id.rawValue
        title = spec.title
        summary = l(view.card.summary)
        progress = l(view.card.progressText)
        percent = view.card.percent
        percentText = l.render(.percent(view.card.percent))
        state = view.card.state.rawValue
        completed = view.card.state == .completed
        paused = view.card.state == .paused
        period = l(view.card.periodText)
        switch view.card.state {
        case .notStarted: stateText = l("quests.card.starts", ["day": .day(spec.startDay, .long)])
        case .inProgress: stateText = l("quests.card.inProgress")
        case .completed: stateText = l("quests.card.completed")
        case .paused: stateText = l("quests.card.paused")
        case .ended: stateText = l("quests.card.ended")
        }
        goal = l(spec.goal.title)
        bonus = spec.bonusPercent
        steps = view.card.steps.map { step in
            let words: String
            switch step.state {
            case .met: words = l("quests.card.stepDone")
            case .missed: words = l("quests.card.stepMissed")
            case .today: words = l("quests.card.stepToday", ["minutes": .number(step.minutes)])
            case .upcoming: words = l("quests.card.stepUpcoming")
            }
            return Step(text: l(step.text), state: step.state.rawValue, minutes: step.minutes, stateText: words)
        }
        hasSteps = !steps.isEmpty
        rewards =
            spec.rewardApps.isEmpty
            ? nil
            : l.render(
                .list(
                    spec.rewardApps.map {
                        .message(
                            Message(
                                "quests.card.rewardApp",
                                [
                                    "icon": .text(names[$0.token]?.icon ?? "🎮"),
                                    "app": .text(names[$0.token]?.name ?? $0.token), "minutes": .number($0.minutes),
                                ]))
                    }))
        let bonusText = Message.Argument.percent(spec.bonusPercent)
        pays =
            rewards.map { l("quests.card.unlocks", ["rewards": .text($0), "bonus": bonusText]) }
            ?? l("quests.card.bonusOnly", ["bonus": bonusText])
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
        /// "45 min left · until 21:00" (the board's card).
        let line: String
        /// "🎮 Minecraft · 45 min left, until 21:00" (a guardian's pill).
        let pill: String
    }

    struct Blocked: Equatable {
        let name: String
        let icon: String
        let minutes: Int
        let at: String
        /// "10 min at 21:05".
        let when: String
        let reason: String
    }

    let unlocked: [Line]
    let hasUnlocked: Bool
    let waiting: [Line]
    let hasWaiting: Bool
    let restriction: String?
    /// The restriction, and that redemption waits for its end.
    let redeemWaits: String?
    let blockedUse: [Blocked]
    let hasBlockedUse: Bool

    init(_ board: QuestBoard, now: Date, localizer l: Localizer) {
        let names = Dictionary(board.apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let zone = board.child.zoneID
        func line(_ token: String, minutes: Int, until: Message?, waiting: Bool) -> Line {
            let name = names[token]?.name ?? token
            let icon = names[token]?.icon ?? "🎮"
            let until = until.map { l($0) } ?? ""
            let arguments: [String: Message.Argument] = [
                "minutes": .number(minutes), "until": .text(until), "icon": .text(icon), "app": .text(name),
            ]
            return Line(
                name: name, icon: icon, minutesLeft: minutes, until: until,
                line: l(waiting ? "quests.shield.waitingLine" : "quests.shield.unlockedLine", arguments),
                pill: l(waiting ? "quests.shield.waitingPill" : "quests.shield.unlockedPill", arguments))
        }
        unlocked = board.policy.apps.filter { !$0.blocked }.map { app in
            line(
                app.token, minutes: app.minutesLeft,
                until: app.unlockedUntil.map { Message.until($0, now: now, in: zone) }, waiting: false)
        }
        let blockedTokens = Set(board.policy.apps.filter(\.blocked).map(\.token))
        let restriction = board.restriction.map {
            PointsFeature.restrictionMessage($0.reason, until: $0.until, zone: zone, now: now)
        }
        self.restriction = restriction.map { l($0) }
        redeemWaits = restriction.map { l(PointsFeature.redeemWaits($0)) }
        waiting = board.grants.filter { blockedTokens.contains($0.grant.token) }.map { grant in
            line(
                grant.grant.token, minutes: grant.minutesLeft,
                until: Message.until(grant.grant.expiresAt, now: now, in: zone), waiting: true)
        }
        blockedUse = board.blockedToday.map { use in
            let reason: String
            switch use.reason {
            case .noGrant: reason = l("quests.shield.reason.noGrant")
            case .downtime: reason = l("quests.shield.reason.downtime")
            case .notToday: reason = l("quests.shield.reason.notToday")
            case .unlocked: reason = l("quests.shield.reason.blocked")
            }
            let at = l(Message.at(use.at, now: now, in: zone))
            return Blocked(
                name: names[use.token]?.name ?? use.token, icon: names[use.token]?.icon ?? "🎮", minutes: use.minutes,
                at: at, when: l("quests.shield.blockedAt", ["minutes": .number(use.minutes), "at": .text(at)]),
                reason: reason)
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
    let balance: String
    let streak: String
    let minutes: String
    /// The words under each figure ("points", "day streak", "minutes learned"), in the form
    /// the figure takes.
    let balanceLabel: String
    let streakLabel: String
    let minutesLabel: String
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
    /// "5 points for each minute, 5 to 60 minutes at a time."
    let rulesText: String
    let errors: [String: String]
    let notice: String?
    /// The household together: the family streak and the ways in (`family-card.mustache`).
    var family: FamilyCard?
    /// This week's and the next's co-op quests (`coop-card.mustache`).
    var coop: [CoopCard] = []

    /// From the board and the message a redirect left (a redemption's answer).
    init(board: QuestBoard, message: Flash.Message?, now: Date, localizer l: Localizer) {
        live = liveEventsPath(board.child)
        childId = board.child.id.rawValue
        balance = l.render(.number(board.balance))
        streak = l.render(.number(board.stats.currentStreak))
        minutes = l.render(.number(board.stats.learningMinutes))
        balanceLabel = l("quests.board.pointsLabel", ["count": .number(board.balance)])
        streakLabel = l("quests.board.streakLabel", ["count": .number(board.stats.currentStreak)])
        minutesLabel = l("quests.board.minutesLabel", ["count": .number(board.stats.learningMinutes)])
        let active = board.quests.filter { $0.quest.status == .active }
        quests = active.map { QuestCardView($0, apps: board.apps, localizer: l) }
        noQuests = active.isEmpty
        badges = board.badges.map {
            Badge(
                title: l($0.badge.title), icon: $0.badge.icon, description: l($0.badge.description),
                earned: $0.awardedAt != nil)
        }
        shield = ShieldView(board, now: now, localizer: l)
        rewardApps = board.apps.filter { $0.role == .reward }.map(AppView.init)
        canRedeem = !rewardApps.isEmpty
        redeemWaits = board.restriction != nil
        let cheapest = board.rules.minMinutes * board.rules.pointsPerMinute
        affordable = board.balance >= cheapest
        missing = l(
            "quests.board.redeemMissing",
            [
                "minutes": .message(.count(board.rules.minMinutes, .minutes)),
                "points": .message(.count(cheapest, .points)), "count": .number(cheapest - board.balance),
            ])
        rules = Rules(
            pointsPerMinute: board.rules.pointsPerMinute, minMinutes: board.rules.minMinutes,
            maxMinutes: board.rules.maxMinutes)
        rulesText = l(
            "quests.board.redeemRules",
            [
                "points": .message(.count(board.rules.pointsPerMinute, .points)),
                "min": .number(board.rules.minMinutes),
                "max": .message(.count(board.rules.maxMinutes, .minutes)),
            ])
        if let message, message.kind == .error {
            // Without the form's fields (nothing to redeem yet), every refusal is the form's.
            errors = [(affordable ? message.field : nil) ?? "form": message.text]
        } else {
            errors = [:]
        }
        notice = message.flatMap { $0.kind == .notice ? $0.text : nil }
    }
}
