import Foundation
public import QuestlineCore
import QuestlineStore

/// Co-op quests: one target for several children of a household, one week; each child's
/// learning counts toward it, and completion pays each contributor a bonus on their own points
/// of the week and unlocks the reward apps for each. Settled with every child's usage, inside
/// the child's settlement (`settle`), so that one settlement decides whatever the arrival order.
extension QuestsFeature {
    /// A co-op quest as the screens show it: its progress, each child's share, the household's
    /// names for them, and where the week stands for the viewer.
    public struct CoopQuestView: Sendable {
        public enum Phase: String, Sendable {
            /// The week has not begun (for the viewer).
            case upcoming
            /// This week, target not reached yet.
            case running
            /// Target reached: contributors paid.
            case completed
            /// The week is over without reaching the target.
            case missed
            case cancelled
        }

        public let quest: CoopQuest
        public let progress: CoopProgress
        public let phase: Phase
        public let names: [MemberID: String]
        /// The viewer may cancel it (a guardian, while it runs or is to come).
        public let canCancel: Bool
    }

    /// What the co-op page shows: the household's co-op quests of last week, this week and the
    /// next; what a guardian may choose from to set one (children and their shared reward apps).
    public struct CoopBoard: Sendable {
        public let quests: [CoopQuestView]
        public let children: [MemberRecord]
        /// The children's reward apps, by token, with a name, and whether every child has it (the
        /// guardian's form; the cards name the apps a quest unlocks).
        public let rewardApps: [(token: String, name: String, ofEveryChild: Bool)]
        public let canSet: Bool
        public var appNames: [String: String] {
            Dictionary(rewardApps.map { ($0.token, $0.name) }, uniquingKeysWith: { first, _ in first })
        }
        /// The viewer's Monday of this week (a new quest's week is it or the next).
        public let thisWeek: LocalDay
    }

    /// How many co-op quests a household may have in one week.
    public static let maxCoopQuestsPerWeek = 10

    public func coopBoard(_ household: HouseholdID, as actor: MemberRecord) async throws -> CoopBoard {
        try AccessPolicy.check(actor.actor, .readHousehold(household))
        let members = try await store.accounts.household(household)?.members ?? []
        let children = members.filter { $0.role == .child }
        let canSet = AccessPolicy.allows(actor.actor, .manageHousehold(household))
        let now = clock.now()
        let today = LocalDay(now, in: actor.zone)
        let thisWeek = today.monday
        return try await store.quests.read { q in
            let quests = try await q.coopQuests(household, since: thisWeek.adding(days: -7))
            let facts = try await q.coopFacts(quests)
            var catalogs: [(MemberID, [QuestApp])] = []
            for child in children { catalogs.append((child.id, try await q.apps(child.id))) }
            return CoopBoard(
                quests: quests.map { coopView($0, facts: facts, members: members, today: today, actor: actor) },
                children: children, rewardApps: Self.sharedRewardApps(catalogs), canSet: canSet, thisWeek: thisWeek)
        }
    }

    /// One co-op quest of the actor's household.
    public func coopQuest(_ id: CoopQuestID, as actor: MemberRecord) async throws -> CoopQuestView {
        let (quest, members) = try await coopQuestAndHousehold(id, as: actor)
        return try await store.quests.read { q in
            coopView(
                quest, facts: try await q.coopFacts([quest]), members: members, today: clock.today(in: actor.zone),
                actor: actor)
        }
    }

    /// A guardian sets a co-op quest. Learning already done in its week counts at once (the
    /// quest may complete as it is set).
    public func createCoopQuest(
        _ household: HouseholdID, spec draft: CoopQuestSpec, as actor: MemberRecord, scope: WriteScope
    )
        async throws -> CoopQuestView
    {
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        let members = try await store.accounts.household(household)?.members ?? []
        let children = members.filter { $0.role == .child }
        let now = clock.now()
        let today = LocalDay(now, in: actor.zone)
        let id = CoopQuestID(ids.makeUUID())
        let quest = try await store.quests.write(scope) { q -> CoopQuest in
            var catalogs: [MemberID: [QuestApp]] = [:]
            for child in children where draft.children.contains(child.id) {
                catalogs[child.id] = try await q.apps(child.id)
            }
            // Children of the household not chosen still count as "of the household" for the rule.
            for child in children where catalogs[child.id] == nil { catalogs[child.id] = [] }
            let spec = try draft.validated(household: catalogs, today: today)
            // The cap is counted under the household's lock, in the transaction that writes.
            try await q.lockCoopQuests(of: household)
            let sameWeek = try await q.coopQuests(household, since: spec.weekStart).filter {
                $0.spec.weekStart == spec.weekStart && $0.status == .active
            }
            if sameWeek.count >= Self.maxCoopQuestsPerWeek {
                throw DomainError.conflict(
                    field: "weekStart",
                    message: Message("quests.error.tooManyCoopQuests", ["count": .number(Self.maxCoopQuestsPerWeek)]))
            }
            let quest = CoopQuest(
                id: id, householdID: household, spec: spec, status: .active, createdAt: now, completedAt: nil)
            try await q.insertCoopQuest(quest, by: actor.id)
            try await settlement.settleCoop(q, [quest], members: members, now: now)
            for child in spec.children {
                try await q.live?.announce(.quest, household: household, child: child, now: now)
            }
            return quest
        }
        return try await store.quests.read { q in
            coopView(quest, facts: try await q.coopFacts([quest]), members: members, today: today, actor: actor)
        }
    }

    /// A guardian cancels a co-op quest: it stops counting. What it already paid stays.
    public func cancelCoopQuest(_ id: CoopQuestID, as actor: MemberRecord, scope: WriteScope) async throws {
        let (quest, _) = try await coopQuestAndHousehold(id, as: actor)
        try AccessPolicy.check(actor.actor, .manageHousehold(quest.householdID))
        let now = clock.now()
        try await store.quests.write(scope) { q in
            try await q.cancelCoopQuest(id)
            for child in quest.spec.children {
                try await q.live?.announce(.quest, household: quest.householdID, child: child, now: now)
            }
        }
    }

    private func coopQuestAndHousehold(_ id: CoopQuestID, as actor: MemberRecord) async throws -> (
        CoopQuest, [MemberRecord]
    ) {
        guard let quest = try await store.quests.read({ try await $0.coopQuest(id) }),
            actor.householdID == quest.householdID
        else { throw DomainError.notFound(Message("quests.error.noSuchCoopQuest")) }
        try AccessPolicy.check(actor.actor, .readHousehold(quest.householdID))
        return (quest, try await store.accounts.household(quest.householdID)?.members ?? [])
    }

    func coopView(
        _ quest: CoopQuest, facts: (days: [LearningDay], paid: [CoopQuestID: [MemberID: Int]]),
        members: [MemberRecord], today: LocalDay, actor: MemberRecord
    ) -> CoopQuestView {
        let progress = CoopProgress(quest.spec, days: facts.days, paid: facts.paid[quest.id] ?? [:])
        let phase: CoopQuestView.Phase =
            quest.status == .cancelled
            ? .cancelled
            : quest.completedAt != nil || progress.completed
                ? .completed
                : today < quest.spec.weekStart ? .upcoming : today > quest.spec.weekEnd ? .missed : .running
        return CoopQuestView(
            quest: quest, progress: progress, phase: phase,
            names: Dictionary(members.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first }),
            canCancel: (phase == .running || phase == .upcoming)
                && AccessPolicy.allows(actor.actor, .manageHousehold(quest.householdID)))
    }

    /// Reward apps by token across the children's catalogs, named as the first catalog names
    /// them, and whether every child has it as a reward app.
    static func sharedRewardApps(_ catalogs: [(MemberID, [QuestApp])]) -> [(
        token: String, name: String, ofEveryChild: Bool
    )] {
        var names: [String: String] = [:]
        var counts: [String: Int] = [:]
        for (_, catalog) in catalogs {
            for app in catalog where app.role == .reward {
                if names[app.token] == nil { names[app.token] = app.name }
                counts[app.token, default: 0] += 1
            }
        }
        return names.keys.sorted { (names[$0]!, $0) < (names[$1]!, $1) }.map {
            ($0, names[$0]!, counts[$0] == catalogs.count)
        }
    }
}
