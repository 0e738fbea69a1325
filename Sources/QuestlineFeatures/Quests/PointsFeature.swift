public import Foundation
public import QuestlineCore
public import QuestlineStore

/// Points: the household's redemption rules, redeeming points for minutes of a reward app, a
/// guardian's corrections, the ledger and the unlocks it bought.
public struct PointsFeature: FamilyPart {
    let parts: FamilyFeatures.Parts

    init(_ parts: FamilyFeatures.Parts) { self.parts = parts }

    // MARK: The household's rate

    public func rules(_ household: HouseholdID, as actor: MemberRecord) async throws -> RedemptionRules {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        return try await store.quests.read { try await $0.rules(household) }
    }

    public func setRules(
        _ household: HouseholdID, as actor: MemberRecord, pointsPerMinute: Int, minMinutes: Int, maxMinutes: Int,
        scope: WriteScope
    ) async throws -> RedemptionRules {
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        let rules = try RedemptionRules.validated(
            pointsPerMinute: pointsPerMinute, minMinutes: minMinutes, maxMinutes: maxMinutes)
        try await store.quests.write(scope) { q in
            try await q.setRules(household, rules)
            try await q.live?.announce(.rules, household: household, now: clock.now())
        }
        return rules
    }

    // MARK: Spending and correcting

    /// Turns points into minutes of a reward app, at the household's rate; the balance never
    /// goes below zero, however many requests arrive at once.
    public func redeem(_ childID: MemberID, token: String, minutes: Int, as actor: MemberRecord, scope: WriteScope)
        async throws -> (
            GrantBalance, Int
        )
    {
        let child = try await access.child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .actAsChild(child.scope, .redeemPoints))
        let now = clock.now()
        let result = try await store.quests.write(scope) { q -> (GrantBalance, Int) in
            let rules = try await q.rules(try child.childsHousehold())
            guard let app = try await q.apps(child.id).first(where: { $0.token == token }), app.role == .reward else {
                throw DomainError.invalid(field: "appToken", Message("quests.error.chooseRewardApp"))
            }
            // The same decision as the device's: minutes bought now would be shielded (and
            // expire at midnight), so they are not sold now.
            let shield = try await q.shieldRules(child.id)
            if let reason = shield.restriction(at: now, zone: child.zone) {
                throw DomainError.conflict(
                    field: "appToken",
                    message: Self.redeemWaits(
                        Self.restrictionMessage(
                            reason, until: shield.restrictionEnds(after: now, zone: child.zone), zone: child.zoneID,
                            now: now)))
            }
            let cost = try rules.cost(minutes: minutes)
            // The grant and what its event needs come before the balance: the balance row is the
            // child's one row that every spend and credit waits for, held from its write to the
            // commit, so its write is among the transaction's last (a short balance rolls all
            // of it back).
            let grant = UnlockGrant(
                id: ids.makeUUID().uuidString.lowercased(), token: token, minutes: minutes, startsAt: now,
                expiresAt: UnlockGrant.expiry(now: now, zone: child.zone), questID: nil)
            try await q.insertGrant(child.id, grant, now: now)
            let notifyAt = try await q.questUpdateAt(child, now: now)
            let balance: Int
            do {
                balance = try await q.points.append(
                    child.id, kind: .redeem, points: -cost,
                    reason: Message(
                        "quests.ledger.redeemed",
                        ["minutes": .message(.count(minutes, .minutes)), "app": .text(app.name)]
                    ).stored,
                    by: actor.id, id: ids.makeUUID().uuidString.lowercased(), now: now)
            } catch PointsError.insufficientPoints(let have) {
                throw DomainError.conflict(
                    field: "minutes",
                    message: Message(
                        "quests.error.notEnoughPoints",
                        ["minutes": .message(.count(minutes, .minutes)), "cost": .number(cost), "have": .number(have)]))
            }
            try await q.live?.record(
                .rewardUnlocked, member: child.id,
                data: OutboxData.RewardUnlocked(
                    memberId: child.id.rawValue, appToken: token, minutes: minutes, startsAt: grant.startsAt,
                    expiresAt: grant.expiresAt, questId: nil, notifyAt: notifyAt), now: now)
            try await q.announce(.points, child: child, now: now)
            try await q.announce(.policy, child: child, now: now)
            return (GrantBalance(grant: grant, secondsLeft: minutes * 60), balance)
        }
        return result
    }

    /// "Reward apps are blocked now (downtime until 07:00 tomorrow)." (the child's local time).
    public static func restrictionMessage(_ reason: ShieldPolicy.Reason, until: Date?, zone: TimeZoneID, now: Date)
        -> Message
    {
        let downtime = reason == .downtime
        guard let until else {
            return Message(downtime ? "quests.shield.blockedDowntime" : "quests.shield.blockedOffToday")
        }
        return Message(
            downtime ? "quests.shield.blockedDowntimeUntil" : "quests.shield.blockedOffTodayUntil",
            ["until": .message(.until(until, now: now, in: zone))])
    }

    /// The restriction, and that redemption waits for its end ("… Redeem your points after that.").
    public static func redeemWaits(_ restriction: Message) -> Message {
        Message("quests.error.redeemWaits", ["restriction": .message(restriction)])
    }

    /// A guardian's correction, with a reason.
    public func adjust(_ childID: MemberID, points: Int, reason: String, as actor: MemberRecord, scope: WriteScope)
        async throws -> Int
    {
        let child = try await access.child(childID, as: actor, manage: true)
        var v = FieldValidation()
        v.check { () throws(DomainError) in
            guard points != 0, (-100_000...100_000).contains(points) else {
                throw .invalid(
                    field: "points",
                    Message("quests.error.adjustPoints", ["min": .number(-100_000), "max": .number(100_000)]))
            }
        }
        let reason = reason.trimmed()
        v.check { () throws(DomainError) in
            guard (1...200).contains(reason.count) else {
                throw .invalid(field: "reason", Message("quests.error.adjustReason", ["max": .number(200)]))
            }
        }
        try v.finish()
        let now = clock.now()
        return try await store.quests.write(scope) { q in
            let balance: Int
            do {
                balance = try await q.points.append(
                    child.id, kind: .adjust, points: points, reason: reason, by: actor.id,
                    id: ids.makeUUID().uuidString.lowercased(), now: now)
            } catch PointsError.insufficientPoints(let have) {
                throw DomainError.conflict(
                    field: "points", message: Message("quests.error.belowZero", ["balance": .number(have)]))
            }
            try await q.announce(.points, child: child, now: now)
            return balance
        }
    }

    public func ledger(_ childID: MemberID, as actor: MemberRecord, limit: Int, offset: Int) async throws -> (
        entries: [LedgerEntry], balance: Int
    ) {
        let child = try await access.child(childID, as: actor)
        return try await store.quests.read { q in
            (
                try await q.points.entries(child.id, limit: limit, offset: offset),
                try await q.points.balance(child.id).balance
            )
        }
    }

    /// The reward apps a child may open now, with the minutes left: what the device enforces.
    public func grants(_ childID: MemberID, as actor: MemberRecord) async throws -> [GrantBalance] {
        let child = try await access.child(childID, as: actor)
        return try await store.quests.read { q in try await q.activeGrants(child: child, now: clock.now()) }
    }
}
