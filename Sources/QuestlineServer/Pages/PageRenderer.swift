import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Renders the web app's pages from the Mustache templates in `Resources/templates`: one layout
/// (app bar, content, bottom navigation) that every page fills.
struct PageRenderer: Sendable {
    let library: MustacheLibrary

    /// Loads every template from the bundled `Resources/templates`.
    static func load() async throws -> PageRenderer {
        PageRenderer(library: try await MustacheLibrary(directory: ServerResources.path("templates")))
    }

    /// The areas in the bottom navigation, in order; `title` is the catalog's key of the area's
    /// name (`shell.nav.home`).
    static let areas: [(path: String, title: String, icon: String)] = [
        ("/", "shell.nav.home", Icons.svg("home")),
        ("/reading", "shell.nav.reading", Icons.svg("reading")),
        ("/activity", "shell.nav.activity", Icons.svg("activity")),
        ("/game", "shell.nav.game", Icons.svg("game")),
        ("/quests", "shell.nav.quests", Icons.svg("family")),
        ("/stories", "shell.nav.stories", Icons.svg("stories")),
    ]

    /// A full page: `data` is the screen's typed page model (a struct, read by its stored
    /// properties) that fills the page's own template; the layout gets title, navigation and the
    /// signed-in member. `section` adds values a section's pages share to the layout's (the
    /// stories' own menu).
    func page(
        _ template: String, title: String, model data: Any, context: AppRequestContext,
        path: String, status: HTTPResponse.Status = .ok, back: String? = nil, section: [String: Any] = [:]
    ) -> Response {
        var layout = layout(title: title, context: context, path: path, back: back).merging(section) { _, new in new }
        if let address = context.pageAddress?.address(status: status) { layout["address"] = address }
        return html(render(template, model: data, layout: layout), status: status)
    }

    /// A part of a page (a partial's template), for a script that replaces that part in place:
    /// it reads the same layout values a page does (the form token, the icons).
    func fragment(_ template: String, model data: Any, context: AppRequestContext) -> Response {
        html(
            render(template, model: data, layout: layout(title: "", context: context, path: "", back: nil)), status: .ok
        )
    }

    private func render(_ template: String, model data: Any, layout values: [String: Any]) -> String {
        library.render(PageContext(layout: values, page: data), withTemplate: template)
            ?? "<!doctype html><title>Error</title><p>Template \(template) is missing."
    }

    private func html(_ text: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// What the layout reads: title, navigation, the signed-in member, the form token, icons.
    private func layout(title: String, context: AppRequestContext, path: String, back: String?) -> [String: Any] {
        var values: [String: Any] = [:]
        let localizer = context.localizer
        values["lang"] = localizer.language.code
        values["dir"] = localizer.language.direction
        values["storyLang"] = StoryContent.language
        // `{{#t}}key{{/t}}`: the catalog's words for the key in the page's language, HTML-escaped,
        // each `{name}` filled from the page's own value of that name.
        values["t"] = PageRenderer.words(localizer)
        values["title"] = title
        // The browser tab names the page, then the product once ("Questline", not "Questline · Questline").
        values["documentTitle"] = title == "Questline" ? title : "\(title) · Questline"
        values["back"] = back ?? false
        // Every form posts it (`{{> csrf}}`); scripts read it from the layout's meta tag.
        values["csrf"] = context.formToken
        values["icons"] = [
            "clock": Icons.svg("clock"), "warning": Icons.svg("warning"), "check": Icons.svg("check"),
            "cross": Icons.svg("cross"),
        ]
        if let member = context.identity.member {
            values["member"] = [
                "displayName": member.displayName,
                "timeZone": member.timeZone,
                "initial": String(member.displayName.prefix(1)).uppercased(),
            ]
            values["nav"] = PageRenderer.areas.map { area in
                ["path": area.path, "title": localizer(area.title), "icon": area.icon, "current": area.path == path]
                    as [String: Any]
            }
        } else {
            values["member"] = false
            // A visitor's language menu (`/language`): each language in its own name, back to this page.
            values["interfaceLanguages"] = LanguageMenu.options(current: localizer.language)
            values["languageNext"] = context.pagePath
        }
        return values
    }

    /// The templates' words: a section lambda that returns the message's text as a template, its
    /// words escaped and each `{name}` turned into `{{name}}`, so the page's values fill it.
    static func words(_ localizer: Localizer) -> MustacheLambda {
        MustacheLambda { key in
            let key = key.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let text = localizer.template(key) else { return key }
            return HTML.escaped(text).replacingOccurrences(of: "{", with: "{{").replacingOccurrences(
                of: "}", with: "}}")
        }
    }

    func errorPage(_ problem: Problem, context: AppRequestContext) -> Response {
        page(
            "error", title: context.localizer(problem.title),
            model: ErrorPage(problem, requestID: context.requestID, localizer: context.localizer), context: context,
            path: "", status: problem.httpStatus)
    }
}

/// The error page (`error.mustache`): what went wrong, the request's id to quote, and a way to
/// sign in when that is what is missing.
struct ErrorPage: Equatable {
    let status: Int
    let detail: String
    let requestId: String
    let signIn: Bool

    init(_ problem: Problem, requestID: String, localizer: Localizer) {
        status = problem.status
        detail = problem.detail.map { localizer($0) } ?? ""
        requestId = requestID
        signIn = problem.status == 401
    }
}

/// What a template reads: the page's own model first, then the layout's values (title,
/// navigation, the member, the form token).
struct PageContext: MustacheParent {
    let layout: [String: Any]
    let page: Any

    func child(named name: String) -> Any? {
        Self.property(name, of: page) ?? layout[name]
    }

    /// A stored property of a model by name, an optional one unwrapped (nil when empty).
    static func property(_ name: String, of object: Any) -> Any? {
        guard let value = Mirror(reflecting: object).children.first(where: { $0.label == name })?.value else {
            return nil
        }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }
}
