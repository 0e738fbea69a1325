import Foundation
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Cheers over the API: the household's list, sending one, a guardian's switch.
extension APIImplementation {
    func listCheers(_ input: Operations.listCheers.Input) async throws -> Operations.listCheers.Output {
        let me = try identity.requireMember()
        let board = try await cheers.board(try HouseholdID.parse(input.path.householdId, field: "householdId"), as: me)
        return .ok(.init(body: .json(.init(board, localizer: RequestLanguage.localizer))))
    }

    func sendCheer(_ input: Operations.sendCheer.Input) async throws -> Operations.sendCheer.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let household = try HouseholdID.parse(input.path.householdId, field: "householdId")
        let (sent, names) = try await cheers.send(
            body.cheer, to: body.to, household: household, as: me, scope: writeScope)
        return .created(.init(body: .json(.init(sent, names: names, localizer: RequestLanguage.localizer))))
    }

    func setCheerSettings(_ input: Operations.setCheerSettings.Input) async throws
        -> Operations.setCheerSettings.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        try await cheers.setEnabled(
            try HouseholdID.parse(input.path.householdId, field: "householdId"), body.enabled, as: me, scope: writeScope
        )
        return .noContent(.init())
    }
}

extension Components.Schemas.CheerItem {
    init(_ cheer: SentCheer, names: [MemberID: String], localizer l: Localizer) {
        self.init(
            id: cheer.id, from: cheer.from.rawValue, fromName: names[cheer.from] ?? l("quests.coop.formerMember"),
            to: cheer.to.rawValue, toName: names[cheer.to] ?? l("quests.coop.formerMember"),
            cheer: cheer.cheer.rawValue,
            text: l(cheer.cheer.text), emoji: cheer.cheer.emoji, sentAt: cheer.sentAt)
    }
}

extension Components.Schemas.CheerBoard {
    init(_ board: CheersFeature.Board, localizer l: Localizer) {
        let names = Dictionary(board.members.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        self.init(
            enabled: board.enabled, sentToday: board.sentToday, perDay: CheerRules.maxPerDay,
            presets: Cheer.allCases.map { .init(cheer: $0.rawValue, text: l($0.text), emoji: $0.emoji) },
            members: board.members.map { .init(id: $0.id.rawValue, displayName: $0.displayName) },
            cheers: board.cheers.map { .init($0, names: names, localizer: l) })
    }
}
