public import Foundation
public import QuestlineCore
import SQLKit

/// Cheers sent in a household, and whether the household has them on.
enum CheerSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "cheers", column: "from_member", export: (.quests, "cheersSent"))
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 870, name: "cheers",
            [
                """
                CREATE TABLE cheers (
                    id TEXT PRIMARY KEY,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    from_member TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    to_member TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    cheer TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    sent_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX cheers_by_sender_day ON cheers (from_member, local_day)",
                "CREATE INDEX cheers_by_household ON cheers (household_id, sent_at)",
                "ALTER TABLE households ADD COLUMN cheers_enabled BIGINT NOT NULL DEFAULT 1",
            ])
    ]
}

/// A cheer as stored.
public struct SentCheer: Sendable, Equatable {
    public let id: String
    public let from: MemberID
    public let to: MemberID
    public let cheer: Cheer
    public let sentAt: Date

    public init(id: String, from: MemberID, to: MemberID, cheer: Cheer, sentAt: Date) {
        self.id = id
        self.from = from
        self.to = to
        self.cheer = cheer
        self.sentAt = sentAt
    }
}

/// Cheers sent in a household, and whether the household has them on: the cheers feature's
/// own queries.
public struct CheerStore: Sendable {
    let database: Database
    let live: LiveEventLog

    init(_ database: Database, live: LiveEventLog) {
        self.database = database
        self.live = live
    }

    public func read<T: Sendable>(_ body: (CheerQueries) async throws -> T) async throws -> T {
        try await database.withConnection { db in try await body(CheerQueries(db: db, live: nil)) }
    }

    /// One transaction; the events it announces are published if it commits.
    public func write<T: Sendable>(_ scope: WriteScope, _ body: (CheerQueries) async throws -> T) async throws -> T {
        try await live.write(scope) { db, announcer in try await body(CheerQueries(db: db, live: announcer)) }
    }
}

/// The cheers' queries, on one connection (inside a transaction when obtained from `write`).
public struct CheerQueries: Sendable {
    let db: any SQLDatabase
    /// Announces household events with the write (nil when reading).
    public let live: LiveAnnouncer?

    public func cheersEnabled(_ household: HouseholdID) async throws -> Bool {
        try await db.raw("SELECT cheers_enabled FROM households WHERE id = \(bind: household.rawValue)").first()?
            .decode(column: "cheers_enabled", as: Int.self) != 0
    }

    public func setCheersEnabled(_ household: HouseholdID, _ enabled: Bool) async throws {
        try await db.raw(
            "UPDATE households SET cheers_enabled = \(bind: enabled ? 1 : 0) WHERE id = \(bind: household.rawValue)"
        ).run()
    }

    /// Holds the sender's member row for the rest of the transaction, so that two cheers of one
    /// sender (on two instances of PostgreSQL) count one after the other and the daily limit
    /// holds. SQLite's write transactions are serialized already.
    public func lockSender(_ member: MemberID) async throws {
        if db.dialect.name == "sqlite" { return }
        try await db.raw("SELECT id FROM members WHERE id = \(bind: member.rawValue) FOR UPDATE").run()
    }

    /// Cheers `member` sent on their local `day`.
    public func cheersSent(by member: MemberID, on day: LocalDay) async throws -> Int {
        try await db.raw(
            """
            SELECT COUNT(*) AS n FROM cheers WHERE from_member = \(bind: member.rawValue) AND local_day = \(bind: day.iso)
            """
        ).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    public func insertCheer(_ cheer: SentCheer, household: HouseholdID, day: LocalDay) async throws {
        try await db.raw(
            """
            INSERT INTO cheers (id, household_id, from_member, to_member, cheer, local_day, sent_at)
            VALUES (\(bind: cheer.id), \(bind: household.rawValue), \(bind: cheer.from.rawValue), \(bind: cheer.to.rawValue),
                    \(bind: cheer.cheer.rawValue), \(bind: day.iso), \(bind: cheer.sentAt.storedMillis))
            """
        ).run()
    }

    /// The household's latest cheers, newest first.
    public func cheers(_ household: HouseholdID, limit: Int) async throws -> [SentCheer] {
        try await db.raw(
            """
            SELECT id, from_member, to_member, cheer, sent_at FROM cheers WHERE household_id = \(bind: household.rawValue)
            ORDER BY sent_at DESC, id DESC LIMIT \(bind: limit)
            """
        ).all().compactMap { row in
            guard let cheer = Cheer(rawValue: try row.decode(column: "cheer", as: String.self)) else { return nil }
            return SentCheer(
                id: try row.decode(column: "id", as: String.self),
                from: try MemberID.parse(try row.decode(column: "from_member", as: String.self), field: "from"),
                to: try MemberID.parse(try row.decode(column: "to_member", as: String.self), field: "to"), cheer: cheer,
                sentAt: Date(storedMillis: try row.decode(column: "sent_at", as: Int64.self)))
        }
    }
}
