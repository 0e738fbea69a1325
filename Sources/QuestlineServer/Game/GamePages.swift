import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// "Which came first?" in the web app: splash, the question flow, results and the archive.
/// Server-rendered so it works without JavaScript; `game.js` adds the card transitions.
struct GamePages {
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
        let language = try language(request, member)
        let today = games.today(for: member)
        var data: [String: Any] = [
            "today": Wording.longDate(today), "todayISO": today.iso,
            "language": language.code, "aboutURL": Self.aboutURL,
            "languages": GameLanguage.supported.compactMap { try? GameLanguage($0) }.map {
                ["code": $0.code, "name": $0.name, "selected": $0 == language] as [String: Any]
            },
            "stats": try await statsData(member, language),
        ]
        // A game left mid-play, today's or an archive day's, is offered to continue first.
        let unfinished = try await games.unfinished(member, language: language).filter { $0.date != today }
        data["continue"] = unfinished.map { record -> [String: Any] in
            [
                "id": record.id, "label": Wording.longDate(record.date),
                "question": (record.session.currentIndex ?? 0) + 1, "count": record.session.questions.count,
            ]
        }
        data["hasContinue"] = !unfinished.isEmpty
        if let session = try await games.session(of: member, language: language, date: today) {
            data[session.session.isComplete ? "finished" : "inProgress"] = [
                "id": session.id, "score": session.session.score, "count": session.session.questions.count,
                "question": (session.session.currentIndex ?? 0) + 1,
            ]
        } else {
            switch try await games.availability(language: language, date: today) {
            case .available: data["canPlay"] = true
            case .notEnoughEvents:
                data["unavailable"] = "Today's game isn't available: there are not enough events today."
            case .feedUnavailable(let reason):
                data["unavailable"] = reason
                // The days that can be played now, offered at once (never one it cannot serve).
                let playable = try await games.playableDays(member, language: language, limit: 6)
                data["playable"] = playable.map { ["date": $0.iso, "label": Wording.longDate($0)] }
                data["hasPlayable"] = !playable.isEmpty
            }
        }
        return pages.page(
            "game-splash", title: "Which came first?", data: data, context: context, path: "/game", back: "/")
    }

    /// The splash's language picker: remembered as the member's primary language.
    private func chooseLanguage(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game")
        let form = try await Form(request)
        let chosen = try GameLanguage(form["language"])
        _ = try await accounts.updateProfile(
            member.id, as: member, displayName: nil, timeZone: nil, language: chosen.code)
        return Response.redirect(to: "/game", type: .normal)
    }

    private func statsData(_ member: MemberRecord, _ language: GameLanguage) async throws -> [String: Any] {
        let stats = try await games.stats(member, language: language)
        return [
            "played": stats.played, "average": String(format: "%.1f", stats.averageScore),
            "current": stats.currentStreak, "best": stats.bestStreak,
        ]
    }

    // MARK: Playing

    private func start(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game")
        let form = try await Form(request)
        let language = try GameLanguage(form["language"].isEmpty ? "en" : form["language"])
        let date = try games.gameDate(form["date"], for: member)
        let (record, _) = try await games.start(member, language: language, date: date)
        return Response.redirect(to: "/game/play/\(record.id)", type: .normal)
    }

    private func play(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let member = try context.requireWebMember(next: "/game/play/\(id)")
        let record = try await games.session(id, of: member)
        let session = record.session
        let language = (try? GameLanguage(record.language)) ?? .english
        var data: [String: Any] = [
            "id": record.id, "language": record.language, "count": session.questions.count,
            "bubbles": bubbles(session, current: session.currentIndex),
            "dateLong": Wording.longDate(record.date), "fromArchive": record.fromArchive,
        ]
        if let reveal = request.uri.queryParameters["reveal"].flatMap({ Int($0) }),
            let result = session.result(for: reveal)
        {
            let question = session.questions[reveal]
            data["reveal"] = [
                "number": reveal + 1, "correct": result.correct,
                "cards": [
                    card(question.first, .first, result: result, language: language),
                    card(question.second, .second, result: result, language: language),
                ],
                "last": session.isComplete,
            ]
            return pages.page(
                "game-question", title: "Which came first?", data: data, context: context, path: "/game", back: "/game")
        }
        guard let current = session.currentIndex else {
            data["results"] = ["score": session.score, "stats": try await statsData(member, language)]
            return pages.page(
                "game-results", title: "Your results", data: data, context: context, path: "/game", back: "/game")
        }
        let question = session.questions[current]
        data["ask"] = [
            "index": current, "number": current + 1,
            "cards": [
                card(question.first, .first, result: nil, language: language),
                card(question.second, .second, result: nil, language: language),
            ],
        ]
        return pages.page(
            "game-question", title: "Which came first?", data: data, context: context, path: "/game", back: "/game")
    }

    private func answer(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let member = try context.requireWebMember(next: "/game/play/\(id)")
        let form = try await Form(request)
        guard let index = Int(form["questionIndex"]) else {
            throw DomainError.invalid(field: "questionIndex", "Missing question.")
        }
        guard let choice = Choice(rawValue: form["choice"]) else {
            // No card chosen: back to the question, which asks for a choice.
            return Response.redirect(to: "/game/play/\(id)?choose=1", type: .normal)
        }
        do {
            _ = try await games.answer(id, of: member, questionIndex: index, choice: choice)
        } catch DomainError.conflict {
            // An old copy of a question (Back, a second tab): not an error page, but where the game
            // stands: the verdict of a question answered before, else the current question.
            let session = try await games.session(id, of: member).session
            let answered = session.result(for: index) != nil
            return Response.redirect(to: "/game/play/\(id)" + (answered ? "?reveal=\(index)" : ""), type: .normal)
        }
        return Response.redirect(to: "/game/play/\(id)?reveal=\(index)", type: .normal)
    }

    private func card(_ event: GameEvent, _ side: Choice, result: GameSession.AnswerResult?, language: GameLanguage)
        -> [String: Any]
    {
        var card: [String: Any] = [
            "side": side.rawValue, "label": side == .first ? "A" : "B", "text": event.text,
            "image": event.imageURL.map { ["source": $0, "alt": event.imageAlt ?? event.text] } ?? false,
            // The event's first page, read in the app (Back returns to the game).
            "page": event.pages.first.map {
                ["title": $0.title, "url": ReadingPages.articlePath(title: $0.title, language: language.wiki)]
            } ?? false,
        ]
        if let result {
            let isAnswer = result.correctChoice == side
            card["year"] = Wording.year(event.year)
            card["chosen"] = result.choice == side
            card["isAnswer"] = isAnswer
            card["verdict"] = isAnswer ? "Came first" : "Came later"
            card["icon"] = Icons.svg(isAnswer ? "check" : "cross")
        }
        return card
    }

    private func bubbles(_ session: GameSession, current: Int?) -> [[String: Any]] {
        session.questions.indices.map { index in
            let result = session.result(for: index)
            let state =
                result.map { $0.correct ? "correct" : "incorrect" } ?? (index == current ? "current" : "pending")
            let words = [
                "correct": "correct", "incorrect": "incorrect", "current": "current question",
                "pending": "not answered yet",
            ][state]!
            return [
                "number": index + 1, "state": state, "current": state == "current",
                "label": "Question \(index + 1): \(words)",
                "icon": result.map { Icons.svg($0.correct ? "check" : "cross") } ?? String(index + 1),
            ]
        }
    }

    // MARK: Archive

    private func archive(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/game/archive")
        let language = try language(request, member)
        let archive = try await games.archive(
            member, language: language, month: request.uri.queryParameters["month"].map(String.init))
        let first = archive.first
        let days = archive.days
        let leading = first.isoWeekday - 1
        let cells: [[String: Any]] =
            Array(repeating: ["blank": true], count: leading)
            + days.map { day in
                var cell: [String: Any] = [
                    "day": day.date.day, "date": day.date.iso, day.status.rawValue: true,
                    "label": Wording.longDate(day.date),
                ]
                if let score = day.score { cell["score"] = score }
                if let id = day.sessionID { cell["id"] = id }
                return cell
            }
        var data: [String: Any] = [
            "month": Wording.month(first), "language": language.code, "cells": cells,
            "weekdays": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
            "offline": days.contains { $0.status == .unavailable },
        ]
        // Only months the archive holds are linked: the first and the current month have no link outwards.
        if let previous = archive.previous { data["previous"] = String(previous.iso.prefix(7)) }
        if let next = archive.next { data["next"] = String(next.iso.prefix(7)) }
        return pages.page(
            "game-archive", title: "Past games", data: data, context: context, path: "/game", back: "/game")
    }
}

/// Sends the browser elsewhere (thrown where a page needs a signed-in member).
struct Redirect: Error {
    let location: String
    init(to location: String) { self.location = location }
}
