import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

// The game's screens as typed page models, each built by a pure function from what the
// feature returns (`GameViewsTests` builds them without HTTP).

/// A language of the picker.
struct LanguageOption: Equatable {
    let code: String
    let name: String
    let selected: Bool

    /// Every language the game supports, `chosen` selected.
    static func all(selecting chosen: String) -> [LanguageOption] {
        GameLanguage.supported.compactMap { try? GameLanguage($0) }.map {
            LanguageOption(code: $0.code, name: $0.name, selected: $0.code == chosen)
        }
    }
}

/// The statistics card (`game-stats.mustache`).
struct GameStatsView: Equatable {
    let played: Int
    let average: String
    let current: Int
    let best: Int

    init(_ stats: GameStats) {
        played = stats.played
        average = String(format: "%.1f", stats.averageScore)
        current = stats.currentStreak
        best = stats.bestStreak
    }
}

/// The splash (`game-splash.mustache`).
struct GameSplashPage: Equatable {
    /// A game to go back to: today's, or one left mid-play on an archive day.
    struct Game: Equatable {
        let id: String
        let label: String
        /// The question the player is on (1-based).
        let question: Int
        let count: Int
        let score: Int

        init(_ record: GameSessionRecord) {
            id = record.id
            label = Wording.longDate(record.date)
            question = (record.session.currentIndex ?? 0) + 1
            count = record.session.questions.count
            score = record.session.score
        }
    }

    struct Day: Equatable {
        let date: String
        let label: String
    }

    let today: String
    let todayISO: String
    let language: String
    let aboutURL: String
    let languages: [LanguageOption]
    let stats: GameStatsView
    /// Archive games left mid-play (the template's `continue`).
    let `continue`: [Game]
    let hasContinue: Bool
    let inProgress: Game?
    let finished: Game?
    let canPlay: Bool
    /// Why today's game cannot be played, when it cannot.
    let unavailable: String?
    let playable: [Day]
    let hasPlayable: Bool

    init(_ splash: GameSplash, aboutURL: String) {
        today = Wording.longDate(splash.today)
        todayISO = splash.today.iso
        language = splash.language.code
        self.aboutURL = aboutURL
        languages = LanguageOption.all(selecting: splash.language.code)
        stats = GameStatsView(splash.stats)
        `continue` = splash.unfinished.map(Game.init)
        hasContinue = !splash.unfinished.isEmpty
        let todays = splash.todays.map(Game.init)
        let complete = splash.todays?.session.isComplete ?? false
        inProgress = complete ? nil : todays
        finished = complete ? todays : nil
        switch splash.availability {
        case .available?: (canPlay, unavailable) = (true, nil)
        case .notEnoughEvents?:
            (canPlay, unavailable) = (false, "Today's game isn't available: there are not enough events today.")
        case .feedUnavailable(let reason)?: (canPlay, unavailable) = (false, RequestLanguage.localizer(reason))
        case nil: (canPlay, unavailable) = (false, nil)
        }
        playable = splash.playable.map { Day(date: $0.iso, label: Wording.longDate($0)) }
        hasPlayable = !splash.playable.isEmpty
    }
}

/// One answer's dot under the question (`game-bubbles.mustache`).
struct AnswerBubble: Equatable {
    let number: Int
    let state: String
    let current: Bool
    let label: String
    let icon: String

    static func all(_ session: GameSession) -> [AnswerBubble] {
        session.questions.indices.map { index in
            let result = session.result(for: index)
            let state =
                result.map { $0.correct ? "correct" : "incorrect" }
                ?? (index == session.currentIndex ? "current" : "pending")
            let words =
                switch state {
                case "correct": "correct"
                case "incorrect": "incorrect"
                case "current": "current question"
                default: "not answered yet"
                }
            return AnswerBubble(
                number: index + 1, state: state, current: state == "current",
                label: "Question \(index + 1): \(words)",
                icon: result.map { Icons.svg($0.correct ? "check" : "cross") } ?? String(index + 1))
        }
    }
}

/// One event card of a question, before or after the answer.
struct GameCardView: Equatable {
    struct Image: Equatable {
        let source: String
        let alt: String
    }

    struct Page: Equatable {
        let title: String
        let url: String
    }

    let side: String
    let label: String
    let text: String
    let image: Image?
    /// The event's first page, read in the app (Back returns to the game).
    let page: Page?
    // After the answer:
    var year: String? = nil
    var chosen = false
    var isAnswer = false
    var verdict: String? = nil
    var icon: String? = nil

    init(_ event: GameEvent, _ side: Choice, result: GameSession.AnswerResult?, wiki: String) {
        self.side = side.rawValue
        label = side == .first ? "A" : "B"
        text = event.text
        image = event.imageURL.map { Image(source: $0, alt: event.imageAlt ?? event.text) }
        page = event.pages.first.map {
            Page(title: $0.title, url: ReadingPages.articlePath(title: $0.title, language: wiki))
        }
        if let result {
            let answer = result.correctChoice == side
            year = Wording.year(event.year)
            chosen = result.choice == side
            isAnswer = answer
            verdict = answer ? "Came first" : "Came later"
            icon = Icons.svg(answer ? "check" : "cross")
        }
    }
}

/// A question, or the verdict on one (`game-question.mustache`).
struct GameQuestionPage: Equatable {
    struct Ask: Equatable {
        let index: Int
        let number: Int
        let cards: [GameCardView]
    }

    struct Reveal: Equatable {
        let number: Int
        let correct: Bool
        let cards: [GameCardView]
        let last: Bool
    }

    let id: String
    let language: String
    let count: Int
    let bubbles: [AnswerBubble]
    let dateLong: String
    let fromArchive: Bool
    let ask: Ask?
    let reveal: Reveal?

    /// The verdict on question `reveal` (0-based) when it is answered, else the current question;
    /// nil when the game is over and nothing is revealed (the results page then).
    init?(_ record: GameSessionRecord, reveal revealed: Int?) {
        let session = record.session
        let wiki = ((try? GameLanguage(record.language)) ?? .english).wiki
        id = record.id
        language = record.language
        count = session.questions.count
        bubbles = AnswerBubble.all(session)
        dateLong = Wording.longDate(record.date)
        fromArchive = record.fromArchive
        func cards(_ question: GameQuestion, _ result: GameSession.AnswerResult?) -> [GameCardView] {
            [
                GameCardView(question.first, .first, result: result, wiki: wiki),
                GameCardView(question.second, .second, result: result, wiki: wiki),
            ]
        }
        if let revealed, let result = session.result(for: revealed) {
            ask = nil
            reveal = Reveal(
                number: revealed + 1, correct: result.correct, cards: cards(session.questions[revealed], result),
                last: session.isComplete)
        } else if let current = session.currentIndex {
            ask = Ask(index: current, number: current + 1, cards: cards(session.questions[current], nil))
            reveal = nil
        } else {
            return nil
        }
    }
}

/// A finished game's score (`game-results.mustache`).
struct GameResultsPage: Equatable {
    struct Results: Equatable {
        let score: Int
        let stats: GameStatsView
    }

    let id: String
    let language: String
    let count: Int
    let bubbles: [AnswerBubble]
    let dateLong: String
    let fromArchive: Bool
    let results: Results

    init(_ record: GameSessionRecord, stats: GameStats) {
        id = record.id
        language = record.language
        count = record.session.questions.count
        bubbles = AnswerBubble.all(record.session)
        dateLong = Wording.longDate(record.date)
        fromArchive = record.fromArchive
        results = Results(score: record.session.score, stats: GameStatsView(stats))
    }
}

/// A month of past games (`game-archive.mustache`).
struct GameArchivePage: Equatable {
    /// A calendar cell: a blank before the first, or a day in its state.
    struct Cell: Equatable {
        var blank = false
        var day = 0
        var date = ""
        var label = ""
        var score: Int? = nil
        var id: String? = nil
        var played = false
        var inProgress = false
        var open = false
        var today = false
        var future = false
        var unavailable = false
        var tooOld = false

        init() { blank = true }

        init(_ archived: ArchiveDay) {
            day = archived.date.day
            date = archived.date.iso
            label = Wording.longDate(archived.date)
            score = archived.score
            id = archived.sessionID
            switch archived.status {
            case .played: played = true
            case .inProgress: inProgress = true
            case .open: open = true
            case .today: today = true
            case .future: future = true
            case .unavailable: unavailable = true
            case .tooOld: tooOld = true
            }
        }
    }

    let month: String
    let language: String
    let cells: [Cell]
    let weekdays: [String]
    let offline: Bool
    /// Only months the archive holds are linked ("2026-04").
    let previous: String?
    let next: String?

    init(_ archive: ArchiveMonth, language: GameLanguage) {
        month = Wording.month(archive.first)
        self.language = language.code
        cells =
            Array(repeating: Cell(), count: archive.first.isoWeekday - 1) + archive.days.map(Cell.init)
        weekdays = Wording.shortWeekdays
        offline = archive.days.contains { $0.status == .unavailable }
        previous = archive.previous.map { String($0.iso.prefix(7)) }
        next = archive.next.map { String($0.iso.prefix(7)) }
    }
}
