import Synchronization

/// Answers kept per key between the writes that change them: an answer read far more often
/// than what it is computed from is written (a member's widget), kept instead of recomputed.
///
/// Correctness rests on three rules:
/// - **Forget after every write.** The feature that writes what a key's answer is computed from
///   forgets the key once the write has committed, here and (through the database's
///   notification channel) on every other instance.
/// - **Keep only what no write overtook.** A caller takes a `Ticket` before it reads what the
///   answer is computed from, and `keep` refuses the answer when its key (or everything) was
///   forgotten after the ticket was taken: an answer computed from rows read before a write
///   committed can never outlive that write's forgetting, in whatever order they finish.
/// - **An answer says until when it is true.** The caller stores what its answer depends on in
///   time (the local day it was computed for) and compares it on each use; nothing expires by
///   a timer.
///
/// Memory is bounded: at most `capacity` answers; past it, arbitrary answers are dropped (a
/// dropped answer is recomputed, never wrong). Forgotten keys are remembered for
/// `overtakeWindow` only, so a computation that takes longer than that keeps nothing.
public final class KeptAnswers<Key: Hashable & Sendable, Answer: Sendable>: Sendable {
    /// Taken before reading what an answer is computed from.
    public struct Ticket: Sendable {
        fileprivate let sequence: UInt64
        fileprivate let taken: ContinuousClock.Instant
    }

    private struct Forgotten {
        let sequence: UInt64
        let at: ContinuousClock.Instant
    }

    private struct State {
        var answers: [Key: Answer] = [:]
        var forgotten: [Key: Forgotten] = [:]
        var sequence: UInt64 = 0
        /// The sequence at which everything was last forgotten.
        var everythingAt: UInt64 = 0
        /// When `forgotten` was last cleared of keys past the overtake window.
        var prunedAt = ContinuousClock.now
    }

    /// How long a forgotten key is remembered, to refuse answers computed before it.
    static var overtakeWindow: Duration { .seconds(10) }

    public let capacity: Int
    private let state = Mutex(State())

    /// At most `capacity` answers (0: none is kept).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The answer kept for `key`, if any.
    public func answer(_ key: Key) -> Answer? {
        state.withLock { $0.answers[key] }
    }

    /// How many answers are kept.
    public var count: Int { state.withLock { $0.answers.count } }

    public func ticket() -> Ticket {
        state.withLock { Ticket(sequence: $0.sequence, taken: .now) }
    }

    /// Keeps `answer` for `key`, unless the key (or everything) was forgotten since `ticket`.
    public func keep(_ answer: Answer, for key: Key, ticket: Ticket) {
        let now = ContinuousClock.now
        guard capacity > 0, now - ticket.taken < Self.overtakeWindow else { return }
        state.withLock { state in
            guard state.everythingAt <= ticket.sequence else { return }
            if let forgotten = state.forgotten[key], forgotten.sequence > ticket.sequence { return }
            if state.answers[key] == nil, state.answers.count >= capacity {
                // Drops an eighth, so that a full table does not drop one answer per keep.
                for _ in 0..<max(1, capacity / 8) { state.answers.remove(at: state.answers.startIndex) }
            }
            state.answers[key] = answer
        }
    }

    /// Forgets the answers of `keys` (what they are computed from changed).
    public func forget(_ keys: some Sequence<Key>) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.sequence += 1
            for key in keys {
                state.answers[key] = nil
                state.forgotten[key] = Forgotten(sequence: state.sequence, at: now)
            }
            // Cleared of old keys at most once a second: under many writers a filter on every
            // forgetting would cost a pass over the table each time.
            if state.forgotten.count > 4_096, now - state.prunedAt > .seconds(1) {
                state.forgotten = state.forgotten.filter { now - $0.value.at < Self.overtakeWindow }
                state.prunedAt = now
            }
        }
    }

    /// Forgets every answer (what they are computed from may have changed without a word: a lost
    /// notification channel).
    public func forgetAll() {
        state.withLock { state in
            state.sequence += 1
            state.everythingAt = state.sequence
            state.answers.removeAll(keepingCapacity: true)
            state.forgotten.removeAll(keepingCapacity: true)
        }
    }
}
