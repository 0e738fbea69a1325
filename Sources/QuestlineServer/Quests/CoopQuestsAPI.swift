import Foundation
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Co-op quests over the API: the household's list, setting one, one, cancelling one.
extension APIImplementation {
    func listCoopQuests(_ input: Operations.listCoopQuests.Input) async throws -> Operations.listCoopQuests.Output {
        let me = try identity.requireMember()
        let household = try HouseholdID.parse(input.path.householdId, field: "householdId")
        return .ok(
            .init(
                body: .json(
                    .init(try await family.quests.coopBoard(household, as: me), localizer: RequestLanguage.localizer)))
        )
    }

    func createCoopQuest(_ input: Operations.createCoopQuest.Input) async throws -> Operations.createCoopQuest.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let household = try HouseholdID.parse(input.path.householdId, field: "householdId")
        let view = try await family.quests.createCoopQuest(
            household, spec: try CoopQuestSpec(body), as: me, scope: writeScope)
        return .created(.init(body: .json(.init(view, localizer: RequestLanguage.localizer))))
    }

    func getCoopQuest(_ input: Operations.getCoopQuest.Input) async throws -> Operations.getCoopQuest.Output {
        let me = try identity.requireMember()
        let id = try CoopQuestID.parse(input.path.coopQuestId, field: "coopQuestId")
        return .ok(
            .init(
                body: .json(.init(try await family.quests.coopQuest(id, as: me), localizer: RequestLanguage.localizer)))
        )
    }

    func cancelCoopQuest(_ input: Operations.cancelCoopQuest.Input) async throws -> Operations.cancelCoopQuest.Output {
        let me = try identity.requireMember()
        let id = try CoopQuestID.parse(input.path.coopQuestId, field: "coopQuestId")
        try await family.quests.cancelCoopQuest(id, as: me, scope: writeScope)
        return .ok(
            .init(
                body: .json(.init(try await family.quests.coopQuest(id, as: me), localizer: RequestLanguage.localizer)))
        )
    }
}

extension CoopQuestSpec {
    /// The contract's input, each field named as the API names it; the rules are the core's.
    init(_ body: Components.Schemas.CoopQuestInput) throws(DomainError) {
        var children: [MemberID] = []
        for (index, child) in body.children.enumerated() {
            children.append(try MemberID.parse(child, field: "children[\(index)]"))
        }
        guard let weekStart = LocalDay(iso: body.weekStart) else {
            throw .invalid(field: "weekStart", Message("quests.error.weekStartFormat"))
        }
        self.init(
            title: body.title, goal: CoopGoal(rawValue: body.goal.rawValue) ?? .minutes, target: body.target,
            dailyMinimumMinutes: body.dailyMinimumMinutes ?? 15, weekStart: weekStart, children: children,
            bonusPercent: body.bonusPercent ?? 10,
            rewardApps: (body.rewardApps ?? []).map { RewardUnlock(token: $0.appToken, minutes: $0.minutes) })
    }
}

extension Components.Schemas.CoopQuest {
    init(_ view: QuestsFeature.CoopQuestView, localizer l: Localizer) {
        let spec = view.quest.spec
        self.init(
            id: view.quest.id.rawValue, title: spec.title, goal: spec.goal == .minutes ? .minutes : .days,
            unit: spec.goal.unit.rawValue, target: spec.target, dailyMinimumMinutes: spec.dailyMinimumMinutes,
            weekStart: spec.weekStart.iso, weekEnd: spec.weekEnd.iso,
            status: view.quest.status == .active ? .active : .cancelled,
            phase: .init(rawValue: view.phase.rawValue)!, value: view.progress.value, percent: view.progress.percent,
            completedAt: view.quest.completedAt, bonusPercent: spec.bonusPercent,
            rewardApps: spec.rewardApps.map { .init(appToken: $0.token, minutes: $0.minutes) },
            shares: view.progress.shares.map {
                .init(
                    childId: $0.child.rawValue, displayName: view.names[$0.child] ?? l("quests.coop.formerMember"),
                    value: $0.value, points: $0.points, bonus: $0.paid)
            })
    }
}

extension Components.Schemas.CoopBoard {
    init(_ board: QuestsFeature.CoopBoard, localizer l: Localizer) {
        self.init(
            thisWeek: board.thisWeek.iso, canSet: board.canSet, quests: board.quests.map { .init($0, localizer: l) },
            children: board.children.map { .init(id: $0.id.rawValue, displayName: $0.displayName) },
            rewardApps: board.rewardApps.map { .init(appToken: $0.token, name: $0.name, ofEveryChild: $0.ofEveryChild) }
        )
    }
}
