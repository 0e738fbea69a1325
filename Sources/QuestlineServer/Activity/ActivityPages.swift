import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The Activity tab in the web app: the Saved module (tap leads to the Saved list), articles
/// read, time spent, streak, badges and the last days; the Saved list with unsave.
struct ActivityPages {
    let activity: ActivityFeature
    /// The streak calendar is the reading feature's.
    let reading: ReadingFeature
    let pages: PageRenderer

    func register(on router: Router<AppRequestContext>) {
        router.get("/activity") { request, context in try await self.overview(request, context) }
        router.get("/activity/saved") { request, context in try await self.saved(request, context) }
        router.post("/activity/saved/remove") { request, context in try await self.remove(request, context) }
        router.post("/activity/saved/add") { request, context in try await self.add(request, context) }
        router.get("/activity/recap") { request, context in try await self.recap(request, context) }
        router.get("/activity/recap.svg") { request, context in try await self.recapPicture(request, context) }
    }

    /// The month (or year) in review as slides, with the periods around it.
    private func recap(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/activity/recap")
        let recap = try await activity.recap(member, period: request.uri.queryParameters["period"].map(String.init))
        return pages.page(
            "recap", title: context.localizer("recap.page.title", ["period": .message(recap.period.title)]),
            model: RecapPage(recap, today: activity.clock.today(in: member.zone), localizer: context.localizer),
            context: context, path: "/activity", back: "/activity")
    }

    private func recapPicture(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/activity/recap")
        let recap = try await activity.recap(member, period: request.uri.queryParameters["period"].map(String.init))
        var headers = HTTPFields()
        headers[.contentType] = "image/svg+xml"
        headers[.cacheControl] = "private, no-cache"
        return Response(
            status: .ok, headers: headers,
            body: .init(
                byteBuffer: ByteBuffer(
                    string: RecapPicture.svg(recap, name: member.displayName, localizer: context.localizer))))
    }

    private func overview(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/activity")
        let view = try await activity.view(member, locale: context.localizer.language.locale)
        let calendar = try await reading.streakCalendar(
            for: ReaderIdentity(member), month: try StreakCalendarView.month(request.uri.queryParameters["month"]))
        return pages.page(
            "activity", title: context.localizer("shell.nav.activity"),
            model: ActivityPage(
                view, calendar: calendar, zone: member.zone, today: activity.clock.today(in: member.zone),
                localizer: context.localizer),
            context: context, path: "/activity", back: "/")
    }

    private func saved(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/activity/saved")
        let articles = try await activity.saved(member, page: try Paging(limit: Paging.maxLimit, offset: 0)).articles
        return pages.page(
            "activity-saved", title: context.localizer("activity.saved.title"),
            model: SavedListPage(
                articles, removed: request.uri.queryParameters["removed"] != nil, localizer: context.localizer),
            context: context,
            path: "/activity", back: "/activity")
    }

    private func remove(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/activity/saved")
        let form = try await Form(request)
        _ = try await activity.unsave(
            member, language: form["language"], title: form["title"], list: nil, scope: context.scope.write)
        return Response.redirect(to: "/activity/saved?removed=1", type: .normal)
    }

    /// Save from an article page, then back to it.
    private func add(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/reading")
        let form = try await Form(request)
        _ = try await activity.save(
            member, language: form["language"], title: form["title"],
            list: form["readingList"].isEmpty ? nil : form["readingList"], thumbnailURL: nil, scope: context.scope.write
        )
        var components = URLComponents()
        components.path = "/reading/article"
        components.queryItems = [
            URLQueryItem(name: "language", value: form["language"]), URLQueryItem(name: "title", value: form["title"]),
            URLQueryItem(name: "saved", value: "1"),
        ]
        return Response.redirect(to: components.string ?? "/reading", type: .normal)
    }
}
