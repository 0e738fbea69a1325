import Foundation
public import QuestlineCore
public import QuestlineStore

/// Family quests, split by what each part decides: quests (specs, progress, the board and the
/// console), usage (reports and their settlement), points (the rate, redemption, corrections,
/// the ledger) and the shield (apps, rules, time requests, the policy). One value, made once
/// by the composition root; the parts share one live hub and one settlement.
public struct FamilyFeatures: Sendable {
    public let quests: QuestsFeature
    public let usage: UsageFeature
    public let points: PointsFeature
    public let shield: ShieldFeature
    /// The household events of this instance's listening pages and devices.
    public let live: LiveHub
    public let clock: any WallClock

    public init(store: Store, configuration: FeatureConfiguration) {
        let parts = Parts(
            store: store, clock: configuration.clock, ids: configuration.ids, access: FamilyAccess(store: store),
            settlement: Settlement(store: store, ids: configuration.ids),
            kept: KeptFamilyAnswers(capacity: configuration.keptBoards, live: store.live))
        quests = QuestsFeature(parts)
        usage = UsageFeature(parts)
        points = PointsFeature(parts)
        shield = ShieldFeature(parts)
        live = LiveHub(log: store.live)
        clock = configuration.clock
    }

    /// What each part is made of: one object the four parts share, so that copying the
    /// features (a handler's value, per request) costs a reference, not each part's store.
    final class Parts: Sendable {
        let store: Store
        let clock: any WallClock
        let ids: any IDGenerator
        let access: FamilyAccess
        let settlement: Settlement
        /// The boards and consoles kept between the writes that change them.
        let kept: KeptFamilyAnswers

        init(
            store: Store, clock: any WallClock, ids: any IDGenerator, access: FamilyAccess, settlement: Settlement,
            kept: KeptFamilyAnswers
        ) {
            self.store = store
            self.clock = clock
            self.ids = ids
            self.access = access
            self.settlement = settlement
            self.kept = kept
        }
    }
}

extension FamilyFeatures: FeatureEventListener {
    public func handle(_ event: FeatureEvent, scope: WriteScope) async throws {
        switch event {
        case .zoneSet(let member): try await usage.childZoneChanged(member, scope: scope)
        }
    }
}

/// A part of family quests: what every part reads from the one `Parts` the composition root made.
protocol FamilyPart: Sendable {
    var parts: FamilyFeatures.Parts { get }
}

extension FamilyPart {
    var store: Store { parts.store }
    var clock: any WallClock { parts.clock }
    var ids: any IDGenerator { parts.ids }
    var access: FamilyAccess { parts.access }
    var settlement: Settlement { parts.settlement }
}

/// Who may read or change a child's quests, points and shield: one check for every part.
struct FamilyAccess: Sendable {
    let store: Store

    /// The child `id`, after checking that `actor` may read (or, with `manage`, change) its quests.
    func child(_ id: MemberID, as actor: MemberRecord, manage: Bool = false) async throws -> MemberRecord {
        guard let target = try await store.accounts.member(id) else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try AccessPolicy.check(actor.actor, .readMember(target.scope))
        guard target.role == .child, let household = target.householdID else {
            throw DomainError.notFound(Message("quests.error.notAChild"))
        }
        if manage { try AccessPolicy.check(actor.actor, .manageHousehold(household)) }
        return target
    }

    /// The children of the actor's household (guardians and children alike may list them).
    func children(as actor: MemberRecord) async throws -> [MemberRecord] {
        guard let household = actor.householdID else { return [] }
        return try await store.accounts.household(household)?.members.filter { $0.role == .child } ?? []
    }
}

extension MemberRecord {
    /// The household of a child that `FamilyAccess.child` returned (every child has one).
    func childsHousehold() throws -> HouseholdID {
        guard let householdID else { throw DomainError.notFound(Message("quests.error.notAChild")) }
        return householdID
    }
}

/// What the parts ask of a family write's transaction beyond the store's queries.
extension QuestQueries {
    /// Tells the household's devices, with the write (see `LiveAnnouncer`).
    func announce(_ kind: LiveEventKind, child: MemberRecord, quest: QuestID? = nil, now: Date) async throws {
        guard let household = child.householdID else { return }
        try await live?.announce(kind, household: household, child: child.id, quest: quest, now: now)
    }

    /// When a quest update may reach the member's phone (see `NotificationPreferences`).
    func questUpdateAt(_ member: MemberRecord, now: Date) async throws -> Date? {
        let preferences =
            try await notificationPreferences(member.id) ?? .defaults(isChild: member.role == .child)
        return preferences.questUpdateAt(now, in: member.zone)
    }

    /// The usage that reward accounting reads: from half a day before the first grant (or
    /// `since`) to a day after now.
    static func rewardWindow(grants: [UnlockGrant], since: Date, now: Date) -> (from: Date, to: Date) {
        let first = min(grants.map(\.startsAt).min() ?? since, since)
        return (first.addingTimeInterval(-43_200), now.addingTimeInterval(86_400))
    }

    /// The unlocks a child may use now, with what is left of each.
    func activeGrants(child: MemberRecord, now: Date) async throws -> [GrantBalance] {
        try await rewardAccount(child: child, since: now, now: now).balances.filter { $0.isActive(at: now) }
    }

    /// Reward apps' use charged to the grants not yet expired at `since` (`RewardUse`, the one
    /// accounting): what is left of each, and the use that was blocked since `since`. With no
    /// grant and `needsBlocked` false, nothing more is read.
    /// `grants`: the grants unexpired at `since`, and `usage`: reports read for a span that
    /// covers `rewardWindow`, when the caller read them already.
    func rewardAccount(
        child: MemberRecord, since: Date, now: Date, needsBlocked: Bool = false, apps: [QuestApp]? = nil,
        rules: ShieldRules? = nil, grants known: [UnlockGrant]? = nil, usage: UsageSpan? = nil
    ) async throws -> RewardUse.Account {
        let grants = if let known { known } else { try await self.grants(child.id, unexpiredAt: since) }
        guard !grants.isEmpty || needsBlocked else { return RewardUse.Account(balances: [], blocked: []) }
        var catalog = apps ?? []
        if apps == nil { catalog = try await self.apps(child.id) }
        var shield = rules ?? .open
        if rules == nil { shield = try await shieldRules(child.id) }
        let window = Self.rewardWindow(grants: grants, since: since, now: now)
        let reports =
            if let read = usage?.records(from: window.from, to: window.to) { read } else {
                try await self.reports(child.id, from: window.from, to: window.to)
            }
        let account = RewardUse.account(
            grants: grants, reports: reports, rewardApps: Set(catalog.filter { $0.role == .reward }.map(\.token)),
            rules: shield, zone: child.zone)
        return RewardUse.Account(balances: account.balances, blocked: account.blocked.filter { $0.at > since })
    }
}
