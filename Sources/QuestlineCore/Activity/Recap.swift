import Foundation

/// A month or a year of a member's local days, as a recap covers it (`2026-11`, `2026`).
public enum RecapPeriod: Hashable, Sendable {
    case month(year: Int, month: Int)
    case year(Int)

    /// `YYYY-MM` or `YYYY`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        // Four digits, a year a `LocalDay` can hold (so `first` and `last` always exist).
        guard parts[0].count == 4, parts[0].allSatisfy(\.isASCII), let year = Int(parts[0]), (1...9999).contains(year)
        else { return nil }
        switch parts.count {
        case 1: self = .year(year)
        case 2:
            guard parts[1].count == 2, let month = Int(parts[1]), (1...12).contains(month) else { return nil }
            self = .month(year: year, month: month)
        default: return nil
        }
    }

    public var key: String {
        switch self {
        case .year(let year): String(format: "%04d", year)
        case .month(let year, let month): String(format: "%04d-%02d", year, month)
        }
    }

    public var first: LocalDay {
        switch self {
        case .year(let year): LocalDay(year: year, month: 1, day: 1)!
        case .month(let year, let month): LocalDay(year: year, month: month, day: 1)!
        }
    }

    public var last: LocalDay {
        switch self {
        case .year(let year): LocalDay(year: year, month: 12, day: 31)!
        case .month: first.lastOfMonth
        }
    }

    /// "November 2026", "2026", in the reader's language.
    public var title: Message {
        switch self {
        case .year(let year): Message("recap.period.year", ["year": .year(year)])
        case .month: Message("recap.period.month", ["month": .day(first, .month)])
        }
    }

    /// Over: the member's today is after its last day.
    public func isClosed(today: LocalDay) -> Bool { today > last }

    /// The month `today` is in.
    public static func month(of today: LocalDay) -> RecapPeriod { .month(year: today.year, month: today.month) }

    /// The period a member asks for: a month or a year that has begun (default: this month).
    public static func validated(_ text: String?, today: LocalDay) throws(DomainError) -> RecapPeriod {
        guard let text, !text.isEmpty else { return month(of: today) }
        guard let period = RecapPeriod(text), period.first.year >= 2001 else {
            throw .invalid(field: "period", Message("recap.error.periodShape"))
        }
        guard period.first <= today else {
            throw .invalid(field: "period", Message("recap.error.notBegun", ["period": .message(period.title)]))
        }
        return period
    }
}

/// What a member did in a period, in their local days: the year (or month) in review.
///
/// Reading minutes are the reading-time intervals (each counted at most an hour, as in
/// Activity); articles are the distinct articles opened; top articles are ranked by minutes
/// read, then by how often they were opened; the best streak is the longest run of the
/// period's days (`StreakWalk`: rest days, pauses and repairs count as everywhere); games:
/// "Which came first?" days played, the share of questions answered right, and the best run of
/// days in a row with a game. A child's part: learning minutes, quests completed, points earned
/// and spent, the most-used learning app. A percentile is given only when at least
/// `minimumCompared` members are compared.
public struct Recap: Sendable, Equatable {
    public struct Article: Sendable, Equatable {
        public let title: String
        public let minutes: Int
        public let opens: Int
    }

    public struct Child: Sendable, Equatable {
        public let learningMinutes: Int
        public let questsCompleted: Int
        public let pointsEarned: Int
        public let pointsSpent: Int
        public let topApp: String?

        public init(learningMinutes: Int, questsCompleted: Int, pointsEarned: Int, pointsSpent: Int, topApp: String?) {
            self.learningMinutes = learningMinutes
            self.questsCompleted = questsCompleted
            self.pointsEarned = pointsEarned
            self.pointsSpent = pointsSpent
            self.topApp = topApp
        }
    }

    /// One slide of the web page and the picture, in words of the reader's language.
    public struct Slide: Sendable, Equatable {
        public let title: Message
        public let figure: Message
        public let caption: Message
    }

    /// The members compared for the percentile: how many read less than this member, of how many.
    public struct Comparison: Sendable, Equatable {
        public let below: Int
        public let total: Int

        public init(below: Int, total: Int) {
            self.below = below
            self.total = total
        }
    }

    /// What the store reads for a period.
    public struct Facts: Sendable {
        /// Each open of an article: its key (language/id), title and local day.
        public var reads: [(article: String, title: String, day: LocalDay)] = []
        /// Each reading-time interval: the article it was spent on (when known), its seconds.
        public var intervals: [(article: String?, seconds: Int)] = []
        public var readDays: Set<LocalDay> = []
        public var repairDays: Set<LocalDay> = []
        public var allowances: StreakAllowances = .none
        public var saved = 0
        /// Each game played: its day, right answers and questions.
        public var games: [(day: LocalDay, correct: Int, questions: Int)] = []
        public var child: Child?

        public init() {}
    }

    public static let minimumCompared = 100
    public static let topArticles = 5

    public let period: RecapPeriod
    /// The period is over (a period still running shows "so far").
    public let closed: Bool
    /// Seconds of reading time (each interval at most an hour).
    public let readingSeconds: Int
    public var readingMinutes: Int { readingSeconds / 60 }
    public let articles: Int
    public let topArticles: [Article]
    public let bestStreak: Int
    public let saved: Int
    public let gamesPlayed: Int
    /// Right answers of all questions answered, in percent (nil without a game).
    public let accuracy: Int?
    public let bestGameRun: Int
    public let child: Child?
    /// The share of compared members who read fewer minutes, in percent (nil under 100 members).
    public let percentile: Int?

    public init(period: RecapPeriod, today: LocalDay, facts: Facts, comparison: Comparison?) {
        self.period = period
        closed = period.isClosed(today: today)
        let last = min(period.last, today)
        readingSeconds = facts.intervals.reduce(0) { $0 + min(max($1.seconds, 0), ReadingInterval.maxSeconds) }
        var opens: [String: (title: String, count: Int)] = [:]
        for read in facts.reads where read.day >= period.first && read.day <= last {
            opens[read.article, default: (read.title, 0)].count += 1
        }
        articles = opens.count
        var seconds: [String: Int] = [:]
        for interval in facts.intervals {
            guard let article = interval.article else { continue }
            seconds[article, default: 0] += min(max(interval.seconds, 0), ReadingInterval.maxSeconds)
        }
        topArticles =
            opens.map { key, value in
                Article(title: value.title, minutes: (seconds[key] ?? 0) / 60, opens: value.count)
            }
            .sorted { ($0.minutes, $0.opens, $1.title) > ($1.minutes, $1.opens, $0.title) }
            .prefix(Self.topArticles).map { $0 }
        bestStreak =
            StreakWalk(
                from: period.first, today: last, readDays: facts.readDays, repairDays: facts.repairDays,
                allowances: facts.allowances
            ).best
        saved = facts.saved
        let games = facts.games.filter { $0.day >= period.first && $0.day <= last }
        gamesPlayed = games.count
        let questions = games.reduce(0) { $0 + $1.questions }
        accuracy = questions == 0 ? nil : (games.reduce(0) { $0 + $1.correct } * 100 + questions / 2) / questions
        var run = 0
        var best = 0
        var previous: LocalDay?
        for day in Set(games.map(\.day)).sorted() {
            run = previous.map { $0.adding(days: 1) == day } == true ? run + 1 : 1
            best = max(best, run)
            previous = day
        }
        bestGameRun = best
        child = facts.child
        if let comparison, comparison.total >= Self.minimumCompared {
            percentile = comparison.below * 100 / comparison.total
        } else {
            percentile = nil
        }
    }

    /// The slides, in order: only those with something to show (a period without anything has
    /// one slide saying so).
    public var slides: [Slide] {
        var slides: [Slide] = []
        let span = Message.Argument.message(period.title)
        if readingSeconds > 0 || articles > 0 {
            var arguments: [String: Message.Argument] = [
                "articles": .message(.count(articles, .articles)), "period": span,
            ]
            let key: String
            if let percentile {
                arguments["percent"] = .percent(percentile)
                key = closed ? "recap.slide.read.captionPercentile" : "recap.slide.read.captionSoFarPercentile"
            } else {
                key = closed ? "recap.slide.read.caption" : "recap.slide.read.captionSoFar"
            }
            slides.append(
                Slide(
                    title: Message("recap.slide.read.title"), figure: .readingTime(seconds: readingSeconds),
                    caption: Message(key, arguments)))
        }
        if let top = topArticles.first {
            slides.append(
                Slide(
                    title: Message("recap.slide.topArticle.title"), figure: .plain(top.title),
                    caption: top.minutes > 0
                        ? Message(
                            "recap.slide.topArticle.caption",
                            [
                                "minutes": .message(.count(top.minutes, .minutes)),
                                "visits": .message(.count(top.opens, .visits)),
                            ])
                        : Message("recap.slide.topArticle.captionOpened", ["count": .number(top.opens)])))
        }
        if bestStreak > 0 {
            slides.append(
                Slide(
                    title: Message("recap.slide.streak.title"), figure: .count(bestStreak, .days),
                    caption: Message("recap.slide.streak.caption")))
        }
        if saved > 0 {
            slides.append(
                Slide(
                    title: Message("recap.slide.saved.title"), figure: .count(saved, .articles),
                    caption: Message("recap.slide.saved.caption")))
        }
        if gamesPlayed > 0 {
            slides.append(
                Slide(
                    title: Message("recap.slide.games.title"), figure: .count(gamesPlayed, .games),
                    caption: Message(
                        "recap.slide.games.caption",
                        ["accuracy": .percent(accuracy ?? 0), "run": .message(.count(bestGameRun, .days))])))
        }
        if let child, child.learningMinutes > 0 || child.questsCompleted > 0 || child.pointsEarned > 0 {
            slides.append(
                Slide(
                    title: Message("recap.slide.learned.title"), figure: .count(child.learningMinutes, .minutes),
                    caption: child.topApp.map { Message("recap.slide.learned.captionApp", ["app": .text($0)]) }
                        ?? Message("recap.slide.learned.caption")))
            slides.append(
                Slide(
                    title: Message("recap.slide.quests.title"),
                    figure: Message("recap.slide.number", ["number": .number(child.questsCompleted)]),
                    caption: Message(
                        "recap.slide.quests.caption",
                        ["earned": .message(.count(child.pointsEarned, .points)), "spent": .number(child.pointsSpent)]))
            )
        }
        if slides.isEmpty {
            slides.append(
                Slide(
                    title: period.title, figure: Message("recap.slide.empty.figure"),
                    caption: Message(
                        closed ? "recap.slide.empty.caption" : "recap.slide.empty.captionSoFar", ["period": span])))
        }
        return slides
    }
}
