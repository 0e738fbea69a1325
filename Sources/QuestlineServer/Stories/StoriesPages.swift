import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Track stories in the web app: onboarding (first visit only), the pre-story choice of states
/// and tracks, the stories list and map, search, and bookmarks here; a story, its pages,
/// comments, selfie and rewards in `StoryReadingPages.swift`; the profile, points with daily
/// tasks and the card shop in `StoriesPointsPages.swift`. Each screen is a typed page model
/// (`StoriesViews.swift`, `StoriesPointsViews.swift`) built from what `StoriesFeature` returns.
struct StoriesPages: FeatureModule {
    let stories: StoriesFeature
    let pages: PageRenderer
    /// Messages for the page after a redirect.
    let flash: Flash
    /// Leaflet is served (`/static/vendor/leaflet`): the map view draws the US states and the
    /// pins with it; without it, the server-drawn picture stays.
    let leaflet: Bool
    /// The states the server-drawn map shows.
    let states: USStates? = USStates.load()

    func register(on router: Router<AppRequestContext>) {
        router.get("/stories") { request, context in try await self.list(request, context) }
        router.post("/stories/check-in") { request, context in try await self.checkIn(request, context) }
        router.get("/stories/welcome") { request, context in try await self.welcome(request, context) }
        router.post("/stories/welcome") { request, context in try await self.finishWelcome(request, context) }
        router.get("/stories/choose") { request, context in try await self.choose(request, context) }
        router.post("/stories/choose") { request, context in try await self.saveChoice(request, context) }
        router.get("/stories/bookmarks") { request, context in try await self.list(request, context, bookmarks: true) }
        router.get("/stories/profile") { request, context in try await self.profile(request, context) }
        router.post("/stories/profile") { request, context in try await self.saveProfile(request, context) }
        router.get("/stories/points") { request, context in try await self.points(request, context) }
        router.get("/stories/shop") { request, context in try await self.shop(request, context) }
        router.post("/stories/shop/:card") { request, context in try await self.buy(request, context) }
        router.get("/stories/help") { request, context in try await self.help(request, context) }
        router.get("/stories/photo") { request, context in try await self.photo(request, context) }
        router.get("/stories/read/:story") { request, context in try await self.detail(request, context) }
        router.post("/stories/read/:story/bookmark") { request, context in try await self.bookmark(request, context) }
        router.post("/stories/read/:story/rewards") { request, context in try await self.collect(request, context) }
        router.get("/stories/read/:story/rewards") { request, context in try await self.rewards(request, context) }
        router.get("/stories/read/:story/chapter") { request, context in try await self.openChapter(request, context) }
        router.get("/stories/read/:story/selfie-saved") { request, context in
            try await self.selfieSaved(request, context)
        }
        router.get("/stories/read/:story/selfie") { request, context in try await self.selfie(request, context) }
        router.get("/stories/read/:story/:chapter/:page") { request, context in try await self.page(request, context) }
        router.post("/stories/read/:story/:chapter/comments") { request, context in
            try await self.comment(request, context)
        }
        router.post("/stories/comments/:comment/delete") { request, context in
            try await self.deleteComment(request, context)
        }
    }

    func member(_ context: AppRequestContext, _ request: Request) throws -> MemberRecord {
        try context.requireWebMember(next: request.uri.path)
    }

    func param(_ context: AppRequestContext, _ name: String) throws -> String {
        guard let value = context.parameters.get(name), !value.isEmpty else {
            throw DomainError.notFound(Message("stories.error.notFound"))
        }
        return value
    }

    func index(_ context: AppRequestContext, _ name: String) throws -> Int {
        guard let value = context.parameters.get(name).flatMap(Int.init), value >= 0 else {
            throw DomainError.notFound(Message("stories.error.notFound"))
        }
        return value
    }

    /// The first message of a domain error, for a redirect, in the reader's language.
    static func message(_ error: DomainError, _ l: Localizer) -> String {
        FieldErrors.of(error, l).values.first ?? l("stories.error.didNotWork")
    }

    /// A member's own image (a selfie, the profile photo): never cached by anyone else.
    static func image(_ image: MemberImage) -> Response {
        Response(
            status: .ok, headers: [.contentType: image.contentType, .cacheControl: "private, no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    /// A stories page: its model, with the section's own menu marked. `title` is a message key
    /// (the app bar's words) or, with `content`, a story's or chapter's own title.
    func render(
        _ template: String, _ title: String, _ model: Any, _ context: AppRequestContext,
        back: String? = "/stories", status: HTTPResponse.Status = .ok, content: Bool = false
    ) -> Response {
        var section: [String: Any] = ["storyNav": StoryNavItem.menu(for: template, localizer: context.localizer)]
        // A story's or chapter's own title is content, in the pack's language.
        if content { section["titleLang"] = StoryContent.language }
        return pages.page(
            template, title: content ? title : context.localizer(title), model: model, context: context,
            path: "/stories", status: status, back: back, section: section)
    }

    // MARK: Onboarding and the pre-story choice

    private func welcome(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try member(context, request)
        return render(
            "stories-welcome", "stories.welcome.title", StoriesWelcomePage(localizer: context.localizer), context,
            back: nil)
    }

    private func finishWelcome(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try await stories.markOnboarded(try member(context, request), scope: context.scope.write)
        return Response.redirect(to: "/stories/choose", type: .normal)
    }

    private func choose(
        _ request: Request, _ context: AppRequestContext, errors: [String: String] = [:],
        chosen: (states: [String], tracks: [String])? = nil
    ) async throws -> Response {
        let me = try member(context, request)
        let preferences = try await stories.preferences(me)
        let page = StoriesChoosePage(
            try await stories.content(), states: chosen?.states ?? preferences.states,
            tracks: chosen?.tracks ?? preferences.tracks, errors: errors)
        return render(
            "stories-choose", "stories.choose.title", page, context, status: errors.isEmpty ? .ok : .badRequest)
    }

    private func saveChoice(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let form = try await Form(request)
        return try await submitting {
            _ = try await stories.setPreferences(
                me, states: form.values("states"), tracks: form.values("tracks"), skip: form["skip"] == "1",
                scope: context.scope.write)
            return Response.redirect(to: "/stories", type: .normal)
        } refused: { error in
            try await choose(
                request, context, errors: FieldErrors.of(error, context.localizer),
                chosen: (form.values("states"), form.values("tracks")))
        }
    }

    // MARK: List, map, bookmarks

    /// "Open the app today" is done by opening the stories: the list's script reports it by
    /// POST (a GET never writes), as an app's check-in does.
    private func checkIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        try await stories.checkIn(me, scope: context.scope.write)
        return request.headers[ReadingPages.beaconHeader] != nil
            ? Response(status: .noContent) : Response.redirect(to: "/stories", type: .normal)
    }

    private func list(_ request: Request, _ context: AppRequestContext, bookmarks: Bool = false) async throws
        -> Response
    {
        let me = try member(context, request)
        let preferences = try await stories.preferences(me)
        if !bookmarks, !preferences.onboarded { return Response.redirect(to: "/stories/welcome", type: .normal) }
        if !bookmarks, !preferences.chosen { return Response.redirect(to: "/stories/choose", type: .normal) }
        let query = String((request.uri.queryParameters["q"] ?? "").prefix(100))
        let content = try await stories.content()
        // The race-track dropdown (01_Story0): one or more tracks narrow the list and the map.
        let chosen = Set(request.uri.queryParameters.getAll("track"))
        if let unknown = chosen.first(where: { id in !content.tracks.contains { $0.id == id } }) {
            throw DomainError.invalid(
                field: "track", Message("stories.error.noSuchTrack", ["track": .text(String(unknown.prefix(40)))]))
        }
        let found = try await stories.stories(me, query: query, bookmarkedOnly: bookmarks).filter {
            chosen.isEmpty || chosen.contains($0.story.track)
        }
        let page = StoriesListPage(
            found: found, content: content, query: query, chosen: chosen, bookmarks: bookmarks,
            mapView: request.uri.queryParameters["view"] == "map", leaflet: leaflet, outline: states,
            localizer: context.localizer)
        return render(
            bookmarks ? "stories-bookmarks" : "stories", bookmarks ? "stories.bookmarks.title" : "stories.list.title",
            page, context, back: "/")
    }

    private func bookmark(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let form = try await Form(request)
        try await stories.setBookmark(me, story: id, on: form["bookmarked"] == "1", scope: context.scope.write)
        let back = form["back"]
        return Response.redirect(to: back.hasPrefix("/stories") ? back : "/stories/read/\(id)", type: .normal)
    }

    private func help(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try member(context, request)
        return render("stories-help", "stories.help.title", StoriesHelpPage(try await stories.content()), context)
    }
}
