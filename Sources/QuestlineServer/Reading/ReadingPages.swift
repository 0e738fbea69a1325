import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The reading challenge in the web app: the widget (also on the home page), join, claim,
/// share, search and random over the reader's articles, an article page that records a read,
/// Activity's badges, and a QA preview of any state.
struct ReadingPages {
    let reading: ReadingFeature
    /// Whether an article is saved (its page then offers no Save).
    let activity: ActivityFeature
    let pages: PageRenderer

    static let deviceCookie = "ql_device"
    /// Sent by `app.js` with a report a page makes by itself (`form[data-beacon]`): the answer is
    /// the part of the page to redraw, not a redirect.
    static let beaconHeader = HTTPField.Name("X-Questline-Beacon")!
    /// The browser's IANA zone, kept by `app.js` for the pages of a reader who is not signed in.
    static let zoneCookie = "ql_zone"

    func register(on router: Router<AppRequestContext>) {
        router.get("/reading") { request, context in try await self.overview(request, context) }
        router.post("/reading/join") { request, context in try await self.join(request, context) }
        router.get("/reading/join") { _, _ in Response.redirect(to: "/reading", type: .normal) }
        router.post("/reading/claim") { request, context in try await self.claim(request, context) }
        router.post("/reading/go/:kind") { request, context in try await self.go(request, context) }
        router.get("/reading/search") { request, context in try await self.search(request, context) }
        router.get("/reading/random") { request, context in try await self.random(request, context) }
        router.get("/reading/article") { request, context in try await self.article(request, context) }
        router.post("/reading/article/read") { request, context in try await self.read(request, context) }
        router.get("/reading/share.svg") { request, context in try await self.share(request, context) }
        router.get("/reading/preview") { request, context in try await self.preview(request, context) }
        registerStreakSettings(on: router)
        router.get("/admin/funnel") { request, context in try await self.funnel(request, context) }
        router.get("/static/widget-colors.css") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(string: WidgetView.stylesheet)))
        }
    }

    // MARK: Identity

    /// The reader of a page (`ReaderIdentity.resolve`, as the API): the member, else this
    /// browser's device id (made on first visit) in the zone its script keeps in `ql_zone`. A
    /// cookie nobody can correct is not an error: an unknown device id is replaced, an unknown
    /// zone is UTC.
    func reader(_ request: Request, _ context: AppRequestContext) -> (ReaderIdentity, newDevice: String?) {
        if let member = context.identity.member { return (ReaderIdentity(member), nil) }
        let held = request.cookies[Self.deviceCookie]?.value
        let valid = held.flatMap { ReadingFeature.validDeviceID($0) ? $0 : nil } as String?
        let device = valid ?? UUID.random().uuidString.lowercased()
        let zone = request.cookies[Self.zoneCookie].flatMap { TimeZoneID($0.value)?.identifier }
        let reader =
            (try? ReaderIdentity.resolve(
                member: nil, device: device, timeZone: zone, deviceField: Self.deviceCookie,
                zoneField: Self.zoneCookie)) ?? ReaderIdentity(member: nil, deviceID: device, timeZone: .utc)
        return (reader, valid == nil ? device : nil)
    }

    static func withDevice(_ response: Response, _ newDevice: String?) -> Response {
        guard let newDevice else { return response }
        var response = response
        response.setCookie(
            Cookie(
                name: deviceCookie, value: newDevice, maxAge: 400 * 86_400, path: "/", httpOnly: true, sameSite: .lax))
        return response
    }

    /// The one-time join announcement for the home page, if the member has one; `widget`, the
    /// member's widget today, says whether the goal is still in reach.
    func announcement(_ member: MemberRecord, widget: WidgetModel?, scope: WriteScope) async throws -> AnnouncementView?
    {
        try await reading.joinAnnouncement(for: member, scope: scope).map { AnnouncementView($0, widget: widget) }
    }

    /// The reader's widget (an impression, counted for the funnel): nil without a campaign, and
    /// nil once the campaign is removed (the widget is gone; the badge stays in Activity).
    func widget(_ reader: ReaderIdentity, surface: String, impression: Bool = true) async throws -> WidgetModel? {
        try await reading.widget(for: reader, impression: impression, surface: surface).flatMap {
            $0.state == .removed ? nil : $0
        }
    }

    // MARK: Pages

    private func overview(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        let model = try await widget(reader, surface: "web")
        var calendar: StreakCalendar?
        if reader.member != nil {
            calendar = try await reading.streakCalendar(
                for: reader, month: try StreakCalendarView.month(request.uri.queryParameters["month"]))
        }
        var campaign: Campaign?
        if let model { campaign = try await reading.campaign(id: model.campaignId) }
        let page = ReadingPage(
            model: model, campaign: campaign,
            member: reader.member, calendar: calendar, joined: request.uri.queryParameters["joined"] != nil,
            claimed: request.uri.queryParameters["claimed"] != nil, localizer: context.localizer)
        return Self.withDevice(
            pages.page(
                "reading", title: context.localizer("reading.page.title"), model: page, context: context,
                path: "/reading", back: "/"),
            newDevice)
    }

    private func join(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        if reader.member == nil {
            _ = try await reading.join(reader, scope: context.scope.write)
            return Self.withDevice(Response.redirect(to: "/login?next=/reading", type: .normal), newDevice)
        }
        _ = try await reading.join(reader, scope: context.scope.write)
        return Response.redirect(to: "/reading?joined=1", type: .normal)
    }

    private func claim(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/reading", type: .normal)
        }
        _ = try await reading.claim(member, scope: context.scope.write)
        return Response.redirect(to: "/reading?claimed=1", type: .normal)
    }

    /// A widget CTA: recorded for the funnel, then followed.
    private func go(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let targets: [WidgetCTA.Kind: String] = [
            .search: "/reading/search", .random: "/reading/random", .share: "/reading/share.svg",
        ]
        guard let kind = WidgetCTA.Kind(rawValue: try context.parameters.require("kind")), let target = targets[kind]
        else { throw DomainError.notFound(Message("reading.error.noSuchAction")) }
        let (reader, newDevice) = reader(request, context)
        let form = try await Form(request)
        // The reading page's "Share your streak" downloads the picture; the widget's shows it.
        let download = kind == .share && form["download"] == "1"
        try await reading.tapped(kind, state: form["state"], by: reader, onWidget: !download)
        return Self.withDevice(
            Response.redirect(to: download ? target + "?download=1" : target, type: .normal), newDevice)
    }

    private func search(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        let query = request.uri.queryParameters["q"].map { String($0.prefix(200)) }
        let (articles, source) = try await reading.search(reader, query: query)
        let page = ReadingSearchPage(
            query: query, articles: articles, source: source, online: reading.wiki.online, localizer: context.localizer)
        return Self.withDevice(
            pages.page(
                "reading-search", title: context.localizer("reading.search.title"), model: page, context: context,
                path: "/reading", back: "/reading"),
            newDevice)
    }

    private func random(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (_, newDevice) = reader(request, context)
        guard let article = await reading.random() else {
            return Response.redirect(to: "/reading/search", type: .normal)
        }
        return Self.withDevice(Response.redirect(to: Self.articlePath(article), type: .normal), newDevice)
    }

    /// An article's page: its summary (title, description, extract, image) and a link to the
    /// whole article on Wikipedia. It records nothing (a GET never writes): its script reports
    /// the read by POST (`read`), under the event id given here, then redraws the widget.
    private func article(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        let title = try WikiLanguage.title(request.uri.queryParameters["title"].map { String($0.prefix(300)) })
        let language = try WikiLanguage.check(request.uri.queryParameters["language"].map(String.init))
        let shown =
            await reading.summary(title, language: language)
            ?? WikiSummary(language: language, title: title, description: nil, extract: "", thumbnail: nil)
        var saved = false
        if let member = reader.member {
            saved = try await activity.isSaved(member, language: language, title: shown.title)
        }
        let page = ArticlePage(
            shown, signedIn: reader.member != nil, saved: saved,
            justSaved: request.uri.queryParameters["saved"] != nil, readEvent: UUID.random().uuidString.lowercased(),
            widget: try await widget(reader, surface: "web"), localizer: context.localizer)
        return Self.withDevice(
            pages.page(
                "reading-article", title: shown.title, model: page, context: context, path: "/reading",
                back: "/reading/search"), newDevice)
    }

    /// The article page's report that it was opened: the read counts (once per event id), and
    /// the script gets the widget as it is now to put in place of the old one (nothing when
    /// there is no widget). Without the script, the button posts it and returns to the article.
    private func read(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        let form = try await Form(request)
        let title = try WikiLanguage.title(String(form["title"].prefix(300)))
        let language = try WikiLanguage.check(form["language"])
        try await reading.opened(
            title, language: language, eventID: form["eventId"], for: reader, scope: context.scope.write)
        guard request.headers[Self.beaconHeader] != nil else {
            return Self.withDevice(
                Response.redirect(to: Self.articlePath(title: title, language: language), type: .normal), newDevice)
        }
        guard let widget = try await widget(reader, surface: "web", impression: false) else {
            return Self.withDevice(Response(status: .noContent), newDevice)
        }
        return Self.withDevice(
            pages.fragment("widget", model: WidgetCard(widget, localizer: context.localizer), context: context),
            newDevice)
    }

    private func share(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/reading", type: .normal)
        }
        let reader = ReaderIdentity(member)
        guard let model = try await reading.widget(for: reader, impression: false) else {
            throw DomainError.notFound(Message("reading.error.noChallenge"))
        }
        var headers: HTTPFields = [.contentType: "image/svg+xml; charset=utf-8"]
        if request.uri.queryParameters["download"] == "1" {
            headers[.contentDisposition] = #"attachment; filename="reading-streak.svg""#
        }
        return Response(
            status: .ok, headers: headers,
            body: .init(
                byteBuffer: ByteBuffer(
                    string: ShareCard.svg(model, name: member.displayName, localizer: context.localizer))))
    }

    /// QA: the widget for any campaign, date, zone and history, without waiting for the day.
    /// `/reading/preview?campaign=2026&now=2026-05-10T08:30:00Z&timeZone=Europe/Paris&joined=2026-05-02&reads=2026-05-08,2026-05-09`
    /// The query is read into the history the CLI's preview takes from a file
    /// (`ReadingHistory`): a day read is one read at noon there, a repair day three; a pause
    /// is `pause=2026-05-10/2026-05-12` (repeatable). An unknown parameter is refused.
    private func preview(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let q = request.uri.queryParameters
        let known: Set<String> = [
            "campaign", "now", "timeZone", "joined", "completed", "reads", "loggedIn", "claimed", "repairs", "rest",
            "pause",
        ]
        for (name, _) in q where !known.contains(String(name)) {
            throw DomainError.invalid(
                field: String(name),
                Message(
                    "reading.error.preview.unknownParameter",
                    ["name": .text(String(name)), "names": .list(known.sorted().map { .text($0) })]))
        }
        var query = ReadingFeature.PreviewQuery()
        query.campaign = q["campaign"].map(String.init)
        query.now = q["now"].map(String.init)
        query.timeZone = q["timeZone"].map(String.init)
        let zone = (try? AccountRules.timeZone(query.timeZone ?? "UTC").timeZone) ?? .gmt
        var v = FieldValidation()
        func days(_ raw: Substring?, _ field: String) -> [LocalDay] {
            (raw ?? "").split(separator: ",").compactMap { text in
                v.check { () throws(DomainError) in try DateWindow.day(text, field: field, example: "2026-05-08") }
            }
        }
        /// A day's noon there: the instant of a read or a join on that day.
        func noon(_ day: LocalDay) -> Date { day.start(in: zone).addingTimeInterval(12 * 3600) }
        var history = ReadingHistory()
        history.joinedAt = days(q["joined"], "joined").first.map(noon)
        history.completedOn = days(q["completed"], "completed").first
        history.loggedIn = q["loggedIn"] != "false"
        history.claimed = q["claimed"] == "true"
        let zoneName = query.timeZone ?? "UTC"
        history.reads = days(q["reads"], "reads").map { ReadEvent(at: noon($0), timeZone: zoneName) }
        for day in days(q["repairs"], "repairs") {
            history.reads += (0..<StreakAllowances.repairReads).map {
                ReadEvent(at: noon(day).addingTimeInterval(Double($0) * 60), timeZone: zoneName)
            }
        }
        history.restDays = (q["rest"] ?? "").split(separator: ",").compactMap { raw in
            v.check { () throws(DomainError) in
                guard let weekday = Int(raw) else { throw .invalid(field: "rest", Message("reading.error.weekdays")) }
                return weekday
            }
        }
        for raw in q.getAll("pause") {
            let ends = raw.split(separator: "/")
            let bounds = days(Substring(ends.joined(separator: ",")), "pause")
            guard ends.count == 2, bounds.count == 2 else {
                v.add(
                    field: "pause", Message("reading.error.preview.pause", ["example": .text("2026-05-10/2026-05-12")]))
                continue
            }
            history.pauses.append(.init(start: bounds[0], end: bounds[1]))
        }
        try v.finish()
        query.history = history
        let (model, campaigns) = try await reading.preview(query)
        return pages.page(
            "reading-preview", title: context.localizer("reading.preview.title"),
            model: WidgetPreviewPage(model, campaigns: campaigns, localizer: context.localizer),
            context: context, path: "/reading", back: "/reading")
    }

    /// The reading challenge's funnel for administrators, as a chart (the API gives the numbers).
    private func funnel(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/admin/funnel")
        let campaigns = try await reading.campaigns().sorted { $0.startDay > $1.startDay }
        let today = reading.clock.today(in: me.zone)
        let chosen =
            request.uri.queryParameters["campaign"].map(String.init)
            ?? Campaign.current(campaigns, today: today)?.id ?? campaigns.first?.id
        guard let chosen, let campaign = campaigns.first(where: { $0.id == chosen }) else {
            throw DomainError.notFound(Message("reading.error.noSuchCampaign", ["id": .text(chosen ?? "")]))
        }
        let steps = try await reading.funnel(campaign: campaign.id, as: me)
        return pages.page(
            "admin-funnel", title: context.localizer("reading.funnel.title"),
            model: FunnelPage(campaign, steps: steps, campaigns: campaigns, localizer: context.localizer),
            context: context, path: "/reading", back: "/profile")
    }

    static func articlePath(_ article: WikiSummary) -> String {
        articlePath(title: article.title, language: article.language)
    }

    static func articlePath(title: String, language: String) -> String {
        var components = URLComponents()
        components.path = "/reading/article"
        components.queryItems = [
            URLQueryItem(name: "language", value: language), URLQueryItem(name: "title", value: title),
        ]
        return components.string ?? "/reading"
    }
}
