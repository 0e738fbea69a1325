import Foundation
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineTestSupport
import SQLKit
import Testing

@testable import QuestlineStore

/// SQLite's group commit (`SQLiteWriteGroup`): transactions that wait for the writer run inside
/// the open transaction under savepoints, a member that fails loses only its own writes, and one
/// COMMIT answers the group; a checkpoint's exclusive turn commits an open group first.
@Suite struct SQLiteWriteGroupTests {
    struct Refused: Error {}

    @Test func waitingTransactionsCommitTogetherAndAFailureUndoesOnlyItsOwnWrites() async throws {
        try await TestDatabase.sqlite.withStore { store in
            let database = store.database
            try await database.transaction(.system) { db in
                try await db.raw("CREATE TABLE grouped (id INTEGER PRIMARY KEY, note TEXT NOT NULL)").run()
            }
            let before = try #require(database.sqliteGroupCommits)
            let started = NIOLockedValueBox(false)
            // The first holds the writer until the others wait for it.
            let first = Task {
                try await database.transaction(.system) { db in
                    started.withLockedValue { $0 = true }
                    try await Task.sleep(for: .milliseconds(300))
                    try await db.raw("INSERT INTO grouped (id, note) VALUES (0, 'first')").run()
                }
            }
            while !started.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for id in 1...40 {
                    group.addTask {
                        do {
                            try await database.transaction(.system) { db in
                                try await db.raw(
                                    "INSERT INTO grouped (id, note) VALUES (\(bind: id), \(bind: "n\(id)"))"
                                ).run()
                                // A second write of the same id: a unique violation after a write.
                                if id.isMultiple(of: 7) {
                                    try await db.raw("INSERT INTO grouped (id, note) VALUES (\(bind: id), 'again')")
                                        .run()
                                }
                                if id.isMultiple(of: 5) { throw Refused() }
                            }
                            return (id, true)
                        } catch {
                            return (id, false)
                        }
                    }
                }
                // A checkpoint's exclusive turn while the group is open.
                group.addTask {
                    (try? await database.checkpoint()) == nil ? (-1, false) : (-1, true)
                }
                var outcomes: [Int: Bool] = [:]
                for await (id, ok) in group { outcomes[id] = ok }
                return outcomes
            }
            try await first.value
            #expect(outcomes[-1] == true, "the checkpoint ran")
            let kept = Set(1...40).filter { !$0.isMultiple(of: 5) && !$0.isMultiple(of: 7) }
            #expect(Set(outcomes.filter { $0.key > 0 && $0.value }.keys) == kept)
            let rows = try await database.withConnection { db in
                try await db.raw("SELECT id, note FROM grouped ORDER BY id").all().map {
                    (try $0.decode(column: "id", as: Int.self), try $0.decode(column: "note", as: String.self))
                }
            }
            #expect(rows.map(\.0) == [0] + kept.sorted())
            #expect(rows.allSatisfy { $0.0 == 0 ? $0.1 == "first" : $0.1 == "n\($0.0)" })
            let after = try #require(database.sqliteGroupCommits)
            let commits = after.commits - before.commits
            let members = after.members - before.members
            // Groups held more than one transaction: far fewer commits than transactions (a
            // failed one that began a group is not counted: it rolled back alone).
            #expect(members >= 33 && members <= 41, "\(members)")
            #expect(commits >= 2 && commits < 20, "\(commits) commits for 41 transactions")
        }
    }

    @Test func aTransactionAloneIsBeginItsStatementsAndCommit() async throws {
        try await TestDatabase.sqlite.withStore { store in
            let database = store.database
            try await database.transaction(.system) { db in
                try await db.raw("CREATE TABLE alone (id INTEGER PRIMARY KEY)").run()
            }
            let before = database.statementsRun
            try await database.transaction(.system) { db in
                try await db.raw("INSERT INTO alone (id) VALUES (1)").run()
            }
            #expect(database.statementsRun - before == 3)
            // A failure alone rolls back all of it.
            await #expect(throws: Refused.self) {
                try await database.transaction(.system) { db in
                    try await db.raw("INSERT INTO alone (id) VALUES (2)").run()
                    throw Refused()
                }
            }
            let ids = try await database.withConnection { db in
                try await db.raw("SELECT id FROM alone").all().map { try $0.decode(column: "id", as: Int.self) }
            }
            #expect(ids == [1])
        }
    }
}
