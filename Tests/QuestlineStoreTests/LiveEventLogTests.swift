import Foundation
import QuestlineCore
import QuestlineTestSupport
import Testing

@testable import QuestlineStore

/// The household event log's write (`LiveEventLog.append`): a transaction's events are written
/// together as its last statements, each with its id, in id order, on both databases; on
/// PostgreSQL with the household's lock and notifications in the same statement, and for
/// events of several households too.
@Suite struct LiveEventLogTests {
    let t0 = Date(timeIntervalSince1970: 1_790_000_000.123)

    @Test(arguments: TestDatabase.available)
    func aWritesEventsAreLoggedTogetherInIdOrder(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let home = HouseholdID(UUID())
            let away = HouseholdID(UUID())
            let child = MemberID(UUID())
            let quest = QuestID(UUID())
            let written = try await store.live.write(.system) { _, live in
                try await live.announce(.progress, household: home, child: child, quest: quest, now: t0)
                try await live.announce(.points, household: home, child: child, now: t0)
                try await live.announce(.progress, household: home, child: child, quest: quest, now: t0)  // again
                try await live.announce(.rules, household: away, now: t0 + 1)
                return live
            }
            let events = written.events
            #expect(events.map(\.kind) == [.progress, .points, .rules])
            #expect(events.map(\.id) == events.map(\.id).sorted())
            #expect(events[0].childId == child.rawValue && events[0].challengeId == quest.rawValue)
            #expect(events[1].challengeId == nil && events[2].childId == nil)
            #expect(events[0].at == Date(storedMillis: t0.storedMillis))

            // The log holds the same events, field by field, per household.
            #expect(try await store.live.events(of: home, after: 0).events == Array(events.prefix(2)))
            #expect(try await store.live.events(of: away, after: 0).events == [events[2]])

            // One household's write: the lock and notifications ride in the one statement.
            let before = store.database.statementsRun
            let next = try await store.live.write(.system) { _, live in
                try await live.announce(.catalog, household: home, now: t0 + 2)
                return live
            }.events
            #expect(store.database.statementsRun - before == 3, "BEGIN, the events, COMMIT")
            #expect(next.count == 1 && next[0].id > events[2].id)
            #expect(try await store.live.events(of: home, after: events[1].id).events == next)
        }
    }
}
