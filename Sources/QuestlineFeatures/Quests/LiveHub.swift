import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore

/// Something changed in a household's quests: progress, grants, points, challenges.
public struct LiveEvent: Sendable, Equatable, Codable {
    public let kind: String
    public let childId: String?
    public let challengeId: String?

    public init(kind: String, childId: String? = nil, challengeId: String? = nil) {
        self.kind = kind
        self.childId = childId
        self.challengeId = challengeId
    }
}

/// Fans household events out to the connected pages and devices of that household (server-sent
/// events). In-process: one instance serves a household's devices. Several instances behind a
/// load balancer would relay through PostgreSQL LISTEN/NOTIFY (see ARCHITECTURE.md); not built.
public final class LiveHub: Sendable {
    private struct Subscriber {
        let household: HouseholdID
        let continuation: AsyncStream<LiveEvent>.Continuation
    }

    private let subscribers = NIOLockedValueBox<[UUID: Subscriber]>([:])

    public init() {}

    /// A stream of the household's events until the caller stops listening.
    public func subscribe(_ household: HouseholdID) -> AsyncStream<LiveEvent> {
        let id = UUID.random()
        let (stream, continuation) = AsyncStream.makeStream(of: LiveEvent.self, bufferingPolicy: .bufferingNewest(32))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.removeValue(forKey: id) }
        }
        subscribers.withLockedValue { $0[id] = Subscriber(household: household, continuation: continuation) }
        return stream
    }

    /// Devices listening now (`questline_live_subscribers`).
    public var subscriberCount: Int { subscribers.withLockedValue { $0.count } }

    public func publish(_ event: LiveEvent, to household: HouseholdID) {
        let targets = subscribers.withLockedValue { $0.values.filter { $0.household == household }.map(\.continuation) }
        for continuation in targets { continuation.yield(event) }
    }
}
