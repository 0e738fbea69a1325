public import Foundation
public import QuestlineCore
import SQLKit

enum StorySchema: StoreModule {
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
        }
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
    let live: LiveEventLog

    init(_ database: Database, live: LiveEventLog) {
        self.database = database
        self.live = live
    }

    /// Replaces the content and every asset in one transaction: all of it, or nothing.
    public func replaceContent(_ content: StoryContent, assets: [StoryAsset], now: Date) async throws {
        let json = String(decoding: try JSONEncoder().encode(content), as: UTF8.self)
        try await database.transaction(.system) { db in
            try await db.raw("DELETE FROM story_assets").run()
            for asset in assets {
                try await db.raw(
                    """
                    INSERT INTO story_assets (path, content_type, bytes) VALUES (\(bind: asset.path), \(bind: asset.contentType), \(bind: Data(asset.bytes)))
                    """
                ).run()
            }
            try await db.raw(
                """
                INSERT INTO story_content (id, content, imported_at) VALUES ('current', \(bind: json), \(bind: now.storedMillis))
                ON CONFLICT (id) DO UPDATE SET content = excluded.content, imported_at = excluded.imported_at
                """
            ).run()
        }
    }

    /// The current content, or nil before the first import.
    public func content() async throws -> (content: StoryContent, importedAt: Date)? {
        try await database.withConnection { db in
            guard
                let row = try await db.raw("SELECT content, imported_at FROM story_content WHERE id = 'current'")
                    .first()
            else { return nil }
            let content = try JSONDecoder().decode(
                StoryContent.self, from: Data(try row.decode(column: "content", as: String.self).utf8))
            return (content, Date(storedMillis: try row.decode(column: "imported_at", as: Int64.self)))
        }
    }

    public func asset(_ path: String) async throws -> StoryAsset? {
        try await database.withConnection { db in
            guard
                let row = try await db.raw("SELECT content_type, bytes FROM story_assets WHERE path = \(bind: path)")
                    .first()
            else { return nil }
            return StoryAsset(
                path: path, contentType: try row.decode(column: "content_type", as: String.self),
                bytes: [UInt8](try row.decode(column: "bytes", as: Data.self)))
        }
    }

    public func assetCount() async throws -> Int {
        try await database.withConnection { db in
            Int(
                try await db.raw("SELECT COUNT(*) AS n FROM story_assets").first()?.decode(column: "n", as: Int64.self)
                    ?? 0)
        }
    }
}

enum StoryMemberSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "member_details", column: "member_id", export: (.profile, "details")),
        PersonalData.Holding(table: "member_images", column: "member_id", export: (.profile, "images")),
        PersonalData.Holding(table: "story_preferences", column: "member_id", export: (.stories, "preferences")),
        PersonalData.Holding(table: "story_progress", column: "member_id", export: (.stories, "progress")),
        PersonalData.Holding(table: "story_chapters_read", column: "member_id", export: (.stories, "chaptersRead")),
        PersonalData.Holding(table: "story_bookmarks", column: "member_id", export: (.stories, "bookmarks")),
        PersonalData.Holding(table: "story_comments", column: "member_id", export: (.stories, "comments")),
        PersonalData.Holding(table: "story_collected", column: "member_id", export: (.stories, "collected")),
        PersonalData.Holding(table: "story_cards_owned", column: "member_id", export: (.stories, "cards")),
        PersonalData.Holding(table: "story_tasks_done", column: "member_id", export: (.stories, "tasks")),
    ]

    static let migrations: [Migration] = [
        Migration(version: 501, name: "story_members") { flavor in
            let blob = flavor == .postgres ? "BYTEA" : "BLOB"
            return [
                """
                CREATE TABLE story_preferences (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    onboarded BIGINT NOT NULL,
                    skipped BIGINT NOT NULL,
                    states TEXT NOT NULL,
                    tracks TEXT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE story_progress (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    story_id TEXT NOT NULL,
                    chapter_index BIGINT NOT NULL,
                    page_index BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, story_id)
                )
                """,
                """
                CREATE TABLE story_chapters_read (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    story_id TEXT NOT NULL,
                    chapter_id TEXT NOT NULL,
                    read_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, story_id, chapter_id)
                )
                """,
                """
                CREATE TABLE story_bookmarks (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    story_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, story_id)
                )
                """,
                """
                CREATE TABLE story_comments (
                    id TEXT PRIMARY KEY,
                    story_id TEXT NOT NULL,
                    chapter_id TEXT NOT NULL,
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    seq BIGINT NOT NULL
                )
                """,
                "CREATE INDEX story_comments_by_chapter ON story_comments (story_id, chapter_id, seq)",
                """
                CREATE TABLE member_images (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    bytes \(blob) NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, kind)
                )
                """,
                """
                CREATE TABLE story_collected (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    story_id TEXT NOT NULL,
                    collected_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, story_id)
                )
                """,
                """
                CREATE TABLE story_cards_owned (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    card_id TEXT NOT NULL,
                    copies BIGINT NOT NULL,
                    first_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, card_id)
                )
                """,
                """
                CREATE TABLE story_badges_awarded (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    badge_id TEXT NOT NULL,
                    awarded_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, badge_id)
                )
                """,
                """
                CREATE TABLE story_tasks_done (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    task_id TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    done_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, task_id, local_day)
                )
                """,
                """
                CREATE TABLE member_details (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    location TEXT NOT NULL,
                    favourite_track TEXT NOT NULL,
                    bio TEXT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
            ]
        }
    ]
}

/// A member's story preferences.
public struct StoryPreferences: Sendable, Equatable {
    public var onboarded: Bool
    public var skipped: Bool
    public var states: [String]
    public var tracks: [String]

    public init(onboarded: Bool, skipped: Bool, states: [String], tracks: [String]) {
        self.onboarded = onboarded
        self.skipped = skipped
        self.states = states
        self.tracks = tracks
    }

    public static let none = StoryPreferences(onboarded: false, skipped: false, states: [], tracks: [])
    /// Chosen or skipped: the pre-story carousel is done.
    public var chosen: Bool { skipped || (!states.isEmpty && !tracks.isEmpty) }
}

public struct StoryComment: Sendable, Equatable {
    public let id: String
    public let storyID: String
    public let chapterID: String
    public let memberID: MemberID
    public let authorName: String
    public let body: String
    public let createdAt: Date
}

public struct MemberImage: Sendable, Equatable {
    public let contentType: String
    public let bytes: [UInt8]
    public let createdAt: Date
}

public struct MemberDetails: Sendable, Equatable {
    public var location: String
    public var favouriteTrack: String
    public var bio: String

    public init(location: String, favouriteTrack: String, bio: String) {
        self.location = location
        self.favouriteTrack = favouriteTrack
        self.bio = bio
    }

    public static let empty = MemberDetails(location: "", favouriteTrack: "", bio: "")
}

/// What a member has done with the stories: the figures achievements and screens need.
public struct StoryActivity: Sendable {
    public var progress: [String: (chapter: Int, page: Int)] = [:]
    public var bookmarks: Set<String> = []
    public var selfies: Set<String> = []
    public var collected: Set<String> = []
    public var cards: [String: Int] = [:]
    public var badges: [String: Date] = [:]
    public var chaptersRead = 0
    public var comments = 0
    public var tasksDone = 0
}

/// A member's side of the stories, on one connection (in a transaction when from `write`).
public struct StoryMemberQueries: Sendable {
    let db: any SQLDatabase
    /// Announces household events with the write (nil when reading).
    public let live: LiveAnnouncer?

    public var points: PointsLedger { PointsLedger(db: db, events: live) }

    public func preferences(_ member: MemberID) async throws -> StoryPreferences {
        guard
            let row = try await db.raw(
                """
                SELECT onboarded, skipped, states, tracks FROM story_preferences WHERE member_id = \(bind: member.rawValue)
                """
            ).first()
        else { return .none }
        func list(_ column: String) throws -> [String] {
            (try? JSONDecoder().decode([String].self, from: Data(try row.decode(column: column, as: String.self).utf8)))
                ?? []
        }
        return StoryPreferences(
            onboarded: try row.decode(column: "onboarded", as: Int64.self) != 0,
            skipped: try row.decode(column: "skipped", as: Int64.self) != 0, states: try list("states"),
            tracks: try list("tracks"))
    }

    public func setPreferences(_ member: MemberID, _ preferences: StoryPreferences, now: Date) async throws {
        let states = String(decoding: try JSONEncoder().encode(preferences.states), as: UTF8.self)
        let tracks = String(decoding: try JSONEncoder().encode(preferences.tracks), as: UTF8.self)
        try await db.raw(
            """
            INSERT INTO story_preferences (member_id, onboarded, skipped, states, tracks, updated_at)
            VALUES (\(bind: member.rawValue), \(bind: Int64(preferences.onboarded ? 1 : 0)), \(bind: Int64(preferences.skipped ? 1 : 0)),
                    \(bind: states), \(bind: tracks), \(bind: now.storedMillis))
            ON CONFLICT (member_id) DO UPDATE SET onboarded = excluded.onboarded, skipped = excluded.skipped, states = excluded.states,
                tracks = excluded.tracks, updated_at = excluded.updated_at
            """
        ).run()
    }

    /// Records the page reached (the furthest is kept) and, on a chapter's last page, that
    /// the chapter was read. Returns whether the chapter became read now.
    @discardableResult
    public func recordPage(
        _ member: MemberID, story: String, chapter: Int, page: Int, chapterID: String, lastPage: Bool, now: Date
    ) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO story_progress (member_id, story_id, chapter_index, page_index, updated_at)
            VALUES (\(bind: member.rawValue), \(bind: story), \(bind: Int64(chapter)), \(bind: Int64(page)), \(bind: now.storedMillis))
            ON CONFLICT (member_id, story_id) DO UPDATE SET chapter_index = excluded.chapter_index, page_index = excluded.page_index,
                updated_at = excluded.updated_at
            WHERE story_progress.chapter_index < excluded.chapter_index
               OR (story_progress.chapter_index = excluded.chapter_index AND story_progress.page_index < excluded.page_index)
            """
        ).run()
        guard lastPage else { return false }
        return try await db.raw(
            """
            INSERT INTO story_chapters_read (member_id, story_id, chapter_id, read_at) VALUES (\(bind: member.rawValue), \(bind: story), \(bind: chapterID), \(bind: now.storedMillis))
            ON CONFLICT (member_id, story_id, chapter_id) DO NOTHING RETURNING chapter_id
            """
        ).first() != nil
    }

    public func setBookmark(_ member: MemberID, story: String, on: Bool, now: Date) async throws {
        if on {
            try await db.raw(
                """
                INSERT INTO story_bookmarks (member_id, story_id, created_at) VALUES (\(bind: member.rawValue), \(bind: story), \(bind: now.storedMillis))
                ON CONFLICT (member_id, story_id) DO NOTHING
                """
            ).run()
        } else {
            try await db.raw(
                "DELETE FROM story_bookmarks WHERE member_id = \(bind: member.rawValue) AND story_id = \(bind: story)"
            ).run()
        }
    }

    public func addComment(id: String, member: MemberID, story: String, chapter: String, body: String, now: Date)
        async throws
    {
        try await db.raw(
            """
            INSERT INTO story_comments (id, story_id, chapter_id, member_id, body, created_at, seq)
            VALUES (\(bind: id), \(bind: story), \(bind: chapter), \(bind: member.rawValue), \(bind: body), \(bind: now.storedMillis),
                    (SELECT COALESCE(MAX(seq), 0) + 1 FROM story_comments WHERE story_id = \(bind: story) AND chapter_id = \(bind: chapter)))
            """
        ).run()
    }

    /// Newest first.
    public func comments(story: String, chapter: String, limit: Int, offset: Int) async throws -> [StoryComment] {
        try await db.raw(
            """
            SELECT c.id, c.story_id, c.chapter_id, c.member_id, m.display_name, c.body, c.created_at FROM story_comments c
            JOIN members m ON m.id = c.member_id
            WHERE c.story_id = \(bind: story) AND c.chapter_id = \(bind: chapter) ORDER BY c.seq DESC LIMIT \(bind: limit) OFFSET \(bind: offset)
            """
        ).all().map(Self.comment)
    }

    public func comment(_ id: String) async throws -> StoryComment? {
        try await db.raw(
            """
            SELECT c.id, c.story_id, c.chapter_id, c.member_id, m.display_name, c.body, c.created_at FROM story_comments c
            JOIN members m ON m.id = c.member_id WHERE c.id = \(bind: id)
            """
        ).first().map(Self.comment)
    }

    static func comment(_ row: any SQLRow) throws -> StoryComment {
        StoryComment(
            id: try row.decode(column: "id", as: String.self),
            storyID: try row.decode(column: "story_id", as: String.self),
            chapterID: try row.decode(column: "chapter_id", as: String.self),
            memberID: try row.decode(column: "member_id", as: MemberID.self),
            authorName: try row.decode(column: "display_name", as: String.self),
            body: try row.decode(column: "body", as: String.self),
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    public func deleteComment(_ id: String) async throws {
        try await db.raw("DELETE FROM story_comments WHERE id = \(bind: id)").run()
    }

    /// A selfie ("selfie:<story>") or the profile photo ("photo").
    public func putImage(_ member: MemberID, kind: String, contentType: String, bytes: [UInt8], now: Date) async throws
    {
        try await db.raw(
            """
            INSERT INTO member_images (member_id, kind, content_type, bytes, created_at)
            VALUES (\(bind: member.rawValue), \(bind: kind), \(bind: contentType), \(bind: Data(bytes)), \(bind: now.storedMillis))
            ON CONFLICT (member_id, kind) DO UPDATE SET content_type = excluded.content_type, bytes = excluded.bytes, created_at = excluded.created_at
            """
        ).run()
    }

    public func image(_ member: MemberID, kind: String) async throws -> MemberImage? {
        guard
            let row = try await db.raw(
                """
                SELECT content_type, bytes, created_at FROM member_images WHERE member_id = \(bind: member.rawValue) AND kind = \(bind: kind)
                """
            ).first()
        else { return nil }
        return MemberImage(
            contentType: try row.decode(column: "content_type", as: String.self),
            bytes: [UInt8](try row.decode(column: "bytes", as: Data.self)),
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)))
    }

    /// Marks a story's rewards collected; false when they had been.
    public func collect(_ member: MemberID, story: String, now: Date) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO story_collected (member_id, story_id, collected_at) VALUES (\(bind: member.rawValue), \(bind: story), \(bind: now.storedMillis))
            ON CONFLICT (member_id, story_id) DO NOTHING RETURNING story_id
            """
        ).first() != nil
    }

    public func addCard(_ member: MemberID, card: String, now: Date) async throws {
        try await db.raw(
            """
            INSERT INTO story_cards_owned (member_id, card_id, copies, first_at) VALUES (\(bind: member.rawValue), \(bind: card), 1, \(bind: now.storedMillis))
            ON CONFLICT (member_id, card_id) DO UPDATE SET copies = story_cards_owned.copies + 1
            """
        ).run()
    }

    public func award(_ member: MemberID, badge: String, now: Date) async throws -> Bool {
        try await BadgeQueries.award(member, .stories, badge: badge, now: now, on: db)
    }

    /// Marks a daily task done for a local day; false when it was already done that day.
    public func completeTask(_ member: MemberID, task: String, day: LocalDay, now: Date) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO story_tasks_done (member_id, task_id, local_day, done_at) VALUES (\(bind: member.rawValue), \(bind: task), \(bind: day.iso), \(bind: now.storedMillis))
            ON CONFLICT (member_id, task_id, local_day) DO NOTHING RETURNING task_id
            """
        ).first() != nil
    }

    public func tasksDone(_ member: MemberID, day: LocalDay) async throws -> Set<String> {
        Set(
            try await db.raw(
                """
                SELECT task_id FROM story_tasks_done WHERE member_id = \(bind: member.rawValue) AND local_day = \(bind: day.iso)
                """
            ).all().map { try $0.decode(column: "task_id", as: String.self) })
    }

    public func details(_ member: MemberID) async throws -> MemberDetails {
        guard
            let row = try await db.raw(
                """
                SELECT location, favourite_track, bio FROM member_details WHERE member_id = \(bind: member.rawValue)
                """
            ).first()
        else { return .empty }
        return MemberDetails(
            location: try row.decode(column: "location", as: String.self),
            favouriteTrack: try row.decode(column: "favourite_track", as: String.self),
            bio: try row.decode(column: "bio", as: String.self))
    }

    public func setDetails(_ member: MemberID, _ details: MemberDetails, now: Date) async throws {
        try await db.raw(
            """
            INSERT INTO member_details (member_id, location, favourite_track, bio, updated_at)
            VALUES (\(bind: member.rawValue), \(bind: details.location), \(bind: details.favouriteTrack), \(bind: details.bio), \(bind: now.storedMillis))
            ON CONFLICT (member_id) DO UPDATE SET location = excluded.location, favourite_track = excluded.favourite_track, bio = excluded.bio,
                updated_at = excluded.updated_at
            """
        ).run()
    }

    /// Everything the member has done with the stories, in a few queries.
    public func activity(_ member: MemberID) async throws -> StoryActivity {
        var activity = StoryActivity()
        let id = member.rawValue
        for row in try await db.raw(
            "SELECT story_id, chapter_index, page_index FROM story_progress WHERE member_id = \(bind: id)"
        ).all() {
            activity.progress[try row.decode(column: "story_id", as: String.self)] =
                (
                    Int(try row.decode(column: "chapter_index", as: Int64.self)),
                    Int(try row.decode(column: "page_index", as: Int64.self))
                )
        }
        activity.bookmarks = Set(
            try await db.raw("SELECT story_id FROM story_bookmarks WHERE member_id = \(bind: id)").all()
                .map { try $0.decode(column: "story_id", as: String.self) })
        activity.selfies = Set(
            try await db.raw("SELECT kind FROM member_images WHERE member_id = \(bind: id) AND kind LIKE 'selfie:%'")
                .all()
                .map { String(try $0.decode(column: "kind", as: String.self).dropFirst("selfie:".count)) })
        activity.collected = Set(
            try await db.raw("SELECT story_id FROM story_collected WHERE member_id = \(bind: id)").all()
                .map { try $0.decode(column: "story_id", as: String.self) })
        for row in try await db.raw("SELECT card_id, copies FROM story_cards_owned WHERE member_id = \(bind: id)").all()
        {
            activity.cards[try row.decode(column: "card_id", as: String.self)] = Int(
                try row.decode(column: "copies", as: Int64.self))
        }
        for badge in try await BadgeQueries.list(member, .stories, on: db) {
            activity.badges[badge.id] = badge.awardedAt
        }
        func count(_ sql: SQLQueryString) async throws -> Int {
            Int(try await db.raw(sql).first()?.decode(column: "n", as: Int64.self) ?? 0)
        }
        activity.chaptersRead = try await count(
            "SELECT COUNT(*) AS n FROM story_chapters_read WHERE member_id = \(bind: id)")
        activity.comments = try await count("SELECT COUNT(*) AS n FROM story_comments WHERE member_id = \(bind: id)")
        activity.tasksDone = try await count("SELECT COUNT(*) AS n FROM story_tasks_done WHERE member_id = \(bind: id)")
        return activity
    }
}

extension StoryStore {
    public func read<T: Sendable>(_ body: (StoryMemberQueries) async throws -> T) async throws -> T {
        try await database.withConnection { db in try await body(StoryMemberQueries(db: db, live: nil)) }
    }

    /// One transaction; events announced through `StoryMemberQueries.live` are published if it
    /// commits.
    public func write<T: Sendable>(_ scope: WriteScope, _ body: (StoryMemberQueries) async throws -> T) async throws
        -> T
    {
        try await live.write(scope) { db, announcer in try await body(StoryMemberQueries(db: db, live: announcer)) }
    }
}
