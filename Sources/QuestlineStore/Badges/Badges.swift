public import Foundation
import QuestlineCore
import SQLKit

/// The features that award badges. One badge concept, one table (`member_badges`): a badge is
/// a member's, awarded once, by one feature, under that feature's id for it.
public enum BadgeFeature: String, Sendable, CaseIterable {
    case reading, quests, stories
}

/// A badge as stored.
public struct AwardedBadge: Sendable, Equatable {
    public let id: String
    /// The title the feature gave it when awarded (reading names the campaign); nil when the
    /// feature names its badges from its own catalog.
    public let title: String?
    public let awardedAt: Date
}

/// The one badge table and the two things done with it: award once, list.
enum BadgeSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "member_badges", column: "member_id", export: (.profile, "badges"))
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 600, name: "one_badge_table",
            [
                """
                CREATE TABLE member_badges (
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    feature TEXT NOT NULL,
                    badge_id TEXT NOT NULL,
                    title TEXT,
                    awarded_at BIGINT NOT NULL,
                    PRIMARY KEY (member_id, feature, badge_id)
                )
                """,
                "INSERT INTO member_badges SELECT member_id, 'reading', badge_id, title, awarded_at FROM badges",
                "INSERT INTO member_badges SELECT child_id, 'quests', badge_id, NULL, awarded_at FROM quest_badges",
                "INSERT INTO member_badges SELECT member_id, 'stories', badge_id, NULL, awarded_at FROM story_badges_awarded",
                "DROP TABLE badges",
                "DROP TABLE quest_badges",
                "DROP TABLE story_badges_awarded",
            ])
    ]
}

enum BadgeQueries {
    /// Awards a badge once; true when it was awarded now.
    static func award(
        _ member: MemberID, _ feature: BadgeFeature, badge: String, title: String? = nil, now: Date,
        on db: any SQLDatabase
    ) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO member_badges (member_id, feature, badge_id, title, awarded_at)
            VALUES (\(bind: member.rawValue), \(bind: feature.rawValue), \(bind: badge), \(bind: title), \(bind: now.storedMillis))
            ON CONFLICT (member_id, feature, badge_id) DO NOTHING RETURNING badge_id
            """
        ).first() != nil
    }

    /// Awards badges of one feature in one statement; those awarded before stay as they were.
    static func award(
        _ member: MemberID, _ feature: BadgeFeature, badges: [String], now: Date, on db: any SQLDatabase
    ) async throws {
        guard !badges.isEmpty else { return }
        let rows = badges.map {
            SQLGroupExpression([
                SQLBind(member.rawValue), SQLBind(feature.rawValue), SQLBind($0), SQLBind(now.storedMillis),
            ])
        }
        try await db.raw(
            """
            INSERT INTO member_badges (member_id, feature, badge_id, awarded_at) VALUES \(SQLList(rows))
            ON CONFLICT (member_id, feature, badge_id) DO NOTHING
            """
        ).run()
    }

    /// A member's badges of one feature, oldest first.
    static func list(_ member: MemberID, _ feature: BadgeFeature, on db: any SQLDatabase) async throws -> [AwardedBadge]
    {
        try await db.raw(
            """
            SELECT badge_id, title, awarded_at FROM member_badges
            WHERE member_id = \(bind: member.rawValue) AND feature = \(bind: feature.rawValue) ORDER BY awarded_at, badge_id
            """
        ).all().map { row in
            AwardedBadge(
                id: try row.decode(column: "badge_id", as: String.self),
                title: try row.decode(column: "title", as: String?.self),
                awardedAt: Date(storedMillis: try row.decode(column: "awarded_at", as: Int64.self)))
        }
    }
}
