import Foundation
import QuestlineCore
import SQLKit

enum StorySchema {
    static let migrations: [Migration] = [
        Migration(version: 500, name: "story_content") { flavor in
            [
                """
                CREATE TABLE story_content (
                    id TEXT PRIMARY KEY,
                    content TEXT NOT NULL,
                    imported_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE story_assets (
                    path TEXT PRIMARY KEY,
                    content_type TEXT NOT NULL,
                    bytes \(flavor == .postgres ? "BYTEA" : "BLOB") NOT NULL
                )
                """,
            ]
        },
    ]
}

/// A file the content ships (an image, a video), stored with the content.
public struct StoryAsset: Sendable, Equatable {
    public let path: String
    public let contentType: String
    public let bytes: [UInt8]

    public init(path: String, contentType: String, bytes: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.bytes = bytes
    }
}

/// Track stories: the content (one validated set, replaced as a whole by an import) and its
/// assets.
public struct StoryStore: Sendable {
    let database: Database

    public init(_ database: Database) { self.database = database }

    /// Replaces the content and every asset in one transaction: all of it, or nothing.
    public func replaceContent(_ content: StoryContent, assets: [StoryAsset], now: Date) async throws {
        let json = String(decoding: try JSONEncoder().encode(content), as: UTF8.self)
        try await database.transaction { db in
            try await db.raw("DELETE FROM story_assets").run()
            for asset in assets {
                try await db.raw("""
                    INSERT INTO story_assets (path, content_type, bytes) VALUES (\(bind: asset.path), \(bind: asset.contentType), \(bind: Data(asset.bytes)))
                    """).run()
            }
            try await db.raw("""
                INSERT INTO story_content (id, content, imported_at) VALUES ('current', \(bind: json), \(bind: now.storedMillis))
                ON CONFLICT (id) DO UPDATE SET content = excluded.content, imported_at = excluded.imported_at
                """).run()
        }
    }

    /// The current content, or nil before the first import.
    public func content() async throws -> (content: StoryContent, importedAt: Date)? {
        try await database.withConnection { db in
            guard let row = try await db.raw("SELECT content, imported_at FROM story_content WHERE id = 'current'").first() else { return nil }
            let content = try JSONDecoder().decode(StoryContent.self, from: Data(try row.decode(column: "content", as: String.self).utf8))
            return (content, Date(storedMillis: try row.decode(column: "imported_at", as: Int64.self)))
        }
    }

    public func asset(_ path: String) async throws -> StoryAsset? {
        try await database.withConnection { db in
            guard let row = try await db.raw("SELECT content_type, bytes FROM story_assets WHERE path = \(bind: path)").first() else { return nil }
            return StoryAsset(path: path, contentType: try row.decode(column: "content_type", as: String.self),
                              bytes: [UInt8](try row.decode(column: "bytes", as: Data.self)))
        }
    }

    public func assetCount() async throws -> Int {
        try await database.withConnection { db in
            Int(try await db.raw("SELECT COUNT(*) AS n FROM story_assets").first()?.decode(column: "n", as: Int64.self) ?? 0)
        }
    }
}
