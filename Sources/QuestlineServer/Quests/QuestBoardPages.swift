import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The child's quest board and redemption.
extension QuestsPages {
    // MARK: The child's board

    func board(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        guard me.role == .child else { return Response.redirect(to: "/quests/family", type: .normal) }
        let board = try await family.quests.board(me.id, as: me)
        // A redemption's answer comes from the redirect's flash message.
        var model = BoardPage(
            board: board, message: flash.message(in: request), now: family.clock.now(), localizer: context.localizer)
        (model.family, model.coop) = try await together(for: me, localizer: context.localizer)
        return pages.page(
            "quests", title: context.localizer("quests.board.title"), model: model, context: context, path: "/quests",
            status: model.errors.isEmpty ? .ok : .badRequest, back: "/")
    }

    func redeem(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let form = try await Form(request)
        do {
            _ = try await family.points.redeem(
                me.id, token: form["appToken"], minutes: Int(form["minutes"]) ?? 0, as: me, scope: context.scope.write)
            return flash.redirect(to: "/quests", .notice, context.localizer("quests.notice.redeemed"))
        } catch let error as DomainError where error.isFormProblem {
            // Post, redirect, get: Back and reload never send the redemption again.
            return flash.redirect(to: "/quests", refused: error)
        }
    }
}
