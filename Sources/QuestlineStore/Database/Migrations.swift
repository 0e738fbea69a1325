public import Foundation
import Logging
import QuestlineCore
import SQLKit

/// One versioned schema change. Each feature adds its own migrations (see `Migrations.all`);
/// versions are unique and never reused, and an applied migration is never edited.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    /// The statements for a database flavor; most are the same for both.
    public let statements: @Sendable (SQLFlavor) -> [String]

    public init(version: Int, name: String, statements: @escaping @Sendable (SQLFlavor) -> [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }

    public init(version: Int, name: String, _ statements: [String]) {
        self.init(version: version, name: name) { _ in statements }
    }
}

/// Applies migrations in version order, each recorded in `schema_migrations`, all in one
/// transaction (PostgreSQL also takes an advisory lock, so two servers starting at once do
/// not race).
public struct Migrator: Sendable {
    public let migrations: [Migration]

    public init(_ migrations: [Migration] = Migrations.all) {
        let versions = migrations.map(\.version)
        precondition(Set(versions).count == versions.count, "Duplicate migration version")
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies what is missing; returns the migrations applied now.
    @discardableResult
    public func migrate(_ database: Database, now: Date = Date()) async throws -> [Migration] {
        try await database.transaction(.system) { db in
            if database.flavor == .postgres {
                try await db.raw("SELECT pg_advisory_xact_lock(7426001)").run()
            }
            try await db.raw(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version BIGINT PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                )
                """
            ).run()
            let applied = Set(
                try await db.raw("SELECT version FROM schema_migrations").all()
                    .map { try $0.decode(column: "version", as: Int.self) })
            var done: [Migration] = []
            for migration in migrations where !applied.contains(migration.version) {
                do {
                    for statement in migration.statements(database.flavor) {
                        try await db.raw(SQLQueryString(statement)).run()
                    }
                } catch {
                    throw StoreError.migrationFailed(
                        version: migration.version, name: migration.name, underlying: String(describing: error))
                }
                try await db.raw(
                    """
                    INSERT INTO schema_migrations (version, name, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: now.storedMillis))
                    """
                ).run()
                done.append(migration)
            }
            return done
        }
    }

    /// The versions recorded as applied (none in a database never migrated).
    public func appliedVersions(_ database: Database) async throws -> [Int] {
        try await database.withConnection { db in
            let exists =
                database.flavor == .sqlite
                ? try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
                    .first() != nil
                : try await db.raw("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").first()?
                    .decode(column: "present", as: Bool.self) ?? false
            guard exists else { return [] }
            return try await db.raw("SELECT version FROM schema_migrations ORDER BY version").all()
                .map { try $0.decode(column: "version", as: Int.self) }
        }
    }
}

/// What a feature brings to the database: its migrations, and the tables that hold a member's
/// rows (what an export returns and a deletion removes, `PersonalData`).
protocol StoreModule: Sendable {
    static var migrations: [Migration] { get }
    static var personalData: [PersonalData.Holding] { get }
    /// What the module does when a member is deleted, in the deletion's transaction before the
    /// `members` row goes: rows its holdings do not name, and what stays without them.
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws
}

extension StoreModule {
    static var personalData: [PersonalData.Holding] { [] }
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws {}
}

/// Every feature's schema, listed once: a new feature adds its module here.
enum StoreModules {
    static let all: [any StoreModule.Type] = [
        AccountsSchema.self, IdempotencySchema.self, GameSchema.self, ReadingSchema.self, ActivitySchema.self,
        QuestSchema.self, StorySchema.self, StoryMemberSchema.self, BadgeSchema.self, LiveEventSchema.self,
        LimitSchema.self, OutboxSchema.self, NotificationSchema.self, WikiSchema.self, StreakSettingsSchema.self,
        RecapSchema.self, CheerSchema.self, FamilyStreakSchema.self, CoopQuestSchema.self, LeagueSchema.self,
    ]
}

/// Every migration of the product, from the modules' lists.
public enum Migrations {
    public static let all: [Migration] = StoreModules.all.flatMap { $0.migrations }
}
