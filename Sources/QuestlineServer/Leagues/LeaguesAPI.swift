import Foundation
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Weekly leagues over the API.
extension APIImplementation {
    func getLeague(_ input: Operations.getLeague.Input) async throws -> Operations.getLeague.Output {
        let me = try identity.requireMember()
        return .ok(.init(body: .json(.init(try await leagues.league(as: me), localizer: RequestLanguage.localizer))))
    }

    func setLeague(_ input: Operations.setLeague.Input) async throws -> Operations.setLeague.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let member = try body.memberId.map { try MemberID.parse($0, field: "memberId") }
        try await leagues.setJoined(body.joined, member: member, as: me, scope: writeScope)
        return .ok(.init(body: .json(.init(try await leagues.league(as: me), localizer: RequestLanguage.localizer))))
    }

    func createFriendGroup(_ input: Operations.createFriendGroup.Input) async throws
        -> Operations.createFriendGroup.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let group = try await leagues.createFriendGroup(name: body.name, as: me, scope: writeScope)
        let view = try await leagues.league(as: me)
        return .created(.init(body: .json(.init(group, view: view))))
    }

    func joinFriendGroup(_ input: Operations.joinFriendGroup.Input) async throws -> Operations.joinFriendGroup.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let group = try await leagues.joinFriendGroup(code: body.code, as: me, scope: writeScope)
        let view = try await leagues.league(as: me)
        return .ok(.init(body: .json(.init(group, view: view))))
    }

    func leaveFriendGroup(_ input: Operations.leaveFriendGroup.Input) async throws -> Operations.leaveFriendGroup.Output
    {
        let me = try identity.requireMember()
        try await leagues.leaveFriendGroup(input.path.groupId, as: me, scope: writeScope)
        return .noContent(.init())
    }
}

extension Components.Schemas.FriendGroup {
    /// Codes only for the guardians who pass them on.
    init(_ group: FriendGroup, view: LeaguesFeature.View) {
        self.init(
            id: group.id, name: group.name, code: view.managesGroups ? FriendCode.shown(group.code) : nil,
            households: group.households.map { view.householdNames[$0] ?? "A household" })
    }
}

extension Components.Schemas.League {
    init(_ view: LeaguesFeature.View, localizer l: Localizer) {
        self.init(
            joined: view.joined, tier: .init(rawValue: "\(view.tier)")!, week: view.week.iso, closesAt: view.closesAt,
            divisionFromNextWeek: view.divisionFromNextWeek, divisionDrawAt: view.divisionDrawAt,
            boards: view.boards.map { board in
                .init(
                    kind: .init(rawValue: board.kind.rawValue)!, key: board.key, title: l(board.title),
                    tier: board.tier.map { "\($0)" },
                    rows: board.rows.map {
                        .init(
                            memberId: $0.member.rawValue, displayName: $0.name, points: $0.points, rank: $0.rank,
                            me: $0.isMe, movement: .init(rawValue: $0.movement.rawValue)!)
                    })
            },
            lastWeek: view.last.map { last in
                .init(
                    week: last.week.iso,
                    results: last.results.map {
                        .init(
                            board: $0.board, rank: $0.rank, points: $0.points,
                            movement: .init(rawValue: $0.movement.rawValue)!, tier: $0.tier.map { "\($0)" })
                    })
            },
            friendGroups: view.friendGroups.map { .init($0, view: view) })
    }
}
