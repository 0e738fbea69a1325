public import Foundation

/// A child's screen-time rules for reward apps, set by a guardian.
public struct ShieldRules: Sendable, Equatable, Codable {
    /// ISO weekdays (1 = Monday) on which reward apps may be unlocked.
    public var rewardDays: Set<Int>
    /// Local hours in which every reward app stays shielded, grants or not (e.g. 21 to 7).
    public var downtime: LocalHours?

    public init(rewardDays: Set<Int> = Set(1...7), downtime: LocalHours? = nil) {
        self.rewardDays = rewardDays
        self.downtime = downtime
    }

    /// No restriction beyond the grants.
    public static let open = ShieldRules()

    /// Why reward apps are shielded at `instant` whatever the grants (downtime, or a day
    /// without rewards), in the child's zone; nil when grants decide. The one answer that the
    /// policy, redemption and the accounting of use all ask.
    public func restriction(at instant: Date, zone: TimeZone) -> ShieldPolicy.Reason? {
        if !rewardDays.contains(LocalDay(instant, in: zone).isoWeekday) { return .notToday }
        if downtime?.contains(instant, in: zone) ?? false { return .downtime }
        return nil
    }

    /// When a restriction in force at `instant` ends (the end of downtime, or the next midnight
    /// that starts a reward day); nil when there is none or no reward day at all.
    public func restrictionEnds(after instant: Date, zone: TimeZone) -> Date? {
        guard !rewardDays.isEmpty else { return nil }
        var moment = instant
        for _ in 0..<9 {
            switch restriction(at: moment, zone: zone) {
            case nil: return moment == instant ? nil : moment
            case .downtime?: moment = downtime!.nextAllowed(after: moment, in: zone)
            default: moment = LocalDay.nextMidnight(after: moment, in: zone)
            }
        }
        return nil
    }

    /// Checks a guardian's rules, naming the field at fault.
    public static func validated(rewardDays: [Int], downtimeStart: Int?, downtimeEnd: Int?) throws(DomainError)
        -> ShieldRules
    {
        var issues: [FieldIssue] = []
        if !rewardDays.allSatisfy({ (1...7).contains($0) }) {
            issues.append(FieldIssue(field: "rewardDays", message: Message("quests.error.weekdaysRange")))
        }
        var downtime: LocalHours?
        do {
            downtime = try LocalHours.validated(start: downtimeStart, end: downtimeEnd, field: "downtime")
        } catch {
            if case .invalid(let found) = error { issues += found }
        }
        if !issues.isEmpty { throw .invalid(issues) }
        return ShieldRules(rewardDays: Set(rewardDays), downtime: downtime)
    }
}

/// What a child's device enforces now: for each reward app, blocked or unlocked until an
/// instant, and when the policy next changes so the device can schedule it. Pure: the server
/// answers it, and an app can compute it offline from cached grants and rules.
public struct ShieldPolicy: Sendable, Equatable, Codable {
    public enum Reason: String, Sendable, Codable {
        /// A grant with time left covers now.
        case unlocked
        /// No grant with time left covers now.
        case noGrant
        /// Downtime: shielded whatever the grants.
        case downtime
        /// Reward apps are not unlocked on this weekday.
        case notToday
    }

    public struct App: Sendable, Equatable, Codable {
        public let token: String
        public let blocked: Bool
        public let reason: Reason
        /// While unlocked: when it shields again at the latest (its grants' expiry, downtime or
        /// the end of an allowed day, whichever is first); it shields sooner if its minutes run out.
        public let unlockedUntil: Date?
        /// Minutes of use left in the grants that cover now (0 when blocked).
        public let minutesLeft: Int
    }

    public let apps: [App]
    /// The next instant at which any app's state can change without a new grant or report:
    /// a grant starting or expiring, downtime starting or ending, a day without rewards
    /// starting or ending. Nil when nothing is scheduled.
    public let nextChange: Date?

    public static func compute(
        rewardApps: [String], balances: [GrantBalance], rules: ShieldRules, now: Date, zone: TimeZone
    ) -> ShieldPolicy {
        let today = LocalDay(now, in: zone)
        let midnight = today.adding(days: 1).start(in: zone)
        let restricted = rules.restriction(at: now, zone: zone)
        // The first instant from which rewards stop being allowed (downtime, or a day without).
        var restriction: [Date] = []
        if let downtime = rules.downtime, downtime.start != downtime.end {
            restriction.append(LocalHours.next(hour: downtime.start, after: now, in: zone))
        }
        if !rules.rewardDays.contains(today.adding(days: 1).isoWeekday) { restriction.append(midnight) }
        let restrictedFrom = restriction.min()

        var changes: [Date] = []
        let rewardTokens = Set(rewardApps)
        let relevant = balances.filter { rewardTokens.contains($0.grant.token) }
        for balance in relevant {
            if balance.grant.startsAt > now { changes.append(balance.grant.startsAt) }
            if balance.grant.expiresAt > now, balance.secondsLeft > 0 { changes.append(balance.grant.expiresAt) }
        }
        if let boundary = rules.downtime?.nextBoundary(after: now, in: zone) { changes.append(boundary) }
        if rules.rewardDays.count < 7 { changes.append(midnight) }

        let apps = rewardApps.sorted().map { token -> App in
            let covering = relevant.filter {
                $0.grant.token == token && $0.grant.startsAt <= now && now < $0.grant.expiresAt && $0.secondsLeft > 0
            }
            let seconds = covering.reduce(0) { $0 + $1.secondsLeft }
            let reason: Reason = covering.isEmpty ? .noGrant : restricted ?? .unlocked
            guard reason == .unlocked, let expiry = covering.map(\.grant.expiresAt).max() else {
                return App(token: token, blocked: true, reason: reason, unlockedUntil: nil, minutesLeft: 0)
            }
            return App(
                token: token, blocked: false, reason: .unlocked,
                unlockedUntil: restrictedFrom.map { min($0, expiry) } ?? expiry, minutesLeft: (seconds + 59) / 60)
        }
        return ShieldPolicy(apps: apps, nextChange: changes.filter { $0 > now }.min())
    }
}

/// Reported use of a reward app while it was shielded: recorded and shown to the guardians,
/// never charged to a grant.
public struct BlockedUse: Sendable, Equatable {
    public let token: String
    /// When the report's use ended (what decides whether it was allowed).
    public let at: Date
    /// The seconds of it that no grant paid for.
    public let seconds: Int
    /// Why: no grant with time left, downtime, or a day without rewards.
    public let reason: ShieldPolicy.Reason

    public init(token: String, at: Date, seconds: Int, reason: ShieldPolicy.Reason) {
        self.token = token
        self.at = at
        self.seconds = seconds
        self.reason = reason
    }

    public var minutes: Int { (seconds + 59) / 60 }
}

/// The accounting of reward apps' use against their unlock grants: what is left of each grant,
/// and which use was not allowed. The one rule behind the device's minutes left, the board's
/// "Unlocked now" and the guardian's list of blocked use.
///
/// Each report of a reward app counts minute for minute at the instant its use ended (a device
/// reports use as it happens): in downtime or on a day without rewards it is blocked use;
/// otherwise its seconds are charged to the grants of that app covering that instant, oldest
/// first, and what no grant has left for is blocked use (no grant). Reports are taken in the
/// order their use ended, so the result is the same whatever order they arrived in.
public enum RewardUse {
    public struct Account: Sendable, Equatable {
        public let balances: [GrantBalance]
        public let blocked: [BlockedUse]

        public init(balances: [GrantBalance], blocked: [BlockedUse]) {
            self.balances = balances
            self.blocked = blocked
        }
    }

    public static func account(
        grants: [UnlockGrant], reports: [UsageRecord], rewardApps: Set<String>, rules: ShieldRules, zone: TimeZone
    ) -> Account {
        var left = Dictionary(uniqueKeysWithValues: grants.map { ($0.id, $0.minutes * 60) })
        let ordered = grants.sorted { ($0.startsAt, $0.id) < ($1.startsAt, $1.id) }
        var blocked: [BlockedUse] = []
        let uses = reports.filter { rewardApps.contains($0.token) && $0.seconds > 0 }
            .sorted { ($0.end, $0.start, $0.token) < ($1.end, $1.start, $1.token) }
        for use in uses {
            if let reason = rules.restriction(at: use.end.addingTimeInterval(-0.001), zone: zone) {
                blocked.append(BlockedUse(token: use.token, at: use.end, seconds: use.seconds, reason: reason))
                continue
            }
            var owed = use.seconds
            for grant in ordered where owed > 0 && grant.token == use.token && grant.covers(use.end) {
                let paid = min(owed, left[grant.id] ?? 0)
                left[grant.id, default: 0] -= paid
                owed -= paid
            }
            if owed > 0 { blocked.append(BlockedUse(token: use.token, at: use.end, seconds: owed, reason: .noGrant)) }
        }
        return Account(
            balances: ordered.map { GrantBalance(grant: $0, secondsLeft: left[$0.id] ?? 0) }, blocked: blocked)
    }
}

extension UnlockGrant {
    /// Whether use that ended at `instant` falls in this grant's time (after it started, by its
    /// expiry).
    public func covers(_ instant: Date) -> Bool { startsAt < instant && instant <= expiresAt }
}
