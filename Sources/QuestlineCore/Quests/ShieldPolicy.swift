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

    /// Checks a guardian's rules, naming the field at fault.
    public static func validated(rewardDays: [Int], downtimeStart: Int?, downtimeEnd: Int?) throws(DomainError)
        -> ShieldRules
    {
        var issues: [FieldIssue] = []
        if !rewardDays.allSatisfy({ (1...7).contains($0) }) {
            issues.append(FieldIssue(field: "rewardDays", message: "Weekdays are 1 (Monday) to 7 (Sunday)."))
        }
        for (field, hour) in [("downtime.start", downtimeStart), ("downtime.end", downtimeEnd)] {
            if let hour, !(0...23).contains(hour) {
                issues.append(FieldIssue(field: field, message: "Use an hour from 0 to 23."))
            }
        }
        if (downtimeStart == nil) != (downtimeEnd == nil) {
            issues.append(FieldIssue(field: "downtime", message: "Give both the start and the end, or neither."))
        }
        if !issues.isEmpty { throw .invalid(issues) }
        return ShieldRules(
            rewardDays: Set(rewardDays),
            downtime: downtimeStart.flatMap { start in downtimeEnd.map { LocalHours(start: start, end: $0) } })
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
        let inDowntime = rules.downtime?.contains(now, in: zone) ?? false
        let allowedToday = rules.rewardDays.contains(today.isoWeekday)
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
            let reason: Reason =
                covering.isEmpty ? .noGrant : !allowedToday ? .notToday : inDowntime ? .downtime : .unlocked
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
