public import Foundation
public import QuestlineCore
import SQLKit

enum ActivitySchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(
            table: "reading_intervals", column: "owner", export: (.reading, "readingTime"), withoutForeignKey: true),
        PersonalData.Holding(table: "saved_articles", column: "member_id", export: (.saved, "articles")),
        PersonalData.Holding(table: "saved_import_batches", column: "member_id", export: (.saved, "imports")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 300, name: "activity",
            [
                """
                CREATE TABLE saved_articles (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    language TEXT NOT NULL,
                    title TEXT NOT NULL,
                    list_name TEXT NOT NULL,
                    saved_at BIGINT NOT NULL,
                    thumbnail_url TEXT,
                    source TEXT NOT NULL CHECK (source IN ('app', 'import')),
                    PRIMARY KEY (member_id, language, title, list_name)
                )
                """,
                "CREATE INDEX saved_articles_by_member_time ON saved_articles (member_id, saved_at)",
                """
                CREATE TABLE reading_intervals (
                    owner TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    started_at BIGINT NOT NULL,
                    seconds BIGINT NOT NULL,
                    local_day TEXT NOT NULL,
                    PRIMARY KEY (owner, event_id)
                )
                """,
                "CREATE INDEX reading_intervals_by_owner_day ON reading_intervals (owner, local_day)",
                """
                CREATE TABLE saved_import_batches (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    import_id TEXT NOT NULL,
                    batch_start BIGINT NOT NULL,
                    items BIGINT NOT NULL,
                    imported BIGINT NOT NULL,
                    total BIGINT NOT NULL,
                    committed_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, import_id, batch_start)
                )
                """,
            ])
    ]
}

/// A saved article with the lists it is in.
public struct SavedArticle: Sendable, Equatable {
    public let language: String
    public let title: String
    /// Reading lists; "" is the default Saved list.
    public let lists: [String]
    public let savedAt: Date
    public let thumbnailURL: String?
}

/// An item to import: validated, with the instant it will be recorded at.
public struct ImportItem: Sendable, Equatable {
    public let language: String
    public let title: String
    public let list: String
    public let savedAt: Date

    public init(language: String, title: String, list: String, savedAt: Date) {
        self.language = language
        self.title = title
        self.list = list
        self.savedAt = savedAt
    }
}

public struct ImportOutcome: Sendable, Equatable {
    /// Items written by this batch (0 when the batch had been committed before).
    public let imported: Int
    public let alreadyCommitted: Bool
    /// Items committed for this import so far, over all its batches.
    public let done: Int
    public let total: Int

    public init(imported: Int, alreadyCommitted: Bool, done: Int, total: Int) {
        self.imported = imported
        self.alreadyCommitted = alreadyCommitted
        self.done = done
        self.total = total
    }
}

/// Saved articles, reading intervals and imports of saved history.
public struct ActivityStore: Sendable {
    let database: Database

    public init(_ database: Database) { self.database = database }

    /// Saves an article in a list ("" = Saved). Saving what is already there changes nothing.
    public func save(
        _ member: MemberID, language: String, title: String, list: String, thumbnailURL: String?, at: Date,
        scope: WriteScope
    )
        async throws -> Bool
    {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO saved_articles (member_id, language, title, list_name, saved_at, thumbnail_url, source)
                VALUES (\(bind: member.rawValue), \(bind: language), \(bind: title), \(bind: list), \(bind: at.storedMillis), \(bind: thumbnailURL), 'app')
                ON CONFLICT (member_id, language, title, list_name) DO NOTHING
                RETURNING title
                """
            ).first() != nil
        }
    }

    /// Whether the member has saved the article in any list.
    public func isSaved(_ member: MemberID, language: String, title: String) async throws -> Bool {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT title FROM saved_articles
                WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND title = \(bind: title)
                LIMIT 1
                """
            ).first() != nil
        }
    }

    /// Removes an article from one list, or from every list when `list` is nil. Returns how many entries went.
    public func unsave(_ member: MemberID, language: String, title: String, list: String?, scope: WriteScope)
        async throws -> Int
    {
        try await database.transaction(scope) { db in
            var sql: SQLQueryString = """
                DELETE FROM saved_articles WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND title = \(bind: title)
                """
            if let list { sql += " AND list_name = \(bind: list)" }
            sql += " RETURNING title"
            let query = sql
            return try await db.raw(query).all().count
        }
    }

    /// Entries saved since `since`, plus the `newest` most recent ones (for the last-saved
    /// date and the thumbnails): what the Saved module needs, never the whole history.
    public func savedEntries(_ member: MemberID, since: Date, newest: Int) async throws -> [SavedEntry] {
        try await database.withConnection { db in
            let recent = try await db.raw(
                """
                SELECT language, title, saved_at, thumbnail_url FROM saved_articles
                WHERE member_id = \(bind: member.rawValue) AND saved_at >= \(bind: since.storedMillis)
                """
            ).all()
            let latest = try await db.raw(
                """
                SELECT language, title, saved_at, thumbnail_url FROM saved_articles
                WHERE member_id = \(bind: member.rawValue) ORDER BY saved_at DESC LIMIT \(bind: newest)
                """
            ).all()
            var seen = Set<String>()
            return try (recent + latest).compactMap { row in
                let key =
                    try row.decode(column: "language", as: String.self) + "/"
                    + row.decode(column: "title", as: String.self)
                let savedAt = try row.decode(column: "saved_at", as: Int64.self)
                guard seen.insert(key + "#\(savedAt)").inserted else { return nil }
                return SavedEntry(
                    articleKey: key, savedAt: Date(storedMillis: savedAt),
                    thumbnailURL: try row.decode(column: "thumbnail_url", as: String?.self))
            }
        }
    }

    /// The saved list, newest first, one row per article with its lists.
    public func savedArticles(_ member: MemberID, limit: Int, offset: Int) async throws -> [SavedArticle] {
        try await database.withConnection { db in
            let keys = try await db.raw(
                """
                SELECT language, title, MAX(saved_at) AS saved_at FROM saved_articles WHERE member_id = \(bind: member.rawValue)
                GROUP BY language, title ORDER BY saved_at DESC, title LIMIT \(bind: limit) OFFSET \(bind: offset)
                """
            ).all()
            var articles: [SavedArticle] = []
            for key in keys {
                let language = try key.decode(column: "language", as: String.self)
                let title = try key.decode(column: "title", as: String.self)
                let rows = try await db.raw(
                    """
                    SELECT list_name, thumbnail_url FROM saved_articles
                    WHERE member_id = \(bind: member.rawValue) AND language = \(bind: language) AND title = \(bind: title) ORDER BY list_name
                    """
                ).all()
                articles.append(
                    SavedArticle(
                        language: language, title: title,
                        lists: try rows.map { try $0.decode(column: "list_name", as: String.self) },
                        savedAt: Date(storedMillis: try key.decode(column: "saved_at", as: Int64.self)),
                        thumbnailURL: try rows.compactMap { try $0.decode(column: "thumbnail_url", as: String?.self) }
                            .first))
            }
            return articles
        }
    }

    public func savedCount(_ member: MemberID) async throws -> Int {
        try await database.withConnection { db in
            try await db.raw("SELECT COUNT(*) AS n FROM saved_articles WHERE member_id = \(bind: member.rawValue)")
                .first().orNoRow("a count").decode(column: "n", as: Int.self)
        }
    }

    // MARK: Reading time and reads

    public func recordIntervals(
        _ owner: ReadOwner,
        _ intervals: [(eventID: String, start: Date, seconds: Int, day: LocalDay, article: String?)], scope: WriteScope
    ) async throws -> Int {
        try await database.transaction(scope) { db in
            var recorded = 0
            for interval in intervals {
                let inserted = try await db.raw(
                    """
                    INSERT INTO reading_intervals (owner, event_id, started_at, seconds, local_day, article_id)
                    VALUES (\(bind: owner.key), \(bind: interval.eventID), \(bind: interval.start.storedMillis), \(bind: interval.seconds), \(bind: interval.day.iso), \(bind: interval.article))
                    ON CONFLICT (owner, event_id) DO NOTHING RETURNING event_id
                    """
                ).first()
                if inserted != nil { recorded += 1 }
            }
            return recorded
        }
    }

    public func intervals(_ owner: ReadOwner, from: LocalDay) async throws -> [ReadingInterval] {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT local_day, seconds FROM reading_intervals WHERE owner = \(bind: owner.key) AND local_day >= \(bind: from.iso)
                """
            ).all().map {
                ReadingInterval(
                    localDay: try $0.decode(column: "local_day", as: LocalDay.self),
                    seconds: try $0.decode(column: "seconds", as: Int.self))
            }
        }
    }

    /// Reads since an instant: (article, local day).
    public func reads(_ owner: ReadOwner, since: Date) async throws -> [(article: String, day: LocalDay)] {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT article_id, language, local_day FROM reading_events WHERE owner = \(bind: owner.key) AND read_at >= \(bind: since.storedMillis)
                """
            ).all().map { row in
                (
                    try row.decode(column: "language", as: String.self) + "/"
                        + row.decode(column: "article_id", as: String.self),
                    try row.decode(column: "local_day", as: LocalDay.self)
                )
            }
        }
    }

    // MARK: Import

    /// Commits one batch of an import in one transaction: its items (each once: an article
    /// already saved in that list is left as it is) and the batch's record. Sending a
    /// committed batch again changes nothing and says so.
    public func importBatch(
        _ member: MemberID, importID: String, batchStart: Int, total: Int, items: [ImportItem], batchSize: Int,
        now: Date, scope: WriteScope
    ) async throws -> ImportOutcome {
        try await database.transaction(scope) { db in
            let existing = try await db.raw(
                """
                SELECT imported FROM saved_import_batches
                WHERE member_id = \(bind: member.rawValue) AND import_id = \(bind: importID) AND batch_start = \(bind: batchStart)
                """
            ).first()
            var imported = 0
            if existing == nil {
                for item in items {
                    let inserted = try await db.raw(
                        """
                        INSERT INTO saved_articles (member_id, language, title, list_name, saved_at, source)
                        VALUES (\(bind: member.rawValue), \(bind: item.language), \(bind: item.title), \(bind: item.list), \(bind: item.savedAt.storedMillis), 'import')
                        ON CONFLICT (member_id, language, title, list_name) DO NOTHING RETURNING title
                        """
                    ).first()
                    if inserted != nil { imported += 1 }
                }
                try await db.raw(
                    """
                    INSERT INTO saved_import_batches (member_id, import_id, batch_start, items, imported, total, committed_at)
                    VALUES (\(bind: member.rawValue), \(bind: importID), \(bind: batchStart), \(bind: batchSize), \(bind: imported), \(bind: total), \(bind: now.storedMillis))
                    """
                ).run()
            }
            let done = try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(items), 0) AS BIGINT) AS done FROM saved_import_batches WHERE member_id = \(bind: member.rawValue) AND import_id = \(bind: importID)
                """
            ).first().orNoRow("a count").decode(column: "done", as: Int.self)
            return ImportOutcome(imported: imported, alreadyCommitted: existing != nil, done: done, total: total)
        }
    }
}
