public import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore
public import QuestlineStore

/// Whether a date has a game.
public enum GameAvailability: Sendable, Equatable {
    case available([GameQuestion])
    case notEnoughEvents
    case feedUnavailable(Message)
}

/// A month of the archive, with the months before and after it that the archive holds.
public struct ArchiveMonth: Sendable, Equatable {
    public let first: LocalDay
    public let days: [ArchiveDay]
    public let previous: LocalDay?
    public let next: LocalDay?
}

/// One day in the archive calendar.
public struct ArchiveDay: Sendable, Equatable {
    /// `unavailable`: Wikipedia cannot be reached and no feed of that day is kept.
    public enum Status: String, Sendable { case played, inProgress, open, today, future, tooOld, unavailable }
    public let date: LocalDay
    public let status: Status
    public let score: Int?
    /// The member's game of that day, when there is one.
    public var sessionID: String? = nil
}

/// What the game's first screen shows a member: today, their statistics, games left mid-play
/// on other days, today's game if started, else whether it can be played (and, when the feed
/// cannot be reached, the days that can).
public struct GameSplash: Sendable {
    public let today: LocalDay
    public let language: GameLanguage
    public let stats: GameStats
    public let unfinished: [GameSessionRecord]
    public let todays: GameSessionRecord?
    /// Nil when today's game is started.
    public let availability: GameAvailability?
    public let playable: [LocalDay]
}

/// "Which came first?" use cases: the day's game for a member's local date and language,
/// sessions fixed at start, answers in order, stats and the archive.
public struct GameFeature: Sendable {
    private let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    let fetcher: (any FeedFetching)?
    /// Wikipedia's page APIs: body images for cards whose pages have no lede image.
    let wiki: (any WikiFetching)?
    /// When fetching a feed last failed: for five minutes after, days without a kept feed are
    /// not offered (the archive never offers a day it cannot serve).
    let lastFetchFailure = NIOLockedValueBox<Date?>(nil)
    /// Real feeds bundled with the product (`Resources/onthisday/LANG-MM-DD.json`), so that a
    /// fresh install without a connection has games.
    static let bundled: [String: URL] = {
        let folder = Bundle.module.bundleURL.appendingPathComponent("Resources/onthisday")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return Dictionary(
            files.filter { $0.pathExtension == "json" }.map { ($0.deletingPathExtension().lastPathComponent, $0) },
            uniquingKeysWith: { first, _ in first })
    }()
    /// Live feeds are fetched again after this long; imported feeds are kept as they are.
    let refreshAfter: TimeInterval
    /// How far back the archive goes, in days before today.
    public static let archiveDays = 365

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        fetcher = configuration.feedFetcher
        wiki = configuration.wikiFetcher
        refreshAfter = 20 * 3600
    }

    /// At most this many events of a feed are looked up for a body image, four at a time.
    static let bodyImageEvents = 24

    /// Seed 004's last step for card images: an event none of whose pages has a lede image takes
    /// the first image found in its pages' bodies, asked in the pages' order. Done once, when a
    /// feed is fetched, and kept with it; an event whose pages cannot be asked (Wikipedia slow,
    /// rate limited or unreachable) keeps no image, as before.
    func withBodyImages(_ feed: OnThisDayFeed, language: GameLanguage) async -> OnThisDayFeed {
        guard let wiki else { return feed }
        let bare = feed.events.indices.filter { feed.events[$0].imageURL == nil && !feed.events[$0].pages.isEmpty }
            .prefix(Self.bodyImageEvents)
        var feed = feed
        let found = await withTaskGroup(of: (event: Int, page: Int, image: WikiImage)?.self) { group in
            var pending = bare.makeIterator()
            @Sendable func lookUp(_ event: Int, _ pages: [OnThisDayFeed.Page]) async -> (Int, Int, WikiImage)? {
                for (index, page) in pages.enumerated() where !page.title.isEmpty {
                    guard let image = try? await wiki.bodyImage(page.title, language: language.wiki) else { continue }
                    return (event, index, image)
                }
                return nil
            }
            for _ in 0..<4 {
                guard let event = pending.next() else { break }
                let pages = feed.events[event].pages
                group.addTask { await lookUp(event, pages) }
            }
            var found: [(event: Int, page: Int, image: WikiImage)] = []
            while let result = await group.next() {
                if let result { found.append(result) }
                if let event = pending.next() {
                    let pages = feed.events[event].pages
                    group.addTask { await lookUp(event, pages) }
                }
            }
            return found
        }
        for (event, page, image) in found {
            feed.events[event].pages[page].bodyImage = .init(
                source: image.source, width: image.width > 0 ? image.width : nil,
                height: image.height > 0 ? image.height : nil)
        }
        return feed
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
            throw .invalid(
                field: "date",
                Message("game.error.notOutYet", ["date": .day(date, .long), "today": .day(today, .long)]))
        }
        guard date.days(until: today) <= Self.archiveDays else {
            throw .invalid(
                field: "date",
                Message(
                    "game.error.archiveWindow",
                    [
                        "days": .message(.count(Self.archiveDays, .days)),
                        "oldest": .day(today.adding(days: -Self.archiveDays), .long),
                    ]))
        }
        return date
    }

    // MARK: Feeds

    static func bundleKey(_ language: GameLanguage, _ day: MonthDay) -> String {
        String(format: "%@-%02d-%02d", language.code, day.month, day.day)
    }

    /// The bundled feed of a language and calendar day, if the product ships one.
    func bundledFeed(language: GameLanguage, date: LocalDay) -> OnThisDayFeed? {
        Self.bundled[Self.bundleKey(language, MonthDay(date))].flatMap { try? Data(contentsOf: $0) }
            .flatMap { try? OnThisDayFeed.decode($0) }
    }

    /// Whether feeds can be fetched now: fetching is on and did not fail in the last 5 minutes.
    var canFetch: Bool {
        guard fetcher != nil else { return false }
        guard let failed = lastFetchFailure.withLockedValue({ $0 }) else { return true }
        return clock.now().timeIntervalSince(failed) > 300
    }

    /// What an end user is told when a day's feed cannot be had.
    static let needsConnection = Message("game.error.needsConnection")

    /// The feed for a language and calendar day: the cached copy when fresh or imported,
    /// otherwise fetched (and cached); when it cannot be fetched, a stale copy, else the
    /// bundled one.
    public func feed(language: GameLanguage, date: LocalDay) async throws -> OnThisDayFeed? {
        let cached = try await store.game.feed(language: language.code, month: date.month, day: date.day)
        if let cached, cached.source == "import" || clock.now().timeIntervalSince(cached.fetchedAt) < refreshAfter {
            return cached.feed
        }
        if let fetcher {
            do {
                switch try await fetcher.fetch(language: language, month: date.month, day: date.day) {
                case .feed(let fetched):
                    lastFetchFailure.withLockedValue { $0 = nil }
                    let feed = await withBodyImages(fetched, language: language)
                    try await store.game.saveFeed(
                        feed, language: language.code, month: date.month, day: date.day, source: "live",
                        now: clock.now())
                    return feed
                case .noData:
                    return nil
                }
            } catch is DomainError {
                lastFetchFailure.withLockedValue { $0 = clock.now() }
            }
        }
        if let cached { return cached.feed }
        if let bundled = bundledFeed(language: language, date: date) { return bundled }
        throw DomainError.unavailable(Self.needsConnection)
    }

    /// The calendar days whose feed is at hand without Wikipedia: kept (fetched or imported)
    /// or bundled.
    public func offlineDays(language: GameLanguage) async throws -> Set<MonthDay> {
        var days = try await store.game.feedDays(language: language.code)
        for key in Self.bundled.keys where key.hasPrefix(language.code + "-") {
            let parts = key.dropFirst(language.code.count + 1).split(separator: "-").compactMap { Int($0) }
            if parts.count == 2 { days.insert(MonthDay(month: parts[0], day: parts[1])) }
        }
        return days
    }

    /// Past days of the archive (newest first, at most `limit`) that can be played now and
    /// that the member has not started.
    public func playableDays(_ member: MemberRecord, language: GameLanguage, limit: Int) async throws -> [LocalDay] {
        let today = today(for: member)
        let offline = canFetch ? nil : try await offlineDays(language: language)
        let started = Set(
            try await store.game.sessions(
                member: member.id, language: language.code, from: today.adding(days: -Self.archiveDays),
                through: today
            ).map(\.date))
        var days: [LocalDay] = []
        var day = today.adding(days: -1)
        while days.count < limit, day >= today.adding(days: -Self.archiveDays) {
            if !started.contains(day), offline?.contains(MonthDay(day)) ?? true { days.append(day) }
            day = day.adding(days: -1)
        }
        return days
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
    public func start(_ member: MemberRecord, language: GameLanguage, date: LocalDay, scope: WriteScope) async throws
        -> (
            record: GameSessionRecord, created: Bool
        )
    {
        if let existing = try await store.game.session(member: member.id, language: language.code, date: date) {
            return (existing, false)
        }
        switch try await availability(language: language, date: date) {
        case .available(let questions):
            return try await store.game.startSession(
                id: ids.makeUUID().uuidString.lowercased(), member: member.id, language: language.code, date: date,
                fromArchive: date < today(for: member), session: GameSession(questions: questions), now: clock.now(),
                scope: scope)
        case .notEnoughEvents:
            throw DomainError.notFound(Message("game.error.notEnoughEvents", ["date": .day(date, .long)]))
        case .feedUnavailable(let reason):
            throw DomainError.unavailable(reason)
        }
    }

    /// A session of the member's own; anyone else's is not found.
    public func session(_ id: String, of member: MemberRecord) async throws -> GameSessionRecord {
        guard let uuid = UUID(uuidString: id),
            let record = try await store.game.session(id: uuid.uuidString.lowercased()),
            record.memberID == member.id
        else { throw DomainError.notFound(Message("game.error.noSuchGame")) }
        return record
    }

    public func answer(_ id: String, of member: MemberRecord, questionIndex: Int, choice: Choice, scope: WriteScope)
        async throws -> (
            GameSessionRecord, GameSession.AnswerResult
        )
    {
        let record = try await session(id, of: member)
        guard
            let answered = try await store.game.answer(
                sessionID: record.id, questionIndex, choice, now: clock.now(), scope: scope)
        else {
            throw DomainError.notFound(Message("game.error.noSuchGame"))
        }
        return answered
    }

    /// The splash screen's facts for `member` in `language` (`GameSplash`).
    public func splash(_ member: MemberRecord, language: GameLanguage) async throws -> GameSplash {
        let today = today(for: member)
        let todays = try await session(of: member, language: language, date: today)
        let availability = todays == nil ? try await self.availability(language: language, date: today) : nil
        var playable: [LocalDay] = []
        if case .feedUnavailable = availability {
            playable = try await playableDays(member, language: language, limit: 6)
        }
        return GameSplash(
            today: today, language: language, stats: try await stats(member, language: language),
            unfinished: try await unfinished(member, language: language).filter { $0.date != today },
            todays: todays, availability: availability, playable: playable)
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

    /// Games the member left mid-play in a language (the archive's last year), the most recently
    /// started first: what the splash offers to continue.
    public func unfinished(_ member: MemberRecord, language: GameLanguage, limit: Int = 3) async throws
        -> [GameSessionRecord]
    {
        let oldest = today(for: member).adding(days: -Self.archiveDays)
        return try await store.game.unfinishedSessions(member: member.id, language: language.code, limit: limit)
            .filter { $0.date >= oldest && !$0.session.isComplete }
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
                throw DomainError.invalid(
                    field: "month", Message("game.error.monthShape", ["example": .text("2026-02")]))
            }
            guard (oldestMonth...currentMonth).contains(day) else {
                // The months as the parameter spells them (`2026-02`).
                throw DomainError.invalid(
                    field: "month",
                    Message(
                        "game.error.archiveMonths",
                        [
                            "from": .text(String(oldestMonth.iso.prefix(7))),
                            "to": .text(String(currentMonth.iso.prefix(7))),
                        ]
                    ))
            }
            first = day
        } else {
            first = currentMonth
        }
        let end = first.lastOfMonth
        let sessions = try await store.game.sessions(
            member: member.id, language: language.code, from: first, through: end)
        let byDate = Dictionary(uniqueKeysWithValues: sessions.map { ($0.date, $0) })
        // Without Wikipedia, only the days whose feed is at hand are offered.
        let offline = canFetch ? nil : try await offlineDays(language: language)
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
            if let offline, !offline.contains(MonthDay(date)) {
                return ArchiveDay(date: date, status: .unavailable, score: nil)
            }
            return ArchiveDay(date: date, status: .open, score: nil)
        }
        return ArchiveMonth(
            first: first, days: days, previous: first > oldestMonth ? first.adding(days: -1).firstOfMonth : nil,
            next: first < currentMonth ? end.adding(days: 1) : nil)
    }

    /// Imports a feed file for a language and calendar day (offline and air-gapped use).
    public func importFeed(_ data: Data, language: GameLanguage, month: Int, day: Int) async throws -> Int {
        guard LocalDay(year: 2024, month: month, day: day) != nil else {
            throw DomainError.invalid(field: "date", Message("game.error.monthDay"))
        }
        let feed = try OnThisDayFeed.decode(data)
        try await store.game.saveFeed(
            feed, language: language.code, month: month, day: day, source: "import", now: clock.now())
        return feed.events.count
    }
}
