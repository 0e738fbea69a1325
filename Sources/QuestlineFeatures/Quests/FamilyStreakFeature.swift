import Foundation
public import QuestlineCore
import QuestlineStore

/// The household's family streak: who is in it, the days everyone met, who the day
/// still waits on. Shown on the guardian's console, the children's boards and its own page.
extension QuestsFeature {
    public struct FamilyStreakView: Sendable {
        public let board: FamilyStreak.Board
        /// The household's members, each with whether they are in the streak and have met the
        /// family's today.
        public let members: [(member: MemberRecord, joined: Bool, metToday: Bool)]
    }

    public func familyStreak(_ household: HouseholdID, as actor: MemberRecord) async throws -> FamilyStreakView {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        let members = try await store.accounts.household(household)?.members ?? []
        return try await store.quests.read { q in
            try await familyStreak(q, household, members: members, zone: actor.zone)
        }
    }

    /// What the board and the console show of the household together: the family streak and
    /// this week's and the next's co-op quests, from one read of the household.
    public func together(_ household: HouseholdID, as actor: MemberRecord) async throws -> (
        streak: FamilyStreakView, coop: [CoopQuestView]
    ) {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        let members = try await store.accounts.household(household)?.members ?? []
        let today = clock.today(in: actor.zone)
        return try await store.quests.read { q in
            let streak = try await familyStreak(q, household, members: members, zone: actor.zone)
            let quests = try await q.coopQuests(household, since: today.monday)
                .filter { $0.status == .active }
            let facts = try await q.coopFacts(quests)
            return (streak, quests.map { coopView($0, facts: facts, members: members, today: today, actor: actor) })
        }
    }

    private func familyStreak(
        _ q: QuestQueries, _ household: HouseholdID, members: [MemberRecord], zone: TimeZone
    ) async throws
        -> FamilyStreakView
    {
        let now = clock.now()
        let todays = members.map { LocalDay(now, in: $0.zone) }
        let fallback = todays.min() ?? LocalDay(now, in: zone)
        let facts = try await q.familyStreakFacts(household, from: FamilyStreak.factsFrom(today: fallback))
        let inStreak = zip(members, todays).map { member, today in
            let kind: FamilyStreak.Kind = member.role == .child ? .learner : .reader
            return FamilyStreak.Member(
                id: member.id, kind: kind, spans: facts.spans[member.id] ?? [],
                met: (kind == .learner ? facts.learning[member.id] : facts.reads[member.id]) ?? [], today: today)
        }
        let board = FamilyStreak.board(inStreak, fallbackToday: fallback)
        return FamilyStreakView(
            board: board,
            members: zip(members, inStreak).map { member, streak in
                (member, streak.isIn, streak.met.contains(board.today))
            })
    }

    /// `memberID` joins (from their today) or leaves (from their tomorrow) the family streak:
    /// a member for themselves, a guardian for a child.
    public func setFamilyStreak(
        _ household: HouseholdID, member memberID: MemberID, joined: Bool, as actor: MemberRecord, scope: WriteScope
    ) async throws {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        guard let member = try await store.accounts.member(memberID), member.householdID == household else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try AccessPolicy.check(actor.actor, .updateMember(member.scope))
        let now = clock.now()
        let today = LocalDay(now, in: member.zone)
        try await store.quests.write(scope) { q in
            let spans = try await q.familyStreakSpans(member.id, forUpdate: true)
            let changed = joined ? FamilyStreak.join(spans, today: today) : FamilyStreak.leave(spans, today: today)
            guard changed != spans else { return }
            try await q.setFamilyStreakSpans(member.id, household: household, changed, now: now)
            try await q.live?.announce(.progress, household: household, child: member.id, now: now)
        }
    }
}
