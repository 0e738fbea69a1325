public import Foundation
public import QuestlineCore
import SQLKit

/// A member's rest days and pauses (`StreakAllowances`), one row each, kept as the core's JSON.
enum StreakSettingsSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "streak_allowances", column: "member_id", export: (.reading, "streakSettings"))
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 850, name: "streak_allowances",
            [
                """
                CREATE TABLE streak_allowances (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    body TEXT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """
            ])
    ]

    static func encode(_ allowances: StreakAllowances) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(allowances), as: UTF8.self)
    }

    static func decode(_ body: String?) throws -> StreakAllowances {
        guard let body else { return .none }
        return try JSONDecoder().decode(StreakAllowances.self, from: Data(body.utf8))
    }
}

extension ReadingStore {
    /// The member's rest days and pauses (none when never set).
    public func streakAllowances(_ member: MemberID) async throws -> StreakAllowances {
        try await database.withConnection { db in
            try StreakSettingsSchema.decode(
                try await db.raw("SELECT body FROM streak_allowances WHERE member_id = \(bind: member.rawValue)")
                    .first()?.decode(column: "body", as: String.self))
        }
    }

    /// Changes the member's allowances with `change` (the core's rule, which may refuse) in one
    /// transaction, the row locked while it decides; returns what was stored.
    public func changeStreakAllowances(
        _ member: MemberID, now: Date, scope: WriteScope,
        _ change: @Sendable (StreakAllowances) throws -> StreakAllowances
    ) async throws -> StreakAllowances {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO streak_allowances (member_id, body, updated_at)
                VALUES (\(bind: member.rawValue), \(bind: try StreakSettingsSchema.encode(.none)), \(bind: now.storedMillis))
                ON CONFLICT (member_id) DO NOTHING
                """
            ).run()
            let lock = SQLRaw(database.flavor == .postgres ? " FOR UPDATE" : "")
            let current = try StreakSettingsSchema.decode(
                try await db.raw("SELECT body FROM streak_allowances WHERE member_id = \(bind: member.rawValue)\(lock)")
                    .first()?.decode(column: "body", as: String.self))
            let changed = try change(current)
            try await db.raw(
                """
                UPDATE streak_allowances SET body = \(bind: try StreakSettingsSchema.encode(changed)),
                    updated_at = \(bind: now.storedMillis) WHERE member_id = \(bind: member.rawValue)
                """
            ).run()
            return changed
        }
    }
}
