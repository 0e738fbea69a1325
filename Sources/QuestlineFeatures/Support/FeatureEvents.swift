public import QuestlineCore

/// What a feature tells the others happened: the one typed path for reactions across features.
/// The composition root lists who listens, once; a feature that publishes knows none of them.
public enum FeatureEvent: Sendable {
    /// A member's time zone was set (to the same zone too, so that a retry runs what follows
    /// again): what depends on their local day follows (a child's family quests settle again).
    case zoneSet(MemberRecord)
}

/// A feature that reacts to other features' events.
public protocol FeatureEventListener: Sendable {
    /// Follows `event`; what it writes is written in `scope`, the publisher's (its acting member
    /// checked, its request's idempotency claim marked), as the publisher's own write.
    func handle(_ event: FeatureEvent, scope: WriteScope) async throws
}

/// The listeners of one composition. `publish` runs each in list order, after the publisher's
/// own write committed; a listener's failure fails the publisher's call (its retry publishes
/// again, and every reaction is written to be run again).
public struct FeatureEvents: Sendable {
    private let listeners: [any FeatureEventListener]

    public init(_ listeners: [any FeatureEventListener] = []) { self.listeners = listeners }

    public func publish(_ event: FeatureEvent, scope: WriteScope) async throws {
        for listener in listeners { try await listener.handle(event, scope: scope) }
    }
}
