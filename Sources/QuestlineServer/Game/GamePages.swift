import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// "Which came first?" in the web app: splash, the question flow, results and the archive.
/// Server-rendered so it works without JavaScript; `game.js` adds the card transitions.
struct GamePages: FeatureModule {
    let games: GameFeature
    let accounts: AccountsFeature
    let pages: PageRenderer

    static let aboutURL = "https://www.mediawiki.org/wiki/Wikimedia_Apps/Team/iOS/Game:_Which_came_first"

    func register(on router: Router<AppRequestContext>) {
        router.get("/game") { request, context in try await self.splash(request, context) }
        router.post("/game/start") { request, context in try await self.start(request, context) }
        router.get("/game/play/:id") { request, context in try await self.play(request, context) }
        router.post("/game/play/:id/answer") { request, context in try await self.answer(request, context) }
        router.get("/game/archive") { request, context in try await self.archive(request, context) }
        router.post("/game/language") { request, context in try await self.chooseLanguage(request, context) }
    }

    /// The language asked for in the address, else the member's primary language.
    private func language(_ request: Request, _ member: MemberRecord) throws -> GameLanguage {
        try GameLanguage(request.uri.queryParameters["language"].map(String.init) ?? member.language ?? "en")
    }

    // MARK: Splash

    private func splash(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game")
        let splash = try await games.splash(member, language: try language(request, member))
        return pages.page(
            "game-splash", title: context.localizer("game.title"),
            model: GameSplashPage(splash, aboutURL: Self.aboutURL, localizer: context.localizer), context: context,
            path: "/game", back: "/")
    }

    /// The splash's language picker: remembered as the member's primary language.
    private func chooseLanguage(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game")
        let form = try await Form(request)
        let chosen = try GameLanguage(form["language"])
        _ = try await accounts.updateProfile(
            member.id, as: member, displayName: nil, timeZone: nil, language: chosen.code, scope: context.scope.write)
        return Response.redirect(to: "/game", type: .normal)
    }

    // MARK: Playing

    private func start(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game")
        let form = try await Form(request)
        let language = try GameLanguage(form["language"].isEmpty ? "en" : form["language"])
        let date = try games.gameDate(form["date"], for: member)
        let (record, _) = try await games.start(member, language: language, date: date, scope: context.scope.write)
        return Response.redirect(to: "/game/play/\(record.id)", type: .normal)
    }

    private func play(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let member = try context.requireWebMember(next: "/game/play/\(id)")
        let record = try await games.session(id, of: member)
        let reveal = request.uri.queryParameters["reveal"].flatMap { Int($0) }
        guard let question = GameQuestionPage(record, reveal: reveal, localizer: context.localizer) else {
            let stats = try await games.stats(member, language: (try? GameLanguage(record.language)) ?? .english)
            return pages.page(
                "game-results", title: context.localizer("game.results.title"),
                model: GameResultsPage(record, stats: stats, localizer: context.localizer), context: context,
                path: "/game", back: "/game")
        }
        return pages.page(
            "game-question", title: context.localizer("game.title"), model: question, context: context, path: "/game",
            back: "/game")
    }

    private func answer(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let member = try context.requireWebMember(next: "/game/play/\(id)")
        let form = try await Form(request)
        guard let index = Int(form["questionIndex"]) else {
            throw DomainError.invalid(field: "questionIndex", Message("game.error.missingQuestion"))
        }
        guard let choice = Choice(rawValue: form["choice"]) else {
            // No card chosen: back to the question, which asks for a choice.
            return Response.redirect(to: "/game/play/\(id)?choose=1", type: .normal)
        }
        do {
            _ = try await games.answer(id, of: member, questionIndex: index, choice: choice, scope: context.scope.write)
        } catch DomainError.conflict {
            // An old copy of a question (Back, a second tab): not an error page, but where the game
            // stands: the verdict of a question answered before, else the current question.
            let session = try await games.session(id, of: member).session
            let answered = session.result(for: index) != nil
            return Response.redirect(to: "/game/play/\(id)" + (answered ? "?reveal=\(index)" : ""), type: .normal)
        }
        return Response.redirect(to: "/game/play/\(id)?reveal=\(index)", type: .normal)
    }

    // MARK: Archive

    private func archive(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game/archive")
        let language = try language(request, member)
        let archive = try await games.archive(
            member, language: language, month: request.uri.queryParameters["month"].map(String.init))
        return pages.page(
            "game-archive", title: context.localizer("game.archive.title"),
            model: GameArchivePage(archive, language: language, localizer: context.localizer), context: context,
            path: "/game", back: "/game")
    }
}
