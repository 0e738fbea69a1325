import Foundation
public import QuestlineCore
public import QuestlineStore

/// Cheers: a household's members send each other preset cheers (`CheerRules`), heard live; a
/// guardian turns them on or off.
public struct CheersFeature: Sendable {
    let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
    }

    /// What the household's cheers page shows: whether they are on, the latest (newest first),
    /// the members one can cheer, and how many the actor may still send today.
    public struct Board: Sendable {
        public let enabled: Bool
        public let cheers: [SentCheer]
        public let members: [MemberRecord]
        public let sentToday: Int
    }

    public func board(_ household: HouseholdID, as actor: MemberRecord) async throws -> Board {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        let members = try await store.accounts.household(household)?.members ?? []
        let today = clock.today(in: actor.zone)
        return try await store.cheers.read { q in
            Board(
                enabled: try await q.cheersEnabled(household), cheers: try await q.cheers(household, limit: 50),
                members: members, sentToday: try await q.cheersSent(by: actor.id, on: today))
        }
    }

    /// The actor cheers a member of their household with a preset (`CheerRules`); the household
    /// hears it live. Returns the cheer and the names of its sender and recipient.
    public func send(
        _ raw: String, to recipient: String, household: HouseholdID, as actor: MemberRecord, scope: WriteScope
    )
        async throws -> (cheer: SentCheer, names: [MemberID: String])
    {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        let to = try MemberID.parse(recipient, field: "to")
        guard let target = try await store.accounts.member(to), target.householdID == household else {
            throw DomainError.invalid(field: "to", Message("quests.error.cheerHousehold"))
        }
        let now = clock.now()
        let today = LocalDay(now, in: actor.zone)
        return try await store.cheers.write(scope) { q in
            try await q.lockSender(actor.id)  // one cheer at a time per sender: the daily limit holds
            let cheer = try CheerRules.check(
                raw, from: actor.id, to: target.id, enabled: try await q.cheersEnabled(household),
                sentToday: try await q.cheersSent(by: actor.id, on: today),
                secondsToTomorrow: Int(today.adding(days: 1).start(in: actor.zone).timeIntervalSince(now)))
            let sent = SentCheer(
                id: ids.makeUUID().uuidString.lowercased(), from: actor.id, to: target.id, cheer: cheer, sentAt: now)
            try await q.insertCheer(sent, household: household, day: today)
            try await q.live?.announce(.cheer, household: household, child: target.id, now: now)
            return (sent, [actor.id: actor.displayName, target.id: target.displayName])
        }
    }

    /// A guardian turns the household's cheers on or off.
    public func setEnabled(_ household: HouseholdID, _ enabled: Bool, as actor: MemberRecord, scope: WriteScope)
        async throws
    {
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        try await store.cheers.write(scope) { q in
            try await q.setCheersEnabled(household, enabled)
            try await q.live?.announce(.rules, household: household, now: clock.now())
        }
    }
}
