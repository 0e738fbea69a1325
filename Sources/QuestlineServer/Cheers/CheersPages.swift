import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The household's cheers page (`cheers.mustache`): the latest cheers, a form to cheer someone
/// with a preset, and for guardians the switch.
struct CheersPage: Equatable {
    struct Row: Equatable {
        let emoji: String
        let text: String
        let from: String
        let to: String
        let toMe: Bool
        let when: String
        /// "Grace to you, 21:05".
        let line: String
    }

    struct Choice: Equatable {
        let value: String
        let label: String
    }

    let enabled: Bool
    let rows: [Row]
    let empty: Bool
    let members: [Choice]
    let presets: [Choice]
    let left: Int
    /// "Pick someone and a cheer: 3 left today."
    let leftText: String
    let canSend: Bool
    let guardian: Bool
    let notice: String?
    let error: String?
    /// The household's event stream: the list redraws itself when a cheer arrives.
    let live: String?

    init(
        _ board: CheersFeature.Board, me: MemberRecord, message: Flash.Message?, now: Date, localizer l: Localizer
    ) {
        let names = Dictionary(board.members.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        enabled = board.enabled
        rows = board.cheers.map { cheer in
            let from = names[cheer.from].map(Message.Argument.text) ?? .message(Message("quests.coop.formerMember"))
            let to = names[cheer.to].map(Message.Argument.text) ?? .message(Message("quests.cheers.formerMember"))
            let at = Message.at(cheer.sentAt, now: now, in: me.zoneID)
            let when = l(at)
            let toMe = cheer.to == me.id
            return Row(
                emoji: cheer.cheer.emoji, text: l(cheer.cheer.text), from: l.render(from),
                to: toMe ? l("quests.cheers.you") : l.render(to), toMe: toMe, when: when,
                line: toMe
                    ? l("quests.cheers.lineToYou", ["from": from, "when": .message(at)])
                    : l("quests.cheers.line", ["from": from, "to": to, "when": .message(at)]))
        }
        empty = board.cheers.isEmpty
        members = board.members.filter { $0.id != me.id }.map { Choice(value: $0.id.rawValue, label: $0.displayName) }
        presets = Cheer.allCases.map { Choice(value: $0.rawValue, label: "\($0.emoji) \(l($0.text))") }
        left = max(CheerRules.maxPerDay - board.sentToday, 0)
        leftText = l("quests.cheers.left", ["count": .number(left)])
        canSend = board.enabled && left > 0 && !members.isEmpty
        guardian = me.role == .guardian
        notice = message?.kind == .notice ? message?.text : nil
        error = message?.kind == .error ? message?.text : nil
        live = liveEventsPath(me)
    }
}

/// Cheers in the server: its pages here, its API operations in `CheersAPI.swift`, its tables,
/// queries and personal data in the store's `CheerStore.swift` (`CheerSchema`).
struct CheersModule: FeatureModule {
    let cheers: CheersFeature
    let pages: PageRenderer
    let flash: Flash

    func register(on router: Router<AppRequestContext>) {
        router.get("/quests/family/cheers") { request, context in try await self.cheers(request, context) }
        router.post("/quests/family/cheers") { request, context in try await self.sendCheer(request, context) }
        router.post("/quests/family/cheers/settings") { request, context in
            try await self.setCheers(request, context)
        }
    }

    private func household(of member: MemberRecord) throws -> HouseholdID {
        guard let household = member.householdID else {
            throw DomainError.notFound(Message("quests.error.cheersNoHousehold"))
        }
        return household
    }

    private func cheers(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/cheers")
        let board = try await cheers.board(try household(of: me), as: me)
        let page = CheersPage(
            board, me: me, message: flash.message(in: request), now: cheers.clock.now(), localizer: context.localizer)
        return pages.page(
            "cheers", title: context.localizer("quests.cheers.title"), model: page, context: context, path: "/quests",
            back: me.role == .child ? "/quests" : "/quests/family")
    }

    private func sendCheer(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/cheers")
        let form = try await Form(request)
        do {
            let (sent, _) = try await cheers.send(
                form["cheer"], to: form["to"], household: try household(of: me), as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/quests/family/cheers", .notice,
                context.localizer(
                    "quests.notice.cheerSent", ["emoji": .text(sent.cheer.emoji), "cheer": .message(sent.cheer.text)]))
        } catch let error as DomainError where error.isFormProblem {
            return flash.redirect(to: "/quests/family/cheers", refused: error)
        }
    }

    private func setCheers(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/cheers")
        let form = try await Form(request)
        let enabled = form["enabled"] == "on"
        try await cheers.setEnabled(try household(of: me), enabled, as: me, scope: context.scope.write)
        return flash.redirect(
            to: "/quests/family/cheers", .notice,
            context.localizer(enabled ? "quests.notice.cheersOn" : "quests.notice.cheersOff"))
    }
}
