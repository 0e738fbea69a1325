public import Foundation
public import QuestlineCore
public import QuestlineStore

/// Whether a date has a game.
public enum GameAvailability: Sendable, Equatable {
    case available([GameQuestion])
    case notEnoughEvents
    case feedUnavailable(String)
}

/// One day in the archive calendar.
/// A month of the archive, with the months before and after it that the archive holds.
public struct ArchiveMonth: Sendable, Equatable {
    public let first: LocalDay
    public let days: [ArchiveDay]
    public let previous: LocalDay?
    public let next: LocalDay?
}

public struct ArchiveDay: Sendable, Equatable {
    public enum Status: String, Sendable { case played, inProgress, open, today, future, tooOld }
    public let date: LocalDay
    public let status: Status
    public let score: Int?
    /// The member's game of that day, when there is one.
    public var sessionID: String? = nil
}

/// "Which came first?" use cases: the day's game for a member's local date and language,
/// sessions fixed at start, answers in order, stats and the archive.
public struct GameFeature: Sendable {
    private let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    let fetcher: (any FeedFetching)?
    /// Live feeds are fetched again after this long; imported feeds are kept as they are.
    let refreshAfter: TimeInterval
    /// How far back the archive goes, in days before today.
    public static let archiveDays = 365

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        fetcher = configuration.feedFetcher
        refreshAfter = 20 * 3600
    }

    /// The member's local date now.
    public func today(for member: MemberRecord) -> LocalDay {
        clock.today(in: member.zone)
    }

    /// Parses and checks a requested date: today, or a past day within the archive window.
    public func gameDate(_ raw: String?, for member: MemberRecord) throws(DomainError) -> LocalDay {
        let today = today(for: member)
        guard let raw, !raw.isEmpty else { return today }
        let date = try DateWindow.day(raw, field: "date", example: "2026-02-06")
        guard date <= today else {
            throw .invalid(field: "date", "The game for \(date.iso) is not out yet; today is \(today.iso).")
        }
        guard date.days(until: today) <= Self.archiveDays else {
            throw .invalid(
                field: "date",
                "The archive goes back \(Self.archiveDays) days, to \(today.adding(days: -Self.archiveDays).iso).")
        }
        return date
    }

    // MARK: Feeds

    /// The feed for a language and calendar day: the cached copy when fresh or imported,
    /// otherwise fetched (and cached); a stale copy is used when the feed is unreachable.
    public func feed(language: GameLanguage, date: LocalDay) async throws -> OnThisDayFeed? {
        let cached = try await store.game.feed(language: language.code, month: date.month, day: date.day)
        if let cached, cached.source == "import" || clock.now().timeIntervalSince(cached.fetchedAt) < refreshAfter {
            return cached.feed
        }
        guard let fetcher else {
            if let cached { return cached.feed }
            throw DomainError.unavailable(
                "No \"On this day\" feed is stored for \(date.month)/\(date.day) and fetching is turned off (import one with `questline game-import`)."
            )
        }
        do {
            switch try await fetcher.fetch(language: language, month: date.month, day: date.day) {
            case .feed(let feed):
                try await store.game.saveFeed(
                    feed, language: language.code, month: date.month, day: date.day, source: "live", now: clock.now())
                return feed
            case .noData:
                return nil
            }
        } catch let error as DomainError {
            if let cached { return cached.feed }
            throw error
        }
    }

    public func availability(language: GameLanguage, date: LocalDay) async throws -> GameAvailability {
        let feed: OnThisDayFeed?
        do { feed = try await self.feed(language: language, date: date) } catch DomainError.unavailable(let reason) {
            return .feedUnavailable(reason)
        }
        guard let feed else { return .notEnoughEvents }
        switch QuestionBuilder.build(feed, date: date) {
        case .questions(let questions): return .available(questions)
        case .notEnoughEvents: return .notEnoughEvents
        }
    }

    // MARK: Sessions

    /// Starts the game for a date, or resumes the one already started.
    public func start(_ member: MemberRecord, language: GameLanguage, date: LocalDay) async throws -> (
        record: GameSessionRecord, created: Bool
    ) {
        if let existing = try await store.game.session(member: member.id, language: language.code, date: date) {
            return (existing, false)
        }
        switch try await availability(language: language, date: date) {
        case .available(let questions):
            return try await store.game.startSession(
                id: ids.makeUUID().uuidString.lowercased(), member: member.id, language: language.code, date: date,
                fromArchive: date < today(for: member), session: GameSession(questions: questions), now: clock.now())
        case .notEnoughEvents:
            throw DomainError.notFound(
                "Today's game isn't available for \(date.iso): there are not enough events. Try the archive.")
        case .feedUnavailable(let reason):
            throw DomainError.unavailable(reason)
        }
    }

    /// A session of the member's own; anyone else's is not found.
    public func session(_ id: String, of member: MemberRecord) async throws -> GameSessionRecord {
        guard let uuid = UUID(uuidString: id),
            let record = try await store.game.session(id: uuid.uuidString.lowercased()),
            record.memberID == member.id
        else { throw DomainError.notFound("No such game.") }
        return record
    }

    public func answer(_ id: String, of member: MemberRecord, questionIndex: Int, choice: Choice) async throws -> (
        GameSessionRecord, GameSession.AnswerResult
    ) {
        let record = try await session(id, of: member)
        guard let answered = try await store.game.answer(sessionID: record.id, questionIndex, choice, now: clock.now())
        else {
            throw DomainError.notFound("No such game.")
        }
        return answered
    }

    public func stats(_ member: MemberRecord, language: GameLanguage) async throws -> GameStats {
        GameStats(
            games: try await store.game.finishedGames(member: member.id, language: language.code),
            today: today(for: member))
    }

    /// The member's game of a day in a language, if they started one.
    public func session(of member: MemberRecord, language: GameLanguage, date: LocalDay) async throws
        -> GameSessionRecord?
    {
        try await store.game.session(member: member.id, language: language.code, date: date)
    }

    /// Every day of a month with what the member can do with it. Only the months that hold a day
    /// of the archive exist (the last `archiveDays` days); another month is refused naming `month`.
    public func archive(_ member: MemberRecord, language: GameLanguage, month: String?) async throws -> ArchiveMonth {
        let today = today(for: member)
        let oldestMonth = today.adding(days: -Self.archiveDays).firstOfMonth
        let currentMonth = today.firstOfMonth
        let first: LocalDay
        if let month, !month.isEmpty {
            guard let day = LocalDay(iso: month + "-01") else {
                throw DomainError.invalid(field: "month", "Use a month like 2026-02.")
            }
            guard (oldestMonth...currentMonth).contains(day) else {
                throw DomainError.invalid(
                    field: "month", "The archive covers \(oldestMonth.iso.prefix(7)) to \(currentMonth.iso.prefix(7)).")
            }
            first = day
        } else {
            first = currentMonth
        }
        let end = first.lastOfMonth
        let sessions = try await store.game.sessions(
            member: member.id, language: language.code, from: first, through: end)
        let byDate = Dictionary(uniqueKeysWithValues: sessions.map { ($0.date, $0) })
        let oldest = today.adding(days: -Self.archiveDays)
        let days = (0...first.days(until: end)).map { offset -> ArchiveDay in
            let date = first.adding(days: offset)
            if let session = byDate[date] {
                return ArchiveDay(
                    date: date, status: session.session.isComplete ? .played : .inProgress,
                    score: session.session.isComplete ? session.session.score : nil, sessionID: session.id)
            }
            if date > today { return ArchiveDay(date: date, status: .future, score: nil) }
            if date == today { return ArchiveDay(date: date, status: .today, score: nil) }
            if date < oldest { return ArchiveDay(date: date, status: .tooOld, score: nil) }
            return ArchiveDay(date: date, status: .open, score: nil)
        }
        return ArchiveMonth(
            first: first, days: days, previous: first > oldestMonth ? first.adding(days: -1).firstOfMonth : nil,
            next: first < currentMonth ? end.adding(days: 1) : nil)
    }

    /// Imports a feed file for a language and calendar day (offline and air-gapped use).
    public func importFeed(_ data: Data, language: GameLanguage, month: Int, day: Int) async throws -> Int {
        guard LocalDay(year: 2024, month: month, day: day) != nil else {
            throw DomainError.invalid(field: "date", "Use a real month and day, like 02-29 or 10-30.")
        }
        let feed = try OnThisDayFeed.decode(data)
        try await store.game.saveFeed(
            feed, language: language.code, month: month, day: day, source: "import", now: clock.now())
        return feed.events.count
    }
}
