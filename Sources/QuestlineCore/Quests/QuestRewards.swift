public import Foundation

/// The kinds of entry in the append-only points ledger.
public enum LedgerKind: String, Sendable, CaseIterable, Codable {
    /// Learning minutes times the app's rate.
    case earn
    /// A completed quest's bonus.
    case bonus
    /// Points turned into reward minutes (negative).
    case redeem
    /// A guardian's correction, with a reason (either sign).
    case adjust
    /// A story's rewards, collected after a selfie at the track.
    case story
    /// A daily task, once per local day.
    case task
    /// A trading card bought in the card shop (negative).
    case purchase
}

/// How a household turns points into reward minutes.
public struct RedemptionRules: Sendable, Equatable, Codable {
    public let pointsPerMinute: Int
    public let minMinutes: Int
    public let maxMinutes: Int

    public static let standard = RedemptionRules(pointsPerMinute: 5, minMinutes: 5, maxMinutes: 60)

    public init(pointsPerMinute: Int, minMinutes: Int, maxMinutes: Int) {
        self.pointsPerMinute = pointsPerMinute
        self.minMinutes = minMinutes
        self.maxMinutes = maxMinutes
    }

    public static func validated(pointsPerMinute: Int, minMinutes: Int, maxMinutes: Int) throws(DomainError)
        -> RedemptionRules
    {
        var v = FieldValidation()
        v.check { () throws(DomainError) in
            guard (1...1000).contains(pointsPerMinute) else {
                throw .invalid(
                    field: "pointsPerMinute",
                    Message("quests.error.redeemRate", ["min": .number(1), "max": .number(1000)]))
            }
        }
        v.check { () throws(DomainError) in
            guard (1...240).contains(minMinutes) else {
                throw .invalid(
                    field: "minMinutes",
                    Message("quests.error.minutesRange", ["min": .number(1), "max": .message(.count(240, .minutes))]))
            }
        }
        v.check { () throws(DomainError) in
            guard (1...240).contains(maxMinutes), maxMinutes >= minMinutes else {
                throw .invalid(
                    field: "maxMinutes", Message("quests.error.redeemMax", ["max": .message(.count(240, .minutes))]))
            }
        }
        try v.finish()
        return RedemptionRules(pointsPerMinute: pointsPerMinute, minMinutes: minMinutes, maxMinutes: maxMinutes)
    }

    /// The points `minutes` cost, after checking the household's limits.
    public func cost(minutes: Int) throws(DomainError) -> Int {
        guard (minMinutes...maxMinutes).contains(minutes) else {
            throw .invalid(
                field: "minutes",
                Message(
                    "quests.error.redeemMinutes",
                    ["min": .number(minMinutes), "max": .message(.count(maxMinutes, .minutes))]))
        }
        return minutes * pointsPerMinute
    }
}

/// A reward app unlocked for a number of minutes: by a completed quest or a redemption.
public struct UnlockGrant: Sendable, Equatable {
    public let id: String
    public let token: String
    public let minutes: Int
    public let startsAt: Date
    public let expiresAt: Date
    /// The quest that paid it, or nil for a redemption.
    public let questID: QuestID?

    public init(id: String, token: String, minutes: Int, startsAt: Date, expiresAt: Date, questID: QuestID?) {
        self.id = id
        self.token = token
        self.minutes = minutes
        self.startsAt = startsAt
        self.expiresAt = expiresAt
        self.questID = questID
    }

    /// A grant made at `now` lasts until the end of the child's local day.
    public static func expiry(now: Date, zone: TimeZone) -> Date {
        LocalDay.nextMidnight(after: now, in: zone)
    }
}

/// A grant with what is left of it.
public struct GrantBalance: Sendable, Equatable {
    public let grant: UnlockGrant
    public let secondsLeft: Int

    public init(grant: UnlockGrant, secondsLeft: Int) {
        self.grant = grant
        self.secondsLeft = secondsLeft
    }

    public var minutesLeft: Int { (secondsLeft + 59) / 60 }
    public func isActive(at now: Date) -> Bool { secondsLeft > 0 && now < grant.expiresAt }
}

/// Grants as a screen shows them (`RewardUse.account` charges use to them).
public enum UnlockLedger {}

extension UnlockLedger {
    /// Active grants summed per reward app: the minutes left over all of them and the latest
    /// expiry; what a screen shows ("Minecraft · 45 min left").
    public static func perApp(_ balances: [GrantBalance]) -> [GrantBalance] {
        Dictionary(grouping: balances, by: \.grant.token).values.compactMap { group -> GrantBalance? in
            guard let first = group.min(by: { $0.grant.startsAt < $1.grant.startsAt }) else { return nil }
            let merged = UnlockGrant(
                id: first.grant.id, token: first.grant.token, minutes: group.reduce(0) { $0 + $1.grant.minutes },
                startsAt: first.grant.startsAt, expiresAt: group.map(\.grant.expiresAt).max()!,
                questID: group.count == 1 ? first.grant.questID : nil)
            return GrantBalance(grant: merged, secondsLeft: group.reduce(0) { $0 + $1.secondsLeft })
        }.sorted { ($0.grant.startsAt, $0.grant.token) < ($1.grant.startsAt, $1.grant.token) }
    }

    /// Until when what a screen shows of a child's rewards at `now` stays true with no write:
    /// the child's next local midnight (today's periods, streak and blocked use), a grant
    /// starting or expiring (any app's), and the shield policy's next change (downtime starting
    /// or ending, a day without rewards). The instant a kept board stops being the fresh one.
    public static func trueUntil(
        balances: [GrantBalance], policy: ShieldPolicy, now: Date, zone: TimeZone
    ) -> Date {
        var changes = balances.flatMap { [$0.grant.startsAt, $0.grant.expiresAt] }.filter { $0 > now }
        if let next = policy.nextChange { changes.append(next) }
        return changes.reduce(LocalDay.nextMidnight(after: now, in: zone), min)
    }
}

/// What a badge is awarded for.
public enum BadgeCriterion: String, Sendable, CaseIterable, Codable {
    case streakDays, learningMinutes, pointsEarned
    case questsCompleted = "challengesCompleted"
}

public struct QuestBadge: Sendable, Equatable {
    public let id: String
    public let title: Message
    public let icon: String
    public let criterion: BadgeCriterion
    public let threshold: Int

    /// What earns it, in the reader's language.
    public var description: Message {
        switch criterion {
        case .questsCompleted:
            threshold == 1
                ? Message("quests.badge.firstQuest.description")
                : Message("quests.badge.questsCompleted", ["count": .number(threshold)])
        case .streakDays: Message("quests.badge.streakDays", ["days": .message(.count(threshold, .days))])
        case .learningMinutes:
            Message("quests.badge.learningMinutes", ["minutes": .message(.count(threshold, .minutes))])
        case .pointsEarned: Message("quests.badge.pointsEarned", ["points": .message(.count(threshold, .points))])
        }
    }

    /// The six starter badges.
    public static let all: [QuestBadge] = [
        QuestBadge(
            id: "first-quest", title: Message("quests.badge.firstQuest"), icon: "🏁", criterion: .questsCompleted,
            threshold: 1),
        QuestBadge(
            id: "quest-master", title: Message("quests.badge.questMaster"), icon: "👑", criterion: .questsCompleted,
            threshold: 10),
        QuestBadge(
            id: "on-a-roll", title: Message("quests.badge.onARoll"), icon: "🔥", criterion: .streakDays, threshold: 3),
        QuestBadge(
            id: "week-warrior", title: Message("quests.badge.weekWarrior"), icon: "🗓️", criterion: .streakDays,
            threshold: 7),
        QuestBadge(
            id: "hour-of-learning", title: Message("quests.badge.hourOfLearning"), icon: "⏱️",
            criterion: .learningMinutes, threshold: 60),
        QuestBadge(
            id: "point-collector", title: Message("quests.badge.pointCollector"), icon: "💎", criterion: .pointsEarned,
            threshold: 500),
    ]
}

/// A child's totals that badges are judged on.
public struct QuestStats: Sendable, Equatable {
    public let questsCompleted: Int
    /// The longest run of consecutive local days with at least one learning minute.
    public let bestStreak: Int
    /// The current run (ending today or yesterday).
    public let currentStreak: Int
    public let learningMinutes: Int
    /// Earned and bonus points, all time (redemptions and adjustments do not count).
    public let pointsEarned: Int

    public init(questsCompleted: Int, bestStreak: Int, currentStreak: Int, learningMinutes: Int, pointsEarned: Int) {
        self.questsCompleted = questsCompleted
        self.bestStreak = bestStreak
        self.currentStreak = currentStreak
        self.learningMinutes = learningMinutes
        self.pointsEarned = pointsEarned
    }

    public func value(_ criterion: BadgeCriterion) -> Int {
        switch criterion {
        case .questsCompleted: return questsCompleted
        case .streakDays: return bestStreak
        case .learningMinutes: return learningMinutes
        case .pointsEarned: return pointsEarned
        }
    }

    /// The badges these totals deserve.
    public var deserved: [QuestBadge] { QuestBadge.all.filter { value($0.criterion) >= $0.threshold } }
}
