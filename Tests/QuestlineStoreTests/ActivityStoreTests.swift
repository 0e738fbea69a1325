import Foundation
import QuestlineCore
import QuestlineStore
import QuestlineTestSupport
import Testing

private let t0 = Date(timeIntervalSince1970: 1_778_400_000)

@Suite struct ActivityStoreTests {
    private func member(_ store: Store) async throws -> MemberID {
        let id = MemberID(UUID())
        _ = try await store.accounts.createMember(
            NewMember(
                id: id, email: "\(id.rawValue)@example.com", username: nil, passwordHash: "h",
                displayName: "S", timeZone: TimeZoneID("UTC")!), now: t0, scope: .system)
        return id
    }

    @Test(arguments: TestDatabase.available)
    func savesPerListUnsaveAndList(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            #expect(
                try await store.activity.save(
                    ada, language: "en", title: "Octopus", list: "", thumbnailURL: "https://img/o.jpg", at: t0,
                    scope: .system))
            #expect(
                try await store.activity.save(
                    ada, language: "en", title: "Octopus", list: "Sea", thumbnailURL: nil, at: t0 + 60, scope: .system))
            #expect(
                try await !store.activity.save(
                    ada, language: "en", title: "Octopus", list: "Sea", thumbnailURL: nil, at: t0 + 120, scope: .system)
            )
            #expect(
                try await store.activity.save(
                    ada, language: "de", title: "Krake", list: "", thumbnailURL: nil, at: t0 + 30, scope: .system))
            let list = try await store.activity.savedArticles(ada, limit: 10, offset: 0)
            #expect(list.map(\.title) == ["Octopus", "Krake"])
            #expect(list.first?.lists == ["", "Sea"])
            #expect(list.first?.thumbnailURL == "https://img/o.jpg")
            #expect(try await store.activity.savedEntries(ada, since: t0 - 10, newest: 1).count == 3)
            #expect(
                try await store.activity.unsave(ada, language: "en", title: "Octopus", list: "Sea", scope: .system) == 1
            )
            #expect(
                try await store.activity.unsave(ada, language: "en", title: "Octopus", list: nil, scope: .system) == 1)
            #expect(
                try await store.activity.unsave(ada, language: "en", title: "Octopus", list: nil, scope: .system) == 0)
            #expect(try await store.activity.savedCount(ada) == 1)
        }
    }

    @Test(arguments: TestDatabase.available)
    func importBatchesCommitOnceAndCountProgress(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            let items = (0..<3).map { ImportItem(language: "en", title: "T\($0)", list: "", savedAt: t0 - Double($0)) }
            let first = try await store.activity.importBatch(
                ada, importID: "dev", batchStart: 0, total: 5, items: items, batchSize: 3, now: t0, scope: .system)
            #expect(first == ImportOutcome(imported: 3, alreadyCommitted: false, done: 3, total: 5))
            let again = try await store.activity.importBatch(
                ada, importID: "dev", batchStart: 0, total: 5, items: items, batchSize: 3, now: t0, scope: .system)
            #expect(again == ImportOutcome(imported: 0, alreadyCommitted: true, done: 3, total: 5))
            // The second batch holds an article saved already: it is left as it is.
            let second = try await store.activity.importBatch(
                ada, importID: "dev", batchStart: 3, total: 5,
                items: [items[0], ImportItem(language: "en", title: "T9", list: "L", savedAt: t0)],
                batchSize: 2, now: t0, scope: .system)
            #expect(second == ImportOutcome(imported: 1, alreadyCommitted: false, done: 5, total: 5))
            #expect(try await store.activity.savedCount(ada) == 4)
        }
    }

    @Test(arguments: TestDatabase.available)
    func readingIntervalsCountOnce(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store)
            let day = LocalDay(iso: "2026-05-10")!
            #expect(
                try await store.activity.recordIntervals(
                    .member(ada), [("a", t0, 600, day, nil), ("b", t0, 30, day, "Octopus")], scope: .system) == 2)
            #expect(
                try await store.activity.recordIntervals(.member(ada), [("a", t0, 600, day, nil)], scope: .system) == 0)
            #expect(try await store.activity.intervals(.member(ada), from: day).map(\.seconds).sorted() == [30, 600])
        }
    }
}
