import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The stories member's own screens: the profile (details, photo, badges, cards), points with
/// daily tasks, and the card shop.
extension StoriesPages {
    func profile(_ request: Request, _ context: AppRequestContext, errors: [String: String] = [:]) async throws
        -> Response
    {
        let me = try member(context, request)
        let q = request.uri.queryParameters
        let page = StoriesProfilePage(
            try await stories.profile(me), member: me, cardsTab: q["tab"] == "cards", editing: q["edit"] != nil,
            errors: errors, saved: q["saved"] != nil, localizer: context.localizer)
        return render(
            "stories-profile", "stories.profile.title", page, context, status: errors.isEmpty ? .ok : .badRequest)
    }

    func saveProfile(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let form = try await Form(request)
        return try await submitting {
            _ = try await stories.setDetails(
                me, location: form["location"], favouriteTrack: form["favouriteTrack"], bio: form["bio"],
                scope: context.scope.write)
            return Response.redirect(to: "/stories/profile?saved=1", type: .normal)
        } refused: { error in
            try await profile(request, context, errors: FieldErrors.of(error, context.localizer))
        }
    }

    func photo(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        Self.image(try await stories.photo(try member(context, request)))
    }

    func points(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let (balance, entries) = try await stories.points(me, limit: 50, offset: 0)
        let page = StoriesPointsPage(
            balance: balance, entries: entries, tasks: try await stories.dailyTasks(me), zone: me.zone,
            tasksTab: request.uri.queryParameters["tab"] == "tasks", notice: flash.text(of: .notice, in: request),
            localizer: context.localizer)
        return render("stories-points", "stories.points.title", page, context)
    }

    func shop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let query = String((request.uri.queryParameters["q"] ?? "").prefix(100))
        let page = StoriesShopPage(
            query: query, cards: try await stories.content().shop(query),
            balance: try await stories.points(me, limit: 1, offset: 0).balance, owned: try await stories.ownedCards(me),
            notice: flash.text(of: .notice, in: request), localizer: context.localizer)
        return render("stories-shop", "stories.shop.title", page, context, back: "/stories/points")
    }

    func buy(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        return try await submitting {
            let (card, _) = try await stories.buy(me, card: try param(context, "card"), scope: context.scope.write)
            return flash.redirect(
                to: "/stories/shop", .notice, context.localizer("stories.shop.bought", ["card": .text(card.name)]))
        } refused: { error in
            flash.redirect(to: "/stories/shop", .notice, Self.message(error, context.localizer))
        }
    }
}
