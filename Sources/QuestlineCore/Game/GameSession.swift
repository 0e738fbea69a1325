import Foundation

/// A member's game for one date and language: its questions (fixed when it starts) and the
/// answers given so far. Answers are given in order, each once.
public struct GameSession: Codable, Sendable, Equatable {
    public var questions: [GameQuestion]
    public var answers: [Choice?]

    public init(questions: [GameQuestion]) {
        self.questions = questions
        answers = Array(repeating: nil, count: questions.count)
    }

    /// The first unanswered question, nil when the game is finished.
    public var currentIndex: Int? { answers.firstIndex { $0 == nil } }
    public var isComplete: Bool { currentIndex == nil }
    public var score: Int { zip(questions, answers).filter { $0.0.answer == $0.1 }.count }

    public struct AnswerResult: Sendable, Equatable {
        public let questionIndex: Int
        public let choice: Choice
        public let correct: Bool
        public let correctChoice: Choice
        /// True when this question had been answered before with the same choice (a retry).
        public let repeated: Bool
    }

    public func result(for index: Int) -> AnswerResult? {
        guard questions.indices.contains(index), let choice = answers[index] else { return nil }
        return AnswerResult(
            questionIndex: index, choice: choice, correct: questions[index].answer == choice,
            correctChoice: questions[index].answer, repeated: true)
    }

    /// Records an answer. The same answer again returns the first result (a retry); a different
    /// answer to an answered question, or an answer out of order, is refused.
    public mutating func answer(_ index: Int, _ choice: Choice) throws(DomainError) -> AnswerResult {
        guard questions.indices.contains(index) else {
            throw .invalid(
                field: "questionIndex", Message("game.error.questionNumber", ["last": .number(questions.count - 1)]))
        }
        if let previous = answers[index] {
            guard previous == choice else {
                throw .conflict(
                    field: "questionIndex",
                    message: isComplete
                        ? Message("game.error.finished")
                        : Message("game.error.alreadyAnswered", ["number": .number(index + 1)]))
            }
            return result(for: index)!
        }
        guard index == currentIndex else {
            throw .conflict(
                field: "questionIndex",
                message: Message("game.error.answerInOrder", ["number": .number((currentIndex ?? 0) + 1)]))
        }
        answers[index] = choice
        let question = questions[index]
        return AnswerResult(
            questionIndex: index, choice: choice, correct: question.answer == choice,
            correctChoice: question.answer, repeated: false)
    }
}

/// A finished game, as the stats need it.
public struct PlayedGame: Sendable, Equatable {
    public let date: LocalDay
    public let score: Int
    /// Played from the archive (after its day) rather than on its day.
    public let fromArchive: Bool

    public init(date: LocalDay, score: Int, fromArchive: Bool) {
        self.date = date
        self.score = score
        self.fromArchive = fromArchive
    }
}

/// Games played, average score, current and best streak of days played.
///
/// Every finished game counts towards played and average. Streaks count consecutive game
/// dates played on their own day: archive plays do not fill gaps, so a streak shows daily
/// habit. The current streak is the run ending today, or yesterday when today's game is not
/// finished yet; the best streak is the longest run, including one that a gap ended.
public struct GameStats: Sendable, Equatable {
    public let played: Int
    /// Mean score, rounded to one decimal (half away from zero); 0 when none played.
    public let averageScore: Double
    public let currentStreak: Int
    public let bestStreak: Int

    public init(played: Int, averageScore: Double, currentStreak: Int, bestStreak: Int) {
        self.played = played
        self.averageScore = averageScore
        self.currentStreak = currentStreak
        self.bestStreak = bestStreak
    }

    public init(games: [PlayedGame], today: LocalDay) {
        played = games.count
        let total = games.reduce(0) { $0 + $1.score }
        averageScore =
            games.isEmpty ? 0 : (Double(total) * 10 / Double(games.count)).rounded(.toNearestOrAwayFromZero) / 10
        let runs = DayRun.runs(of: games.filter { !$0.fromArchive }.map(\.date))
        bestStreak = runs.map(\.length).max() ?? 0
        currentStreak = DayRun.current(in: runs, today: today)
    }
}
