import Foundation
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The family streak over the API.
extension APIImplementation {
    func getFamilyStreak(_ input: Operations.getFamilyStreak.Input) async throws -> Operations.getFamilyStreak.Output {
        let me = try identity.requireMember()
        let household = try HouseholdID.parse(input.path.householdId, field: "householdId")
        return .ok(.init(body: .json(.init(try await family.quests.familyStreak(household, as: me)))))
    }

    func setFamilyStreakMember(_ input: Operations.setFamilyStreakMember.Input) async throws
        -> Operations.setFamilyStreakMember.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let household = try HouseholdID.parse(input.path.householdId, field: "householdId")
        try await family.quests.setFamilyStreak(
            household, member: try MemberID.parse(input.path.memberId, field: "memberId"), joined: body.joined, as: me,
            scope: writeScope)
        return .ok(.init(body: .json(.init(try await family.quests.familyStreak(household, as: me)))))
    }
}

extension Components.Schemas.FamilyStreak {
    init(_ view: QuestsFeature.FamilyStreakView) {
        self.init(
            current: view.board.current, today: view.board.today.iso, todayMet: view.board.todayMet,
            members: view.members.map {
                .init(
                    id: $0.member.id.rawValue, displayName: $0.member.displayName,
                    role: $0.member.role == .child ? .child : .guardian, joined: $0.joined, metToday: $0.metToday)
            },
            days: view.board.days.map { .init(day: $0.day.iso, state: .init(rawValue: $0.state.rawValue)!) })
    }
}
