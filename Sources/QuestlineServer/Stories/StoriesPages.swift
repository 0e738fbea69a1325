import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// Track stories in the web app: onboarding (first visit only), the pre-story choice of states
/// and tracks, the stories list and map, search, story detail with progress and chapters, pages
/// with comments, selfie and rewards, profile, points with daily tasks, the card shop,
/// bookmarks and help. Every figure comes from the server's content and the member's data.
struct StoriesPages {
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

    private func member(_ context: AppRequestContext, _ request: Request) throws -> MemberRecord {
        try context.requireWebMember(next: request.uri.path)
    }

    private func param(_ context: AppRequestContext, _ name: String) throws -> String {
        guard let value = context.parameters.get(name), !value.isEmpty else { throw DomainError.notFound("Not found.") }
        return value
    }

    private func index(_ context: AppRequestContext, _ name: String) throws -> Int {
        guard let value = context.parameters.get(name).flatMap(Int.init), value >= 0 else {
            throw DomainError.notFound("Not found.")
        }
        return value
    }

    static func asset(_ path: String) -> String { "/content/stories/" + path }

    /// The first message of a domain error, for a redirect.
    static func message(_ error: DomainError) -> String {
        FieldErrors.of(error).values.first ?? "That did not work."
    }

    /// A member's own image (a selfie, the profile photo): never cached by anyone else.
    static func image(_ image: MemberImage) -> Response {
        Response(
            status: .ok, headers: [.contentType: image.contentType, .cacheControl: "private, no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    /// What the TI-Points screen offers to redeem. Seed 003 stubs its Redeem buttons with a toast:
    /// nothing is spent.
    static let redeemables = [
        (title: "Race-day ticket discount", points: 500), (title: "Pit lane tour", points: 1_000),
        (title: "Signed driver photo", points: 1_500),
    ]

    /// The sub-menu entry of each page that is not under Stories itself.
    static let sections = [
        "stories-bookmarks": "/stories/bookmarks", "stories-points": "/stories/points",
        "stories-shop": "/stories/points",
        "stories-profile": "/stories/profile", "stories-help": "/stories/help",
    ]

    private func render(
        _ template: String, _ title: String, _ data: [String: Any], _ context: AppRequestContext,
        back: String? = "/stories",
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var data = data
        // The section this page belongs to is marked (the shop is part of Points).
        let section = Self.sections[template] ?? "/stories"
        data["storyNav"] = [
            ("/stories", "Stories"), ("/stories/bookmarks", "Bookmarks"), ("/stories/points", "Points"),
            ("/stories/profile", "Profile"), ("/stories/help", "Help"),
        ].map { ["path": $0.0, "title": $0.1, "current": $0.0 == section] as [String: Any] }
        return pages.page(
            template, title: title, data: data, context: context, path: "/stories", status: status, back: back)
    }

    // MARK: Onboarding and the pre-story choice

    private func welcome(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try member(context, request)
        let slides = [
            (
                "Stories from the track", "Read how the great race tracks came to be, chapter by chapter.",
                "covers/daytona.svg"
            ),
            (
                "Take a selfie at the track",
                "A selfie at a story's track unlocks its rewards: points, a trading card, sometimes a badge.",
                "covers/indianapolis.svg"
            ),
            (
                "Collect and trade", "Spend points on trading cards in the card shop, and finish daily tasks for more.",
                "cards/golden-brick.svg"
            ),
        ]
        return render(
            "stories-welcome", "Welcome",
            [
                "slides": slides.enumerated().map { index, slide in
                    [
                        "index": index, "number": index + 1, "title": slide.0, "text": slide.1,
                        "image": Self.asset(slide.2), "first": index == 0,
                        "last": index == slides.count - 1,
                    ] as [String: Any]
                }, "count": slides.count,
            ], context, back: nil)
    }

    private func finishWelcome(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try await stories.markOnboarded(try member(context, request))
        return Response.redirect(to: "/stories/choose", type: .normal)
    }

    private func choose(
        _ request: Request, _ context: AppRequestContext, errors: [String: String] = [:],
        chosen: (states: [String], tracks: [String])? = nil
    ) async throws -> Response {
        let me = try member(context, request)
        let content = try await stories.content()
        let preferences = try await stories.preferences(me)
        let states = chosen?.states ?? preferences.states
        let tracks = chosen?.tracks ?? preferences.tracks
        return render(
            "stories-choose", "Your tracks",
            [
                "states": content.states.map {
                    ["code": $0.code, "name": $0.name, "checked": states.contains($0.code)] as [String: Any]
                },
                "tracks": content.tracks.map { track in
                    [
                        "id": track.id, "name": track.name, "city": track.city, "state": track.state,
                        "checked": tracks.contains(track.id),
                    ] as [String: Any]
                },
                "errors": errors,
            ], context, status: errors.isEmpty ? .ok : .badRequest)
    }

    private func saveChoice(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let form = try await Form(request)
        do {
            _ = try await stories.setPreferences(
                me, states: form.values("states"), tracks: form.values("tracks"), skip: form["skip"] == "1")
            return Response.redirect(to: "/stories", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await choose(
                request, context, errors: FieldErrors.of(error),
                chosen: (form.values("states"), form.values("tracks")))
        }
    }

    // MARK: List, map, bookmarks

    /// "Open the app today" is done by opening the stories: the list's script reports it by
    /// POST (a GET never writes), as an app's check-in does.
    private func checkIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        try await stories.checkIn(me)
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
            throw DomainError.invalid(field: "track", "There is no race track \"\(unknown.prefix(40))\".")
        }
        let found = try await stories.stories(me, query: query, bookmarkedOnly: bookmarks).filter {
            chosen.isEmpty || chosen.contains($0.story.track)
        }
        let map = StoryMap(tracks: content.tracks)
        let counts = Dictionary(grouping: found, by: \.story.track).mapValues(\.count)
        let pinned = content.tracks.filter { counts[$0.id] != nil }
        let places = map.pins(pinned)
        return render(
            bookmarks ? "stories-bookmarks" : "stories", bookmarks ? "Bookmarks" : "Stories",
            [
                "q": query, "count": found.count, "plural": found.count != 1, "none": found.isEmpty,
                "stories": found.map { summary -> [String: Any] in
                    var tile = Self.tile(summary)
                    tile["back"] = bookmarks ? "/stories/bookmarks" : "/stories"
                    return tile
                },
                "states": states.map(map.statePaths) ?? [],
                "pins": zip(pinned, places).map { track, point -> [String: Any] in
                    [
                        "track": track.id, "name": track.name, "x": point.x, "y": point.y,
                        "latitude": track.latitude, "longitude": track.longitude,
                        "count": counts[track.id] ?? 0,
                        "story": found.first { $0.story.track == track.id }?.story.id ?? "",
                    ]
                },
                "mapView": request.uri.queryParameters["view"] == "map", "leaflet": leaflet,
                "trackChoices": content.tracks.sorted { $0.name < $1.name }.map { track -> [String: Any] in
                    ["id": track.id, "name": track.name, "state": track.state, "checked": chosen.contains(track.id)]
                },
                "trackSummary": chosen.isEmpty
                    ? "All race tracks"
                    : chosen.count == 1
                        ? content.tracks.first { chosen.contains($0.id) }?.name ?? "1 race track"
                        : "\(chosen.count) race tracks",
                "trackQuery": chosen.sorted().map { "&amp;track=\($0)" }.joined(),
            ], context, back: "/")
    }

    static func tile(_ summary: StorySummary) -> [String: Any] {
        let story = summary.story
        let chapters = story.chapters.count
        return [
            "id": story.id, "title": story.title, "description": story.description, "cover": asset(story.cover),
            "track": summary.track?.name ?? story.track, "city": summary.track.map { "\($0.city), \($0.state)" } ?? "",
            "trackId": story.track, "bookmarked": summary.bookmarked, "collected": summary.collected,
            "progress": summary.reached.map { "Chapter \($0.chapter + 1) of \(chapters)" } ?? "Not started",
        ]
    }

    private func bookmark(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let form = try await Form(request)
        try await stories.setBookmark(me, story: id, on: form["bookmarked"] == "1")
        let back = form["back"]
        return Response.redirect(to: back.hasPrefix("/stories") ? back : "/stories/read/\(id)", type: .normal)
    }

    // MARK: Story detail, pages, comments

    private func detail(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let summary = try await stories.story(me, id: try param(context, "story"))
        let story = summary.story
        let content = try await stories.content()
        let totalPages = story.chapters.reduce(0) { $0 + $1.pages.count }
        let reachedPages =
            summary.reached.map { reached in
                story.chapters.prefix(reached.chapter).reduce(0) { $0 + $1.pages.count } + reached.page + 1
            } ?? 0
        let reachedChapter = summary.reached?.chapter ?? -1
        let chapters: [[String: Any]] = story.chapters.enumerated().map { index, chapter in
            [
                "index": index, "number": index + 1, "title": chapter.title, "pages": chapter.pages.count,
                "read": reachedChapter >= index,
            ]
        }
        let reachedText: String =
            summary.reached.map { "Chapter \($0.chapter + 1), page \($0.page + 1)" } ?? "Not started yet"
        let cardName: Any = story.reward.card.flatMap(content.card)?.name ?? false
        let badgeTitle: Any = story.reward.badge.flatMap { id in content.badges.first { $0.id == id }?.title } ?? false
        let reward: [String: Any] = ["points": story.reward.points, "card": cardName, "badge": badgeTitle]
        return render(
            "story-detail", story.title,
            [
                "story": Self.tile(summary),
                "chapters": chapters,
                "totalPages": totalPages, "reachedPages": reachedPages,
                // The slider moves through the chapters, starting at the one reached.
                "chapterCount": story.chapters.count, "sliderChapter": max(reachedChapter, 0) + 1,
                "sliderTitle": story.chapters.isEmpty ? "" : story.chapters[max(reachedChapter, 0)].title,
                "reachedText": reachedText,
                "hasSelfie": summary.hasSelfie, "collected": summary.collected,
                "canCollect": summary.reached != nil && summary.hasSelfie && !summary.collected,
                // Why the button waits (the server refuses the same way).
                "collectWhy": summary.reached == nil
                    ? (summary.hasSelfie
                        ? "Read a chapter to collect the rewards." : "Read a chapter and take a selfie at the track.")
                    : "Take a selfie at the track to collect the rewards.",
                "reward": reward,
                "error": flash.text(of: .error, in: request) ?? false,
            ], context)
    }

    private func page(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let chapterIndex = try index(context, "chapter")
        let pageIndex = try index(context, "page")
        let (story, chapter, page) = try await stories.openPage(me, story: id, chapter: chapterIndex, page: pageIndex)
        let comments = try await stories.comments(story: id, chapter: chapterIndex, limit: 100, offset: 0)
        let base = "/stories/read/\(id)/\(chapterIndex)"
        let nextChapter = chapterIndex + 1 < story.chapters.count ? "/stories/read/\(id)/\(chapterIndex + 1)/0" : nil
        return render(
            "story-page", chapter.title,
            [
                "storyId": id, "storyTitle": story.title, "chapterIndex": chapterIndex,
                "chapterNumber": chapterIndex + 1, "chapterTitle": chapter.title,
                "text": page.text, "image": Self.asset(page.image), "video": page.video.map(Self.asset) ?? false,
                "dots": chapter.pages.indices.map {
                    ["href": "\(base)/\($0)", "number": $0 + 1, "current": $0 == pageIndex] as [String: Any]
                },
                "previous": pageIndex > 0 ? "\(base)/\(pageIndex - 1)" : false,
                "next": pageIndex + 1 < chapter.pages.count ? "\(base)/\(pageIndex + 1)" : (nextChapter ?? false),
                "finished": pageIndex + 1 == chapter.pages.count && nextChapter == nil,
                "comments": comments.map {
                    [
                        "id": $0.id, "author": $0.authorName, "text": $0.body, "mine": $0.memberID == me.id,
                        "when": Wording.longDate(LocalDay($0.createdAt, in: me.zone)),
                    ] as [String: Any]
                },
                "commentCount": comments.count, "commentsOpen": request.uri.queryParameters["comments"] != nil,
                "commentError": flash.text(of: .error, in: request) ?? false,
                "here": "\(base)/\(pageIndex)",
            ], context, back: "/stories/read/\(id)")
    }

    private func comment(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let chapterIndex = try index(context, "chapter")
        let form = try await Form(request)
        let here = form["here"].hasPrefix("/stories/read/") ? form["here"] : "/stories/read/\(id)/\(chapterIndex)/0"
        do {
            _ = try await stories.addComment(me, story: id, chapter: chapterIndex, text: form["text"])
            return Response.redirect(to: here + "?comments=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return flash.redirect(to: here + "?comments=1", .error, Self.message(error))
        }
    }

    private func deleteComment(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let form = try await Form(request)
        try await stories.deleteComment(me, id: try param(context, "comment"))
        let here = form["here"].hasPrefix("/stories/read/") ? form["here"] : "/stories"
        return Response.redirect(to: here + "?comments=1", type: .normal)
    }

    // MARK: Selfie and rewards

    private func selfie(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        Self.image(try await stories.selfie(try member(context, request), story: try param(context, "story")))
    }

    private func collect(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        do {
            _ = try await stories.collect(me, story: id)
            // Post, redirect, get: Back and reload show the rewards, never collect again.
            return Response.redirect(to: "/stories/read/\(id)/rewards", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return flash.redirect(to: "/stories/read/\(id)", .error, Self.message(error))
        }
    }

    /// The progress slider's choice (`?chapter=N`, 1-based): its first page.
    private func openChapter(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let story = try await stories.story(me, id: id).story
        guard let chapter = request.uri.queryParameters["chapter"].flatMap({ Int($0) }),
            (1...max(story.chapters.count, 1)).contains(chapter), !story.chapters.isEmpty
        else {
            throw DomainError.invalid(field: "chapter", "Choose a chapter from 1 to \(story.chapters.count).")
        }
        return Response.redirect(to: "/stories/read/\(id)/\(chapter - 1)/0", type: .normal)
    }

    /// 4_Selfie2: the selfie just taken, and the way back to the story.
    private func selfieSaved(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let story = try await stories.story(me, id: id)
        guard story.hasSelfie else { return Response.redirect(to: "/stories/read/\(id)", type: .normal) }
        return render(
            "story-selfie", "Selfie",
            [
                "storyId": id, "storyTitle": story.story.title, "trackName": story.track?.name ?? "the track",
                "canCollect": story.reached != nil && !story.collected,
            ], context, back: "/stories/read/\(id)")
    }

    /// What a story's rewards were, once collected (the page after collecting).
    private func rewards(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let story = try await stories.story(me, id: id)
        guard story.collected else { return Response.redirect(to: "/stories/read/\(id)", type: .normal) }
        let content = try await stories.content()
        let reward = story.story.reward
        let card = reward.card.flatMap(content.card)
        let badge = reward.badge.flatMap { badge in content.badges.first { $0.id == badge } }
        return render(
            "story-rewards", "Rewards collected",
            [
                "storyId": id, "storyTitle": story.story.title, "points": reward.points,
                "balance": try await stories.points(me, limit: 1, offset: 0).balance,
                "card": card.map { ["name": $0.name, "image": Self.asset($0.image), "rarity": $0.rarity.rawValue] }
                    ?? false,
                "badge": badge.map {
                    ["title": $0.title, "image": Self.asset($0.image), "description": $0.description]
                }
                    ?? false,
            ], context, back: "/stories/read/\(id)")
    }

    // MARK: Profile

    private func profile(_ request: Request, _ context: AppRequestContext, errors: [String: String] = [:]) async throws
        -> Response
    {
        let me = try member(context, request)
        let profile = try await stories.profile(me)
        let tab = request.uri.queryParameters["tab"] == "cards" ? "cards" : "badges"
        return render(
            "stories-profile", "Profile",
            [
                "name": me.displayName,
                "details": [
                    "location": profile.details.location, "favouriteTrack": profile.details.favouriteTrack,
                    "bio": profile.details.bio,
                ],
                "editing": request.uri.queryParameters["edit"] != nil || !errors.isEmpty, "hasPhoto": profile.hasPhoto,
                "initial": String(me.displayName.prefix(1)).uppercased(), "balance": profile.balance,
                "badges": profile.badges.map {
                    [
                        "id": $0.badge.id, "title": $0.badge.title, "description": $0.badge.description,
                        "image": Self.asset($0.badge.image), "earned": $0.awardedAt != nil,
                    ] as [String: Any]
                },
                "achievements": profile.achievements.map {
                    [
                        "title": $0.achievement.title, "description": $0.achievement.description,
                        "progress": $0.progress, "target": $0.achievement.target,
                        "done": $0.progress >= $0.achievement.target,
                    ] as [String: Any]
                },
                "cards": profile.cards.map {
                    [
                        "id": $0.card.id, "name": $0.card.name, "image": Self.asset($0.card.image),
                        "rarity": $0.card.rarity.rawValue,
                        "description": $0.card.description, "copies": $0.copies, "several": $0.copies > 1,
                    ] as [String: Any]
                },
                "noCards": profile.cards.isEmpty, "cardsTab": tab == "cards", "badgesTab": tab == "badges",
                "errors": errors, "saved": request.uri.queryParameters["saved"] != nil,
            ], context)
    }

    private func saveProfile(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let form = try await Form(request)
        do {
            _ = try await stories.setDetails(
                me, location: form["location"], favouriteTrack: form["favouriteTrack"], bio: form["bio"])
            return Response.redirect(to: "/stories/profile?saved=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await profile(request, context, errors: FieldErrors.of(error))
        }
    }

    private func photo(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        Self.image(try await stories.photo(try member(context, request)))
    }

    // MARK: Points, tasks, shop

    private func points(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let (balance, entries) = try await stories.points(me, limit: 50, offset: 0)
        let tasks = try await stories.dailyTasks(me)
        let zone = me.zone
        return render(
            "stories-points", "Points",
            [
                "balance": balance, "tasksTab": request.uri.queryParameters["tab"] == "tasks",
                "pointsTab": request.uri.queryParameters["tab"] != "tasks",
                "entries": entries.map {
                    [
                        "reason": $0.reason, "points": $0.points > 0 ? "+\($0.points)" : "\($0.points)",
                        "plus": $0.points > 0,
                        "when": Wording.longDate(LocalDay($0.createdAt, in: zone)),
                    ] as [String: Any]
                },
                "noEntries": entries.isEmpty,
                "tasks": tasks.map {
                    [
                        "id": $0.task.id, "title": $0.task.title, "points": $0.task.points, "done": $0.done,
                        "hint": $0.task.action.hint,
                    ]
                        as [String: Any]
                },
                "notice": flash.text(of: .notice, in: request) ?? false,
                "redeemables": Self.redeemables.map { item -> [String: Any] in
                    [
                        "title": item.title, "points": item.points,
                        "toast":
                            "Redeeming \(item.title.lowercased()) is coming soon. Your \(balance) points are kept.",
                    ]
                },
            ], context)
    }

    private func shop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let query = String((request.uri.queryParameters["q"] ?? "").prefix(100))
        let cards = try await stories.content().shop(query)
        let balance = try await stories.points(me, limit: 1, offset: 0).balance
        let owned = try await stories.ownedCards(me)
        return render(
            "stories-shop", "Card shop",
            [
                "q": query, "balance": balance, "none": cards.isEmpty,
                "cards": cards.map {
                    [
                        "id": $0.id, "name": $0.name, "image": Self.asset($0.image), "rarity": $0.rarity.rawValue,
                        "price": $0.price,
                        // Known before asking: a card beyond the balance offers no Buy.
                        "affordable": $0.price <= balance, "short": max($0.price - balance, 0),
                        "owned": owned[$0.id] ?? false,
                    ] as [String: Any]
                },
                "notice": flash.text(of: .notice, in: request) ?? false,
            ], context, back: "/stories/points")
    }

    private func buy(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        do {
            let (card, _) = try await stories.buy(me, card: try param(context, "card"))
            return flash.redirect(to: "/stories/shop", .notice, "You bought \(card.name)!")
        } catch let error as DomainError where error.isFormProblem {
            return flash.redirect(to: "/stories/shop", .notice, Self.message(error))
        }
    }

    private func help(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try member(context, request)
        return render(
            "stories-help", "Help",
            ["topics": try await stories.content().help.map { ["question": $0.question, "answer": $0.answer] }], context
        )
    }
}

/// Puts tracks on the stories map: an equirectangular projection of the tracks' own bounding
/// box (with a margin) onto a 320 × 200 drawing, so pins never leave the map; the US states
/// (`public/geo/us-states.json`, Natural Earth) drawn with the same projection give it its
/// geography, and pins that would overlap are moved apart.
struct StoryMap {
    let minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    static let width = 320.0, height = 200.0, margin = 20.0
    /// Pins closer than this (in the drawing's units: a pin is 18 across) are moved apart.
    static let pinSpacing = 20.0

    init(tracks: [RaceTrack]) {
        minLat = (tracks.map(\.latitude).min() ?? 0) - 1
        maxLat = (tracks.map(\.latitude).max() ?? 0) + 1
        minLon = (tracks.map(\.longitude).min() ?? 0) - 1
        maxLon = (tracks.map(\.longitude).max() ?? 0) + 1
    }

    func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let x = Self.margin + (longitude - minLon) / max(maxLon - minLon, 0.001) * (Self.width - 2 * Self.margin)
        let y = Self.margin + (maxLat - latitude) / max(maxLat - minLat, 0.001) * (Self.height - 2 * Self.margin)
        return (x, y)
    }

    func point(_ track: RaceTrack) -> (x: Int, y: Int) {
        let (x, y) = project(latitude: track.latitude, longitude: track.longitude)
        return (Int(x.rounded()), Int(y.rounded()))
    }

    /// Where each track's pin goes: its point, moved apart from pins it would overlap (pushed
    /// along the line between them, a few passes; identical points fan out), kept on the map.
    func pins(_ tracks: [RaceTrack]) -> [(x: Int, y: Int)] {
        var points = tracks.map { project(latitude: $0.latitude, longitude: $0.longitude) }
        for _ in 0..<20 {
            var moved = false
            for i in points.indices {
                for j in points.indices where j > i {
                    var dx = points[j].x - points[i].x
                    var dy = points[j].y - points[i].y
                    var distance = (dx * dx + dy * dy).squareRoot()
                    guard distance < Self.pinSpacing else { continue }
                    if distance < 0.01 { (dx, dy, distance) = (1, 0, 1) }
                    let push = (Self.pinSpacing - distance) / 2 + 0.5
                    points[i].x -= dx / distance * push
                    points[i].y -= dy / distance * push
                    points[j].x += dx / distance * push
                    points[j].y += dy / distance * push
                    moved = true
                }
            }
            if !moved { break }
        }
        return points.map { point in
            (
                Int(min(max(point.x, 10), Self.width - 10).rounded()),
                Int(min(max(point.y, 10), Self.height - 10).rounded())
            )
        }
    }

    /// The states as SVG path data in this projection (outside the drawing, clipped by it).
    func statePaths(_ states: USStates) -> [String] {
        states.features.map { feature in
            feature.geometry.polygons.map { polygon in
                polygon.map { ring in
                    ring.enumerated().map { index, position in
                        let (x, y) = project(latitude: position[1], longitude: position[0])
                        return (index == 0 ? "M" : "L") + String(format: "%.1f %.1f", x, y)
                    }.joined() + "Z"
                }.joined()
            }.joined()
        }
    }
}

/// The US states outline the server-drawn map shows (the GeoJSON Leaflet draws too).
struct USStates: Decodable, Sendable {
    struct Feature: Decodable, Sendable {
        let geometry: Geometry
    }

    struct Geometry: Decodable, Sendable {
        let type: String
        let coordinates: Coordinates

        /// Every polygon (its rings), for Polygon and MultiPolygon alike.
        var polygons: [[[[Double]]]] {
            switch coordinates {
            case .polygon(let rings): return [rings]
            case .multi(let polygons): return polygons
            }
        }
    }

    enum Coordinates: Decodable, Sendable {
        case polygon([[[Double]]])
        case multi([[[[Double]]]])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let multi = try? container.decode([[[[Double]]]].self) {
                self = .multi(multi)
            } else {
                self = .polygon(try container.decode([[[Double]]].self))
            }
        }
    }

    let features: [Feature]

    /// The bundled file, or none (the map then shows the pins alone).
    static func load() -> USStates? {
        guard let data = FileManager.default.contents(atPath: ServerResources.path("public/geo/us-states.json"))
        else { return nil }
        return try? JSONDecoder().decode(USStates.self, from: data)
    }
}
