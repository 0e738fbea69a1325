import NIOConcurrencyHelpers

/// First-in, first-out mutual exclusion for async code.
///
/// Written here because neither the standard library nor SwiftNIO offers an async mutex. Used
/// to let one SQLite write transaction run at a time inside the process: SQLite allows one
/// writer anyway, and a writer blocked in SQLite's busy handler would hold a thread of the
/// pool that the lock holder needs to commit. Waiting here costs no thread.
/// Waiters are not cancellable; the work they wait for is short.
final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLockedValue { state -> Bool in
                if !state.locked {
                    state.locked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if acquired { continuation.resume() }
        }
    }

    /// Whether anyone waits for the lock (asked by its holder: a waiter never leaves).
    var hasWaiters: Bool { state.withLockedValue { !$0.waiters.isEmpty } }

    func unlock() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()  // ownership passes straight to the next waiter
        }
        next?.resume()
    }
}
