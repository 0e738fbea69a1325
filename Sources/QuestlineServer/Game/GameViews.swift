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

    /// Every language the game supports, named in the reader's language, `chosen` selected.
    static func all(selecting chosen: String, localizer l: Localizer) -> [LanguageOption] {
        GameLanguage.supported.compactMap { try? GameLanguage($0) }.map {
            LanguageOption(code: $0.code, name: l($0.title), selected: $0.code == chosen)
        }
    }
}

/// The statistics card (`game-stats.mustache`).
struct GameStatsView: Equatable {
    let played: String
    let average: String
    let current: String
    let best: String

    /// The figures in the reader's digits; the average with one decimal as their locale writes
    /// it ("3.4", "3,4"): messages have no decimal argument, so it is formatted in the locale.
    init(_ stats: GameStats, localizer l: Localizer) {
        played = l.render(.number(stats.played))
        average = stats.averageScore.formatted(.number.precision(.fractionLength(1)).locale(l.language.locale))
        current = l.render(.number(stats.currentStreak))
        best = l.render(.number(stats.bestStreak))
    }
}

/// The splash (`game-splash.mustache`).
struct GameSplashPage: Equatable {
    /// A game to go back to: today's, or one left mid-play on an archive day.
    struct Game: Equatable {
        let id: String
        let label: String
        /// "question 2 of 5": the question the player is on (1-based).
        let progress: String
        /// "You are on question 2 of 5."
        let onQuestion: String
        /// "You scored 3 of 5 today. …", once finished.
        let scored: String

        init(_ record: GameSessionRecord, localizer l: Localizer) {
            id = record.id
            label = l.format(record.date, .weekday)
            let place: [String: Message.Argument] = [
                "number": .number((record.session.currentIndex ?? 0) + 1),
                "total": .number(record.session.questions.count),
            ]
            progress = l("game.splash.questionOf", place)
            onQuestion = l("game.splash.onQuestion", place)
            scored = l(
                "game.splash.scored",
                ["score": .number(record.session.score), "total": .number(record.session.questions.count)])
        }
    }

    struct Day: Equatable {
        let date: String
        let label: String
    }

    /// "Today is <time …>…</time>. A new game unlocks at midnight." (HTML).
    let todayLine: String
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

    init(_ splash: GameSplash, aboutURL: String, localizer l: Localizer) {
        let today =
            "<time datetime=\"\(splash.today.iso)\">\(HTML.escaped(l.format(splash.today, .weekday)))</time>"
        todayLine = l.html(Message("game.splash.today"), markup: ["today": today])
        language = splash.language.code
        self.aboutURL = aboutURL
        languages = LanguageOption.all(selecting: splash.language.code, localizer: l)
        stats = GameStatsView(splash.stats, localizer: l)
        `continue` = splash.unfinished.map { Game($0, localizer: l) }
        hasContinue = !splash.unfinished.isEmpty
        let todays = splash.todays.map { Game($0, localizer: l) }
        let complete = splash.todays?.session.isComplete ?? false
        inProgress = complete ? nil : todays
        finished = complete ? todays : nil
        switch splash.availability {
        case .available?: (canPlay, unavailable) = (true, nil)
        case .notEnoughEvents?:
            (canPlay, unavailable) = (false, l("game.splash.notEnoughEvents"))
        case .feedUnavailable(let reason)?: (canPlay, unavailable) = (false, l(reason))
        case nil: (canPlay, unavailable) = (false, nil)
        }
        playable = splash.playable.map { Day(date: $0.iso, label: l.format($0, .weekday)) }
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

    static func all(_ session: GameSession, localizer l: Localizer) -> [AnswerBubble] {
        session.questions.indices.map { index in
            let result = session.result(for: index)
            let state =
                result.map { $0.correct ? "correct" : "incorrect" }
                ?? (index == session.currentIndex ? "current" : "pending")
            let number = Message.Argument.number(index + 1)
            return AnswerBubble(
                number: index + 1, state: state, current: state == "current",
                // game.bubble.correct, .incorrect, .current, .pending
                label: l("game.bubble.\(state)", ["number": number]),
                icon: result.map { Icons.svg($0.correct ? "check" : "cross") } ?? l.render(number))
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
        /// "Read about {title}", the title in the game's language.
        let readAbout: String
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

    init(_ event: GameEvent, _ side: Choice, result: GameSession.AnswerResult?, wiki: String, localizer l: Localizer) {
        self.side = side.rawValue
        label = l(side == .first ? "game.card.first" : "game.card.second")
        text = event.text
        image = event.imageURL.map { Image(source: $0, alt: event.imageAlt ?? event.text) }
        page = event.pages.first.map {
            Page(
                title: $0.title, url: ReadingPages.articlePath(title: $0.title, language: wiki),
                readAbout: l("game.card.readAbout", ["title": .text($0.title)]))
        }
        if let result {
            let answer = result.correctChoice == side
            year = l.render(.year(event.year))
            chosen = result.choice == side
            isAnswer = answer
            verdict = l(answer ? "game.card.cameFirst" : "game.card.cameLater")
            icon = Icons.svg(answer ? "check" : "cross")
        }
    }
}

/// A question, or the verdict on one (`game-question.mustache`).
struct GameQuestionPage: Equatable {
    struct Ask: Equatable {
        let index: Int
        /// "Question 2 of 5".
        let progress: String
        let cards: [GameCardView]
    }

    struct Reveal: Equatable {
        let progress: String
        let correct: Bool
        let cards: [GameCardView]
        let last: Bool
    }

    let id: String
    let language: String
    /// The language of the events' text (the game's), for `lang`, and its direction: `rtl` for
    /// Arabic, else `auto`, so a question reads right inside a page of another language.
    let contentLang: String
    let contentDir: String
    let count: Int
    let bubbles: [AnswerBubble]
    let dateLong: String
    let fromArchive: Bool
    let ask: Ask?
    let reveal: Reveal?

    /// The verdict on question `reveal` (0-based) when it is answered, else the current question;
    /// nil when the game is over and nothing is revealed (the results page then).
    init?(_ record: GameSessionRecord, reveal revealed: Int?, localizer l: Localizer) {
        let session = record.session
        let wiki = ((try? GameLanguage(record.language)) ?? .english).wiki
        id = record.id
        language = record.language
        contentLang = record.language
        contentDir = record.language == "ar" ? "rtl" : "auto"
        count = session.questions.count
        bubbles = AnswerBubble.all(session, localizer: l)
        dateLong = l.format(record.date, .weekday)
        fromArchive = record.fromArchive
        func cards(_ question: GameQuestion, _ result: GameSession.AnswerResult?) -> [GameCardView] {
            [
                GameCardView(question.first, .first, result: result, wiki: wiki, localizer: l),
                GameCardView(question.second, .second, result: result, wiki: wiki, localizer: l),
            ]
        }
        func progress(_ index: Int) -> String {
            l("game.question.progress", ["number": .number(index + 1), "total": .number(session.questions.count)])
        }
        if let revealed, let result = session.result(for: revealed) {
            ask = nil
            reveal = Reveal(
                progress: progress(revealed), correct: result.correct,
                cards: cards(session.questions[revealed], result), last: session.isComplete)
        } else if let current = session.currentIndex {
            ask = Ask(index: current, progress: progress(current), cards: cards(session.questions[current], nil))
            reveal = nil
        } else {
            return nil
        }
    }
}

/// A finished game's score (`game-results.mustache`).
struct GameResultsPage: Equatable {
    struct Results: Equatable {
        /// "You got 3 of 5 right".
        let score: String
        let stats: GameStatsView
    }

    let id: String
    let language: String
    let count: Int
    let bubbles: [AnswerBubble]
    let dateLong: String
    let fromArchive: Bool
    let results: Results

    init(_ record: GameSessionRecord, stats: GameStats, localizer l: Localizer) {
        id = record.id
        language = record.language
        count = record.session.questions.count
        bubbles = AnswerBubble.all(record.session, localizer: l)
        dateLong = l.format(record.date, .weekday)
        fromArchive = record.fromArchive
        results = Results(
            score: l(
                "game.results.score",
                ["score": .number(record.session.score), "total": .number(record.session.questions.count)]),
            stats: GameStatsView(stats, localizer: l))
    }
}

/// A month of past games (`game-archive.mustache`).
struct GameArchivePage: Equatable {
    /// A calendar cell: a blank before the first, or a day in its state.
    struct Cell: Equatable {
        var blank = false
        /// The day of the month, in the reader's digits.
        var day = ""
        var date = ""
        /// What the day is and what it offers ("Monday, May 4, 2026: played, 3 of 5").
        var label = ""
        /// "3/5", once played.
        var score: String? = nil
        var id: String? = nil
        var played = false
        var inProgress = false
        var open = false
        var today = false
        var future = false
        var unavailable = false
        var tooOld = false

        init() { blank = true }

        init(_ archived: ArchiveDay, localizer l: Localizer) {
            day = l.render(.number(archived.date.day))
            date = archived.date.iso
            let total = Message.Argument.number(QuestionBuilder.questionsPerGame)
            // game.archive.day.played, .inProgress, .open, .today, .future, .unavailable, .tooOld
            label = l(
                "game.archive.day.\(archived.status.rawValue)",
                ["day": .day(archived.date, .weekday), "score": .number(archived.score ?? 0), "total": total])
            score = archived.score.map { l("game.archive.score", ["score": .number($0), "total": total]) }
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
    /// The legend's sample score ("3/5").
    let sampleScore: String
    let offline: Bool
    /// Only months the archive holds are linked ("2026-04").
    let previous: String?
    let next: String?

    init(_ archive: ArchiveMonth, language: GameLanguage, localizer l: Localizer) {
        month = l.format(archive.first, .month)
        self.language = language.code
        cells =
            Array(repeating: Cell(), count: archive.first.isoWeekday - 1)
            + archive.days.map { Cell($0, localizer: l) }
        // Monday to Sunday, as the reader's language shortens them.
        let monday = archive.first.adding(days: 1 - archive.first.isoWeekday)
        weekdays = (0..<7).map { l.format(monday.adding(days: $0), .weekdayShort) }
        sampleScore = l(
            "game.archive.score", ["score": .number(3), "total": .number(QuestionBuilder.questionsPerGame)])
        offline = archive.days.contains { $0.status == .unavailable }
        previous = archive.previous.map { String($0.iso.prefix(7)) }
        next = archive.next.map { String($0.iso.prefix(7)) }
    }
}
