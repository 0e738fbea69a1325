import Foundation
internal import OpenAPIRuntime
public import QuestlineAPI
internal import QuestlineClient

/// A household's live events as an `AsyncSequence` of the contract's `LiveEvent`s.
///
/// It stays connected: when the stream ends (the instance shut down, the network dropped) it
/// reconnects after a backoff with jitter, sending `Last-Event-ID`, so the server replays what
/// was missed; when the server could not keep all of it, the first event is a `refetch`
/// (re-read everything). Keep-alives are not passed on. A 401 ends the sequence with
/// `SessionError.signedOut`; a 404 (not a member of the household) with
/// `LiveUpdatesError.refused`. Cancelling the task that iterates ends it cleanly.
public struct LiveUpdates: AsyncSequence, Sendable {
    public typealias Element = Components.Schemas.LiveEvent

    let session: QuestlineSession
    let householdID: String
    let lastEventID: String?
    let backoff: Backoff
    let sleep: @Sendable (Double) async throws -> Void

    /// - Parameter lastEventID: the id of the last event this app handled (kept across
    ///   launches), so a new sequence starts after it.
    public init(
        session: QuestlineSession, householdID: String, lastEventID: String? = nil, backoff: Backoff = Backoff(cap: 30),
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) {
        self.session = session
        self.householdID = householdID
        self.lastEventID = lastEventID
        self.backoff = backoff
        self.sleep = sleep
    }

    /// Iterates the events; dropping it (or cancelling its task) closes the connection.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator
        let connection: Connection

        public mutating func next() async throws -> Element? { try await base.next() }
    }

    /// Owns the task that holds the connection, and cancels it when the last iterator is gone.
    final class Connection: Sendable {
        let task: Task<Void, Never>
        init(_ task: Task<Void, Never>) { self.task = task }
        deinit { task.cancel() }
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
        let task = Task { [self] in
            do {
                try await run(continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error is CancellationError ? nil : error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return Iterator(base: stream.makeAsyncIterator(), connection: Connection(task))
    }

    private func run(_ continuation: AsyncThrowingStream<Element, any Error>.Continuation) async throws {
        var last = lastEventID
        var failures = 0
        let decoder = JSONDecoder()
        while !Task.isCancelled {
            var retryAfter: Double?
            do {
                let output = try await session.client.householdEvents(
                    path: .init(householdId: householdID), headers: .init(Last_hyphen_Event_hyphen_ID: last))
                switch output {
                case .ok(let ok):
                    let body = try ok.body.text_event_hyphen_stream
                    for try await event in body.asDecodedServerSentEvents() {
                        if let retry = event.retry { retryAfter = Double(retry) / 1000 }
                        guard event.event != "keep-alive", let data = event.data, !data.isEmpty else { continue }
                        let live = try decoder.decode(Element.self, from: Data(data.utf8))
                        if let id = event.id ?? live.id.map(String.init) { last = id }
                        failures = 0
                        continuation.yield(live)
                    }
                case .unauthorized:
                    try await session.signedOut()
                    throw SessionError.signedOut
                case .notFound, .badRequest:
                    throw LiveUpdatesError.refused(householdID)
                case .undocumented(let status, _):
                    retryAfter = nil
                    if (400..<500).contains(status) && status != 408 && status != 429 {
                        throw LiveUpdatesError.refused(householdID)
                    }
                }
            } catch let error as SessionError {
                throw error
            } catch let error as LiveUpdatesError {
                throw error
            } catch {
                if Task.isCancelled { return }
            }
            try await sleep(backoff.delay(attempt: failures, retryAfter: retryAfter))
            failures += 1
        }
    }
}

public enum LiveUpdatesError: Error, Equatable {
    /// The server refuses this household's stream to this member.
    case refused(String)
}
