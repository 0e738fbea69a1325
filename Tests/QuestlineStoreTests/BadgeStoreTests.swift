import Foundation
import QuestlineCore
import QuestlineTestSupport
import SQLKit
import Testing

@testable import QuestlineStore

/// One badge concept: the three features' badges live in `member_badges`, and the migration
/// that made it so carried every badge already awarded.
@Suite struct BadgeStoreTests {
    private let t0 = Date(timeIntervalSince1970: 1_778_400_000)

    @Test(arguments: TestDatabase.available)
    func theMigrationCarriesEveryFeaturesBadgesIntoTheOneTable(_ db: TestDatabase) async throws {
        try await db.withStore(migrate: false) { store in
            try await Migrator(Migrations.all.filter { $0.version < 600 }).migrate(store.database, now: t0)
            let ada = MemberID(UUID())
            _ = try await store.accounts.createMember(
                NewMember(
                    id: ada, email: "ada@example.com", username: nil, passwordHash: "h", displayName: "Ada",
                    timeZone: TimeZoneID("UTC")!), now: t0, scope: .system)
            try await store.database.withConnection { db in
                let id = ada.rawValue
                try await db.raw(
                    "INSERT INTO badges (member_id, badge_id, title, awarded_at) VALUES (\(bind: id), 'reading-challenge-may', 'Completed: May', 1)"
                ).run()
                try await db.raw(
                    "INSERT INTO quest_badges (child_id, badge_id, awarded_at) VALUES (\(bind: id), 'first-quest', 2)"
                ).run()
                try await db.raw(
                    "INSERT INTO story_badges_awarded (member_id, badge_id, awarded_at) VALUES (\(bind: id), 'brickyard', 3)"
                ).run()
            }
            try await Migrator().migrate(store.database, now: t0)
            #expect(try await store.reading.badges(ada).map(\.title) == ["Completed: May"])
            let questBadges = try await store.quests.read { q in try await q.badges(ada) }
            #expect(questBadges.map(\.id) == ["first-quest"])
            let pairs = try await store.database.withConnection { db in
                try await db.raw("SELECT feature, badge_id FROM member_badges ORDER BY awarded_at").all().map {
                    "\(try $0.decode(column: "feature", as: String.self))/\(try $0.decode(column: "badge_id", as: String.self))"
                }
            }
            #expect(pairs == ["reading/reading-challenge-may", "quests/first-quest", "stories/brickyard"])
            // Awarded once per feature: the same id in another feature is another badge.
            let again = try await store.database.withConnection { db in
                try await BadgeQueries.award(ada, .quests, badge: "first-quest", now: t0, on: db)
            }
            let elsewhere = try await store.database.withConnection { db in
                try await BadgeQueries.award(ada, .stories, badge: "first-quest", now: t0, on: db)
            }
            #expect(!again && elsewhere)
        }
    }
}
