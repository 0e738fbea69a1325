import Foundation

/// The answers of a pure function kept for reuse (a day's first instant in a zone, a day written
/// in a language), safe to share between threads. It holds at most `limit` answers and forgets
/// them all when full: its keys are days, zones and languages, of which a process asks about few
/// at a time.
public final class Memo<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: `answers` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var answers: [Key: Value] = [:]
    private let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// The kept answer for `key`, else `make()`'s, kept.
    public func value(_ key: Key, _ make: () -> Value) -> Value {
        lock.lock()
        let kept = answers[key]
        lock.unlock()
        if let kept { return kept }
        let made = make()
        lock.lock()
        if answers.count >= limit { answers.removeAll(keepingCapacity: true) }
        answers[key] = made
        lock.unlock()
        return made
    }
}
