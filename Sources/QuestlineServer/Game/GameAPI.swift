import Foundation
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// "Which came first?" over the API.
extension APIImplementation {
    func getTodaysGame(_ input: Operations.getTodaysGame.Input) async throws -> Operations.getTodaysGame.Output {
        let me = try identity.requireMember()
        let language = try GameLanguage(input.query.language ?? "en")
        return .ok(.init(body: .json(try await gameDay(me, language: language, date: games.today(for: me)))))
    }

    func getGameDay(_ input: Operations.getGameDay.Input) async throws -> Operations.getGameDay.Output {
        let me = try identity.requireMember()
        let language = try GameLanguage(input.query.language ?? "en")
        let date = try games.gameDate(input.path.date, for: me)
        return .ok(.init(body: .json(try await gameDay(me, language: language, date: date))))
    }

    private func gameDay(_ me: MemberRecord, language: GameLanguage, date: LocalDay) async throws
        -> Components.Schemas.GameDay
    {
        let session = try await games.session(of: me, language: language, date: date)
        let status: Components.Schemas.GameDay.statusPayload
        var message: String?
        if session != nil {
            status = .available
        } else {
            switch try await games.availability(language: language, date: date) {
            case .available: status = .available
            case .notEnoughEvents:
                status = .notEnoughEvents
                message = RequestLanguage.localizer("game.day.notEnoughEvents")
            case .feedUnavailable(let reason):
                status = .feedUnavailable
                message = RequestLanguage.localizer(reason)
            }
        }
        return .init(
            date: date.iso, language: language.code, status: status, message: message,
            session: session.map { record in
                .init(
                    id: record.id, completed: record.session.isComplete, score: record.session.score,
                    answered: record.session.answers.compactMap { $0 }.count,
                    questionCount: record.session.questions.count)
            })
    }

    func startGame(_ input: Operations.startGame.Input) async throws -> Operations.startGame.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let language = try GameLanguage(body.language ?? "en")
        let date = try games.gameDate(body.date, for: me)
        let (record, created) = try await games.start(me, language: language, date: date, scope: writeScope)
        let view = Components.Schemas.GameSessionView(record)
        return created ? .created(.init(body: .json(view))) : .ok(.init(body: .json(view)))
    }

    func getGameSession(_ input: Operations.getGameSession.Input) async throws -> Operations.getGameSession.Output {
        let me = try identity.requireMember()
        return .ok(.init(body: .json(.init(try await games.session(input.path.sessionId, of: me)))))
    }

    func answerQuestion(_ input: Operations.answerQuestion.Input) async throws -> Operations.answerQuestion.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let choice = Choice(rawValue: body.choice.rawValue) ?? .first
        let (record, result) = try await games.answer(
            input.path.sessionId, of: me, questionIndex: body.questionIndex, choice: choice, scope: writeScope)
        return .ok(.init(body: .json(.init(result, record.session))))
    }

    func getGameStats(_ input: Operations.getGameStats.Input) async throws -> Operations.getGameStats.Output {
        let me = try identity.requireMember()
        let language = try GameLanguage(input.query.language ?? "en")
        let stats = try await games.stats(me, language: language)
        return .ok(
            .init(
                body: .json(
                    .init(
                        language: language.code, played: stats.played, averageScore: stats.averageScore,
                        currentStreak: stats.currentStreak, bestStreak: stats.bestStreak))))
    }

    func getGameArchive(_ input: Operations.getGameArchive.Input) async throws -> Operations.getGameArchive.Output {
        let me = try identity.requireMember()
        let language = try GameLanguage(input.query.language ?? "en")
        let archive = try await games.archive(me, language: language, month: input.query.month)
        return .ok(
            .init(
                body: .json(
                    .init(
                        month: String(archive.first.iso.prefix(7)), language: language.code,
                        days: archive.days.map {
                            .init(date: $0.date.iso, status: .init(rawValue: $0.status.rawValue)!, score: $0.score)
                        }))))
    }
}

extension Components.Schemas.GameSessionView {
    init(_ record: GameSessionRecord) {
        let session = record.session
        self.init(
            id: record.id, date: record.date.iso, language: record.language, fromArchive: record.fromArchive,
            currentQuestion: session.currentIndex, score: session.score, completed: session.isComplete,
            questions: session.questions.enumerated().map { index, question in
                let result = session.result(for: index)
                return .init(
                    index: index,
                    first: .init(question.first, revealed: result != nil),
                    second: .init(question.second, revealed: result != nil),
                    result: result.map { .init($0, session) })
            })
    }
}

extension Components.Schemas.GameCard {
    /// The year is left out until the question is answered.
    init(_ event: GameEvent, revealed: Bool) {
        self.init(
            text: event.text, imageUrl: event.imageURL, year: revealed ? event.year : nil,
            pages: event.pages.map { .init(title: $0.title, url: $0.url, description: $0.description) })
    }
}

extension Components.Schemas.GameAnswerResult {
    init(_ result: GameSession.AnswerResult, _ session: GameSession) {
        let question = session.questions[result.questionIndex]
        self.init(
            questionIndex: result.questionIndex, choice: .init(rawValue: result.choice.rawValue)!,
            correct: result.correct,
            correctChoice: .init(rawValue: result.correctChoice.rawValue)!, firstYear: question.first.year,
            secondYear: question.second.year, score: session.score, completed: session.isComplete)
    }
}
