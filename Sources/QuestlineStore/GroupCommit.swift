import NIOConcurrencyHelpers
import SQLKit

/// Group commit: concurrent callers' writes of one kind share one transaction.
///
/// A caller submits its item and waits. When no write is running, the item is written at once
/// in a transaction of its own; items that arrive while a transaction runs wait for it, and
/// then all of them are written together in the next one. So an idle server adds no delay,
/// and a busy one pays one BEGIN/COMMIT (and, on SQLite, one turn of the single writer) for
/// many callers instead of one each. Every caller still returns only after its own data has
/// committed.
///
/// If a shared transaction fails, each of its items is written again alone, so one bad item
/// fails only its own caller.
///
/// Written here because none of the SQL libraries offers it (PostgreSQL's `commit_delay`
/// batches only the WAL flush, and SQLite has nothing of the kind).
final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    typealias Write = @Sendable (any SQLDatabase, [Item]) async throws -> [Output]

    private struct Waiting {
        let item: Item
        let continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let database: Database
    private let maxItems: Int
    private let write: Write
    private let state = NIOLockedValueBox(State())

    /// `write` writes the items (in order) on a connection inside a transaction and returns
    /// one output per item, in the same order. At most `maxItems` share a transaction.
    init(_ database: Database, maxItems: Int, write: @escaping Write) {
        precondition(maxItems > 0)
        self.database = database
        self.maxItems = maxItems
        self.write = write
    }

    func submit(_ item: Item) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startWriting = state.withLockedValue { state -> Bool in
                state.waiting.append(Waiting(item: item, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriting { Task { await self.drain() } }
        }
    }

    /// Writes what is waiting, group by group, until nothing is.
    private func drain() async {
        while true {
            let group = state.withLockedValue { state -> [Waiting] in
                let group = Array(state.waiting.prefix(maxItems))
                state.waiting.removeFirst(group.count)
                if group.isEmpty { state.writing = false }
                return group
            }
            if group.isEmpty { return }
            do {
                let outputs = try await database.transaction { db in try await write(db, group.map(\.item)) }
                precondition(outputs.count == group.count, "GroupCommit: one output per item")
                for (waiting, output) in zip(group, outputs) { waiting.continuation.resume(returning: output) }
            } catch where group.count > 1 {
                for waiting in group {
                    do {
                        let output = try await database.transaction { db in try await write(db, [waiting.item]) }
                        waiting.continuation.resume(returning: output[0])
                    } catch {
                        waiting.continuation.resume(throwing: error)
                    }
                }
            } catch {
                group[0].continuation.resume(throwing: error)
            }
        }
    }
}
