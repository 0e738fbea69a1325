import Metrics
import NIOConcurrencyHelpers
import QuestlineCore
import SQLKit

/// Concurrent callers' requests of one kind, served together: one database round trip (or one
/// transaction) for many callers instead of one each.
///
/// A caller submits its item and waits. When no run is under way, the item is served at once,
/// alone; items that arrive while a run is under way wait for it, and then all of them (up to
/// `maxItems`) are served together by the next run. So an idle server adds no delay, and a busy
/// one pays the fixed cost of a run (a hop to the database's thread and back, a statement, a
/// BEGIN/COMMIT and on SQLite a turn of the single writer) once per group. A run starts only
/// after every item in it was submitted, so a reader always sees what was committed before it
/// asked.
///
/// If a shared run fails, each of its items is run again alone, so one bad item fails only its
/// own caller.
///
/// Written here because none of the SQL libraries offers it (PostgreSQL's `commit_delay`
/// batches only the WAL flush, and SQLite has nothing of the kind).
final class Coalescer<Item: Sendable, Output: Sendable>: Sendable {
    /// Serves items; `scope` joins the write scopes their callers submitted them in (see
    /// `WriteScope`), for a write to check and mark in its transaction.
    typealias Run = @Sendable (_ items: [Item], _ scope: WriteScope) async throws -> [Output]

    private struct Waiting {
        let item: Item
        let scope: WriteScope
        let continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var running = false
    }

    private let maxItems: Int
    private let executor: (any TaskExecutor)?
    private let run: Run
    private let state = NIOLockedValueBox(State())

    /// `run` serves the items and returns one output per item, in the same order; on `executor`
    /// when given (else wherever Swift Concurrency runs tasks).
    init(maxItems: Int, executor: (any TaskExecutor)? = nil, run: @escaping Run) {
        precondition(maxItems > 0)
        self.maxItems = maxItems
        self.executor = executor
        self.run = run
    }

    /// Group commit: the items are written by `write` inside one transaction per group, on the
    /// database's `writerExecutor` (on SQLite, whose single writer's turn is what limits
    /// writes, the writer's own thread).
    static func groupCommit(
        _ database: Database, maxItems: Int,
        write: @escaping @Sendable (any SQLDatabase, [Item]) async throws -> [Output]
    ) -> Coalescer {
        Coalescer(maxItems: maxItems, executor: database.writerExecutor) { items, scope in
            try await database.transaction(scope) { db in try await write(db, items) }
        }
    }

    /// Serves a read, which acts for no one.
    func submit(_ item: Item) async throws -> Output { try await submit(item, in: .system) }

    /// Serves `item` in its caller's `scope`: the run that serves it acts for that scope too.
    func submit(_ item: Item, in scope: WriteScope) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startRunning = state.withLockedValue { state -> Bool in
                state.waiting.append(Waiting(item: item, scope: scope, continuation: continuation))
                guard !state.running else { return false }
                state.running = true
                return true
            }
            if startRunning { Task(executorPreference: executor) { await self.drain() } }
        }
    }

    /// Serves what is waiting, group by group, until nothing is.
    private func drain() async {
        while true {
            let group = state.withLockedValue { state -> [Waiting] in
                let group = Array(state.waiting.prefix(maxItems))
                state.waiting.removeFirst(group.count)
                if group.isEmpty { state.running = false }
                return group
            }
            if group.isEmpty { return }
            // `questline_group_commit_size`: how many writes one commit carried.
            Recorder(label: "questline_group_commit_size", aggregate: true).record(group.count)
            do {
                let outputs = try await run(group.map(\.item), .joined(group.map(\.scope)))
                precondition(outputs.count == group.count, "Coalescer: one output per item")
                for (waiting, output) in zip(group, outputs) { waiting.continuation.resume(returning: output) }
            } catch  where group.count > 1 {
                for waiting in group {
                    do {
                        let output = try await run([waiting.item], waiting.scope)
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
