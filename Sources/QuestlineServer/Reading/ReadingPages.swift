import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures

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

    /// The widget's template values for the home page and /reading: nil without a campaign,
    /// and nil once the campaign is removed (the widget is gone; the badge stays in Activity).
    /// The one-time join announcement's data, or false.
    func announcementData(_ member: MemberRecord) async throws -> [String: Any]? {
        guard let campaign = try await reading.joinAnnouncement(for: member) else { return nil }
        return [
            "title": campaign.title ?? "The reading challenge",
            "goal": campaign.goalDays, "end": Wording.longDate(campaign.endDay),
        ]
    }

    func widgetData(_ reader: ReaderIdentity, surface: String, interactive: Bool = true, impression: Bool = true)
        async throws -> [String: Any]?
    {
        guard let model = try await reading.widget(for: reader, impression: impression, surface: surface),
            model.state != .removed
        else {
            return nil
        }
        return WidgetView.data(model, interactive: interactive)
    }

    // MARK: Pages

    private func overview(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        let widget = try await widgetData(reader, surface: "web")
        var data: [String: Any] = [
            "widget": widget ?? false,
            "signedIn": reader.member != nil,
            "admin": reader.member.map { AccessPolicy.allows($0.actor, .administer) } ?? false,
        ]
        let model = try await reading.widget(for: reader, impression: false)
        // The challenge is named only when its widget shows: one truthful header, never "No
        // reading challenge right now" above a challenge's title.
        // The widget's own buttons are not repeated below it (one Random, not two).
        data["widgetOffersRandom"] = widget != nil && (model?.ctas.contains { $0.kind == .random } ?? false)
        if let model, widget != nil {
            data["campaign"] = ["title": try await reading.campaign(id: model.campaignId).title ?? "Reading challenge"]
            data["canShare"] = reader.member != nil && model.streak > 0
            data["shareState"] = model.state.rawValue
        }
        if reader.member != nil {
            let calendar = try await reading.streakCalendar(
                for: reader, month: try StreakCalendarView.month(request.uri.queryParameters["month"]))
            data["calendar"] = StreakCalendarView.data(calendar, path: "/reading")
        }
        if request.uri.queryParameters["claimed"] != nil { data["notice"] = "Your prize is claimed. Enjoy!" }
        if request.uri.queryParameters["joined"] != nil {
            // Says what the widget says: reads before joining count.
            data["notice"] =
                model?.state == .streakReadToday
                ? "You've joined the challenge. Today's read is done: come back tomorrow to keep your streak."
                : (model?.streak ?? 0) > 0
                    ? "You've joined the challenge. Your \(model!.streak)-day streak counts: read today to keep it."
                    : "You've joined the challenge. Read an article to start your streak."
        }
        return Self.withDevice(
            pages.page("reading", title: "Reading", data: data, context: context, path: "/reading", back: "/"),
            newDevice)
    }

    private func join(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        if reader.member == nil {
            _ = try await reading.join(reader)
            return Self.withDevice(Response.redirect(to: "/login?next=/reading", type: .normal), newDevice)
        }
        _ = try await reading.join(reader)
        return Response.redirect(to: "/reading?joined=1", type: .normal)
    }

    private func claim(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/reading", type: .normal)
        }
        _ = try await reading.claim(member)
        return Response.redirect(to: "/reading?claimed=1", type: .normal)
    }

    /// A widget CTA: recorded for the funnel, then followed.
    private func go(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let targets: [WidgetCTA.Kind: String] = [
            .search: "/reading/search", .random: "/reading/random", .share: "/reading/share.svg",
        ]
        guard let kind = WidgetCTA.Kind(rawValue: try context.parameters.require("kind")), let target = targets[kind]
        else { throw DomainError.notFound("No such action.") }
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
        let searched = !(query ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        return Self.withDevice(
            pages.page(
                "reading-search", title: "Search",
                data: [
                    "q": query ?? "", "articles": articles.map(Self.articleData),
                    "heading": searched
                        ? "Articles about \u{201C}\(query ?? "")\u{201D}"
                        : source == .history ? "Articles you have read" : "Articles to start with",
                    "offline": searched && source == .pack && reading.wiki.online,
                    "none": articles.isEmpty,
                ], context: context, path: "/reading", back: "/reading"), newDevice)
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
        return Self.withDevice(
            pages.page(
                "reading-article", title: shown.title,
                data: [
                    "articleTitle": shown.title, "url": shown.pageURL, "language": language,
                    "description": shown.description ?? false,
                    "extract": shown.extract.isEmpty ? false : shown.extract,
                    "image": shown.thumbnail.map { ["source": $0.source, "alt": shown.title] } ?? false,
                    "signedIn": reader.member != nil,
                    "justSaved": request.uri.queryParameters["saved"] != nil,
                    "saved": saved,
                    "readEvent": UUID.random().uuidString.lowercased(),
                    "widget": try await widgetData(reader, surface: "web") ?? false,
                ], context: context, path: "/reading", back: "/reading/search"), newDevice)
    }

    /// The article page's report that it was opened: the read counts (once per event id), and
    /// the script gets the widget as it is now to put in place of the old one (nothing when
    /// there is no widget). Without the script, the button posts it and returns to the article.
    private func read(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reader(request, context)
        let form = try await Form(request)
        let title = try WikiLanguage.title(String(form["title"].prefix(300)))
        let language = try WikiLanguage.check(form["language"])
        try await reading.opened(title, language: language, eventID: form["eventId"], for: reader)
        guard request.headers[Self.beaconHeader] != nil else {
            return Self.withDevice(
                Response.redirect(to: Self.articlePath(title: title, language: language), type: .normal), newDevice)
        }
        guard let widget = try await widgetData(reader, surface: "web", impression: false) else {
            return Self.withDevice(Response(status: .noContent), newDevice)
        }
        return Self.withDevice(pages.fragment("widget", model: widget, context: context), newDevice)
    }

    private func share(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/reading", type: .normal)
        }
        let reader = ReaderIdentity(member)
        guard let model = try await reading.widget(for: reader, impression: false) else {
            throw DomainError.notFound("There is no reading challenge.")
        }
        var headers: HTTPFields = [.contentType: "image/svg+xml; charset=utf-8"]
        if request.uri.queryParameters["download"] == "1" {
            headers[.contentDisposition] = #"attachment; filename="reading-streak.svg""#
        }
        return Response(
            status: .ok, headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: ShareCard.svg(model, name: member.displayName))))
    }

    /// QA: the widget for any campaign, date, zone and history, without waiting for the day.
    /// `/reading/preview?campaign=2026&now=2026-05-10T08:30:00Z&timeZone=Europe/Paris&joined=2026-05-02&reads=2026-05-08,2026-05-09`
    private func preview(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let q = request.uri.queryParameters
        let campaigns = try await reading.campaigns()
        let campaignID = q["campaign"].map(String.init) ?? campaigns.first?.id ?? ""
        var validation = FieldValidation()
        let campaign = validation.check { () throws(DomainError) in
            guard let found = campaigns.first(where: { $0.id == campaignID }) else {
                throw .invalid(field: "campaign", "No campaign \"\(campaignID)\".")
            }
            return found
        }
        let zone = validation.check { () throws(DomainError) in
            try AccountRules.timeZone(q["timeZone"].map(String.init) ?? "UTC")
        }
        let now = validation.check { () throws(DomainError) in
            guard let raw = q["now"] else { return reading.clock.now() }
            guard let instant = try? Date(String(raw), strategy: .iso8601) else {
                throw .invalid(field: "now", "Use an instant like 2026-05-10T08:30:00Z.")
            }
            return instant
        }
        func day(_ raw: Substring, _ field: String) -> LocalDay? {
            validation.check { () throws(DomainError) in
                try DateWindow.day(raw, field: field, example: "2026-05-08")
            }
        }
        let joined = q["joined"].flatMap { $0.isEmpty ? nil : day($0, "joined") }
        let completed = q["completed"].flatMap { $0.isEmpty ? nil : day($0, "completed") }
        let reads = (q["reads"] ?? "").split(separator: ",").compactMap { day($0, "reads") }
        try validation.finish()
        let status = ReaderStatus(
            loggedIn: q["loggedIn"] != "false", joinDay: joined, completedOn: completed,
            claimed: q["claimed"] == "true", readDays: Set(reads))
        let model = ReadingWidget.model(campaign: campaign!, status: status, today: LocalDay(now!, in: zone!.timeZone))
        return pages.page(
            "reading-preview", title: "Widget preview",
            data: [
                "widget": WidgetView.data(model, interactive: false),
                "small": WidgetView.data(model, size: "small", interactive: false),
                "state": model.state.rawValue, "today": model.today.iso, "campaigns": campaigns.map(\.id),
            ], context: context, path: "/reading", back: "/reading")
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
            throw DomainError.notFound("No such campaign.")
        }
        let steps = try await reading.funnel(campaign: campaign.id, as: me)
        let chart = BarChart(
            title: "Reading challenge funnel", labels: steps.map(\.name),
            series: [.init(name: "Members", style: "bar--a", values: steps.map(\.members))])
        return pages.page(
            "admin-funnel", title: "Challenge funnel",
            data: [
                "campaignTitle": campaign.title ?? campaign.id, "chart": chart.funnelSVG,
                "campaigns": campaigns.map {
                    ["id": $0.id, "title": $0.title ?? $0.id, "selected": $0.id == campaign.id] as [String: Any]
                },
            ], context: context, path: "/reading", back: "/profile")
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

    static func articleData(_ article: WikiSummary) -> [String: Any] {
        [
            "title": article.title, "language": article.language, "path": articlePath(article),
            "description": article.description ?? false, "image": article.thumbnail?.source ?? false,
            "initial": String(article.title.prefix(1)),
        ]
    }
}
