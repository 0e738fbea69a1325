public import Foundation
public import QuestlineCore
import SQLKit

enum GameSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "game_sessions", column: "member_id", export: (.game, "sessions"))
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 100, name: "daily_game",
            [
                """
                CREATE TABLE game_feeds (
                    language TEXT NOT NULL,
                    month BIGINT NOT NULL,
                    day BIGINT NOT NULL,
                    body TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('live', 'import')),
                    fetched_at BIGINT NOT NULL,
                    PRIMARY KEY (language, month, day)
                )
                """,
                """
                CREATE TABLE game_sessions (
                    id TEXT PRIMARY KEY,
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    language TEXT NOT NULL,
                    game_date TEXT NOT NULL,
                    from_archive BIGINT NOT NULL,
                    state TEXT NOT NULL,
                    score BIGINT NOT NULL,
                    started_at BIGINT NOT NULL,
                    completed_at BIGINT,
                    UNIQUE (member_id, language, game_date)
                )
                """,
                "CREATE INDEX game_sessions_by_member ON game_sessions (member_id, language, game_date)",
            ])
    ]
}

/// A cached "On this day" feed.
public struct CachedFeed: Sendable, Equatable {
    public let feed: OnThisDayFeed
    public let source: String
    public let fetchedAt: Date
}

/// A member's game for one date and language, as stored.
public struct GameSessionRecord: Sendable, Equatable {
    public let id: String
    public let memberID: MemberID
    public let language: String
    public let date: LocalDay
    public let fromArchive: Bool
    public let session: GameSession
    public let startedAt: Date
    public let completedAt: Date?
}

/// Feed cache and game sessions.
/// A calendar day without a year: a feed's day.
public struct MonthDay: Hashable, Sendable {
    public let month: Int
    public let day: Int
    public init(month: Int, day: Int) {
        self.month = month
        self.day = day
    }
    public init(_ date: LocalDay) { self.init(month: date.month, day: date.day) }
}

public struct GameStore: Sendable {
    let database: Database

    public init(_ database: Database) { self.database = database }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    // MARK: Feeds

    public func feed(language: String, month: Int, day: Int) async throws -> CachedFeed? {
        try await database.withConnection { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT body, source, fetched_at FROM game_feeds
                    WHERE language = \(bind: language) AND month = \(bind: month) AND day = \(bind: day)
                    """
                ).first()
            else { return nil }
            let body = try row.decode(column: "body", as: String.self)
            return CachedFeed(
                feed: try JSONDecoder().decode(OnThisDayFeed.self, from: Data(body.utf8)),
                source: try row.decode(column: "source", as: String.self),
                fetchedAt: Date(storedMillis: try row.decode(column: "fetched_at", as: Int64.self)))
        }
    }

    /// The calendar days (month, day) with a stored feed in a language.
    public func feedDays(language: String) async throws -> Set<MonthDay> {
        try await database.withConnection { db in
            Set(
                try await db.raw("SELECT month, day FROM game_feeds WHERE language = \(bind: language)").all().map {
                    MonthDay(
                        month: try $0.decode(column: "month", as: Int.self),
                        day: try $0.decode(column: "day", as: Int.self))
                })
        }
    }

    /// Stores (or replaces) the feed for a language and calendar day.
    public func saveFeed(_ feed: OnThisDayFeed, language: String, month: Int, day: Int, source: String, now: Date)
        async throws
    {
        let body = String(decoding: try Self.encoder.encode(feed), as: UTF8.self)
        try await database.transaction(.system) { db in
            try await db.raw(
                """
                INSERT INTO game_feeds (language, month, day, body, source, fetched_at)
                VALUES (\(bind: language), \(bind: month), \(bind: day), \(bind: body), \(bind: source), \(bind: now.storedMillis))
                ON CONFLICT (language, month, day) DO UPDATE SET
                    body = excluded.body, source = excluded.source, fetched_at = excluded.fetched_at
                """
            ).run()
        }
    }

    // MARK: Sessions

    private static let columns = "id, member_id, language, game_date, from_archive, state, started_at, completed_at"

    static func decode(_ row: any SQLRow) throws -> GameSessionRecord {
        let state = try row.decode(column: "state", as: String.self)
        return GameSessionRecord(
            id: try row.decode(column: "id", as: String.self),
            memberID: try row.decode(column: "member_id", as: MemberID.self),
            language: try row.decode(column: "language", as: String.self),
            date: try row.decode(column: "game_date", as: LocalDay.self),
            fromArchive: try row.decode(column: "from_archive", as: Int.self) != 0,
            session: try JSONDecoder().decode(GameSession.self, from: Data(state.utf8)),
            startedAt: Date(storedMillis: try row.decode(column: "started_at", as: Int64.self)),
            completedAt: try row.decode(column: "completed_at", as: Int64?.self).map(Date.init(storedMillis:)))
    }

    public func session(member: MemberID, language: String, date: LocalDay) async throws -> GameSessionRecord? {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM game_sessions
                WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND game_date = \(bind: date.iso)
                """
            ).first().map(Self.decode)
        }
    }

    public func session(id: String) async throws -> GameSessionRecord? {
        try await database.withConnection { db in
            try await db.raw("SELECT \(unsafeRaw: Self.columns) FROM game_sessions WHERE id = \(bind: id)").first().map(
                Self.decode)
        }
    }

    /// Starts a game, or returns the one already started for that member, language and date
    /// (its questions stay as they were at its start). `created` says which.
    public func startSession(
        id: String, member: MemberID, language: String, date: LocalDay, fromArchive: Bool,
        session: GameSession, now: Date, scope: WriteScope
    ) async throws -> (record: GameSessionRecord, created: Bool) {
        let state = String(decoding: try Self.encoder.encode(session), as: UTF8.self)
        return try await database.transaction(scope) { db in
            let inserted = try await db.raw(
                """
                INSERT INTO game_sessions (id, member_id, language, game_date, from_archive, state, score, started_at)
                VALUES (\(bind: id), \(bind: member.rawValue), \(bind: language), \(bind: date.iso), \(bind: fromArchive ? 1 : 0),
                        \(bind: state), 0, \(bind: now.storedMillis))
                ON CONFLICT (member_id, language, game_date) DO NOTHING
                RETURNING id
                """
            ).first()
            let record = try await db.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM game_sessions
                WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND game_date = \(bind: date.iso)
                """
            ).first().map(Self.decode).orNoRow("the game session just written")
            return (record, inserted != nil)
        }
    }

    /// Applies an answer in one transaction (the session row is locked on PostgreSQL; SQLite
    /// writers are serialized), so two devices answering at once cannot both count.
    public func answer(sessionID: String, _ index: Int, _ choice: Choice, now: Date, scope: WriteScope) async throws
        -> (
            GameSessionRecord, GameSession.AnswerResult
        )?
    {
        let lock = database.flavor == .postgres ? " FOR UPDATE" : ""
        return try await database.transaction(scope) { db in
            guard
                let record = try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.columns) FROM game_sessions WHERE id = \(bind: sessionID)\(unsafeRaw: lock)
                    """
                ).first().map(Self.decode)
            else { return nil }
            var session = record.session
            let result = try session.answer(index, choice)
            guard !result.repeated else { return (record, result) }
            let completedAt = session.isComplete ? now : nil
            try await db.raw(
                """
                UPDATE game_sessions SET state = \(bind: String(decoding: try Self.encoder.encode(session), as: UTF8.self)),
                    score = \(bind: session.score), completed_at = \(bind: completedAt?.storedMillis)
                WHERE id = \(bind: sessionID)
                """
            ).run()
            let updated = GameSessionRecord(
                id: record.id, memberID: record.memberID, language: record.language, date: record.date,
                fromArchive: record.fromArchive, session: session, startedAt: record.startedAt,
                completedAt: completedAt)
            return (updated, result)
        }
    }

    /// Finished games of a member in a language, for the stats.
    public func finishedGames(member: MemberID, language: String) async throws -> [PlayedGame] {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT game_date, score, from_archive FROM game_sessions
                WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND completed_at IS NOT NULL
                ORDER BY game_date
                """
            ).all().map { row in
                PlayedGame(
                    date: try row.decode(column: "game_date", as: LocalDay.self),
                    score: try row.decode(column: "score", as: Int.self),
                    fromArchive: try row.decode(column: "from_archive", as: Int.self) != 0)
            }
        }
    }

    /// The member's games not finished yet, in a language, the most recently started first.
    public func unfinishedSessions(member: MemberID, language: String, limit: Int) async throws -> [GameSessionRecord] {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM game_sessions
                WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND completed_at IS NULL
                ORDER BY started_at DESC LIMIT \(bind: limit)
                """
            ).all().map(Self.decode)
        }
    }

    /// The member's games between two dates (inclusive), for the archive calendar.
    public func sessions(member: MemberID, language: String, from: LocalDay, through: LocalDay) async throws
        -> [GameSessionRecord]
    {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM game_sessions
                WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language)
                  AND game_date >= \(bind: from.iso) AND game_date <= \(bind: through.iso)
                ORDER BY game_date
                """
            ).all().map(Self.decode)
        }
    }
}
