public import Foundation
public import QuestlineCore
import SQLKit

enum WikiSchema: StoreModule {
    static let migrations: [Migration] = [
        Migration(
            version: 820, name: "wiki_summaries",
            [
                """
                CREATE TABLE wiki_summaries (
                    language TEXT NOT NULL,
                    title_key TEXT NOT NULL,
                    body TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('wikipedia', 'import')),
                    fetched_at BIGINT NOT NULL,
                    PRIMARY KEY (language, title_key)
                )
                """,
                "CREATE INDEX wiki_summaries_by_source ON wiki_summaries (source, language)",
            ])
    ]
}

/// A summary as stored, with when it was read from Wikipedia (or imported).
public struct StoredSummary: Sendable, Equatable {
    public let summary: WikiSummary
    public let fetchedAt: Date
    /// Imported with `questline wiki-import`: part of the offline pack, never stale.
    public let imported: Bool
}

/// Wikipedia page summaries: those read from Wikipedia (a cache with a lifetime, shared by
/// every instance) and those imported into the offline pack.
public struct WikiStore: Sendable {
    let database: Database

    init(_ database: Database) { self.database = database }

    static func titleKey(_ title: String) -> String {
        title.replacingOccurrences(of: "_", with: " ").lowercased()
    }

    public func summary(_ title: String, language: String) async throws -> StoredSummary? {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT body, source, fetched_at FROM wiki_summaries
                WHERE language = \(bind: language) AND title_key = \(bind: Self.titleKey(title))
                """
            ).first().flatMap(Self.stored)
        }
    }

    static func stored(_ row: any SQLRow) throws -> StoredSummary? {
        let body = try row.decode(column: "body", as: String.self)
        guard let summary = try? JSONDecoder().decode(WikiSummary.self, from: Data(body.utf8)) else { return nil }
        return StoredSummary(
            summary: summary, fetchedAt: Date(storedMillis: try row.decode(column: "fetched_at", as: Int64.self)),
            imported: try row.decode(column: "source", as: String.self) == "import")
    }

    /// Keeps a summary read from Wikipedia (replacing an older copy, never an imported one),
    /// under its own title and, when Wikipedia answered for another one (a redirect), under
    /// the title asked for too.
    public func cache(_ summary: WikiSummary, asked: String? = nil, now: Date) async throws {
        let body = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
        let keys = Set(([summary.title] + (asked.map { [$0] } ?? [])).map(Self.titleKey))
        try await database.withConnection { db in
            for key in keys.sorted() {
                try await db.raw(
                    """
                    INSERT INTO wiki_summaries (language, title_key, body, source, fetched_at)
                    VALUES (\(bind: summary.language), \(bind: key), \(bind: body), 'wikipedia', \(bind: now.storedMillis))
                    ON CONFLICT (language, title_key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at
                    WHERE wiki_summaries.source = 'wikipedia'
                    """
                ).run()
            }
        }
    }

    /// Adds summaries to the offline pack, all in one transaction (replacing earlier copies).
    public func importPack(_ summaries: [WikiSummary], now: Date) async throws {
        let rows = try summaries.map { summary in
            (summary, String(decoding: try JSONEncoder().encode(summary), as: UTF8.self))
        }
        try await database.transaction(.system) { db in
            for (summary, body) in rows {
                try await db.raw(
                    """
                    INSERT INTO wiki_summaries (language, title_key, body, source, fetched_at)
                    VALUES (\(bind: summary.language), \(bind: Self.titleKey(summary.title)), \(bind: body), 'import', \(bind: now.storedMillis))
                    ON CONFLICT (language, title_key) DO UPDATE SET body = excluded.body, source = 'import',
                        fetched_at = excluded.fetched_at
                    """
                ).run()
            }
        }
    }

    /// Every imported summary (the part of the pack that is not bundled).
    public func imported() async throws -> [WikiSummary] {
        try await database.withConnection { db in
            try await db.raw(
                "SELECT body, source, fetched_at FROM wiki_summaries WHERE source = 'import' ORDER BY language, title_key"
            ).all().compactMap { try Self.stored($0)?.summary }
        }
    }
}
