public import Foundation
internal import OpenAPIRuntime
internal import QuestlineAPI
internal import QuestlineClient
public import QuestlineCore

/// What a child's device needs to apply the shield between syncs: the server's policy, and the
/// grants, rules and zone it was computed from, kept on disk.
public struct ShieldSnapshot: Sendable, Equatable, Codable {
    public struct Grant: Sendable, Equatable, Codable {
        public let id: String
        public let appToken: String
        public let minutesLeft: Int
        public let startsAt: Date
        public let expiresAt: Date
    }

    public let childID: String
    /// The policy's ETag: sent as If-None-Match, so an unchanged policy costs a 304.
    public let etag: String
    public let fetchedAt: Date
    /// The reward apps the policy covers.
    public let rewardApps: [String]
    public let grants: [Grant]
    public let rewardDays: [Int]
    public let downtime: [Int]?
    public let timeZone: String

    /// The policy at `instant`, computed on the device with the core's rules (`ShieldPolicy`,
    /// `RewardUse`): the grants as the server left them, less the use this device reported
    /// after the snapshot (`localUse`, e.g. the outbox's waiting usage reports).
    public func policy(at instant: Date, localUse: [UsageRecord] = []) -> ShieldPolicy {
        let zone = TimeZoneID(timeZone) ?? .utc
        let rules = ShieldRules(
            rewardDays: Set(rewardDays),
            downtime: downtime.flatMap { $0.count == 2 ? LocalHours(start: $0[0], end: $0[1]) : nil })
        let unlocks = grants.map {
            UnlockGrant(
                id: $0.id, token: $0.appToken, minutes: $0.minutesLeft, startsAt: $0.startsAt, expiresAt: $0.expiresAt,
                questID: nil)
        }
        let account = RewardUse.account(
            grants: unlocks, reports: localUse.filter { $0.end > fetchedAt }, rewardApps: Set(rewardApps),
            rules: rules, zone: zone.timeZone)
        return ShieldPolicy.compute(
            rewardApps: rewardApps, balances: account.balances, rules: rules, now: instant, zone: zone.timeZone)
    }
}

/// Keeps a child's shield snapshot fresh and on disk (`shield.json` in its directory).
public actor ShieldKeeper {
    public let childID: String
    private let session: QuestlineSession
    private let file: URL
    private let clock: @Sendable () -> Date
    public private(set) var snapshot: ShieldSnapshot?

    public init(
        session: QuestlineSession, childID: String, directory: URL, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.session = session
        self.childID = childID
        self.clock = clock
        file = directory.appendingPathComponent("shield.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let data = FileManager.default.contents(atPath: file.path),
            let saved = try? Snapshots.decoder.decode(ShieldSnapshot.self, from: data), saved.childID == childID
        {
            snapshot = saved
        }
    }

    /// Asks the server whether the policy changed (If-None-Match: a 304 costs nothing) and, when
    /// it did, fetches what it is computed from. Returns whether the snapshot changed.
    @discardableResult
    public func refresh() async throws -> Bool {
        let client = session.client
        let output = try await client.getShieldPolicy(
            path: .init(childId: childID), headers: .init(If_hyphen_None_hyphen_Match: snapshot?.etag))
        let policy: Components.Schemas.ShieldPolicy
        let etag: String
        switch output {
        case .notModified: return false
        case .ok(let ok):
            policy = try ok.body.json
            etag = ok.headers.ETag
        case .unauthorized:
            try await session.signedOut()
            throw SessionError.signedOut
        default: throw SessionError.unexpected(QuestlineSession.describe(output))
        }
        let fetchedAt = clock().wholeSeconds
        let grants = try await client.listGrants(path: .init(childId: childID)).ok.body.json
        let rules = try await client.getShieldRules(path: .init(childId: childID)).ok.body.json
        let zone = try await client.getMember(path: .init(memberId: childID)).ok.body.json.timeZone
        let fresh = ShieldSnapshot(
            childID: childID, etag: etag, fetchedAt: fetchedAt, rewardApps: policy.apps.map(\.appToken),
            grants: grants.map {
                .init(
                    id: $0.id, appToken: $0.appToken, minutesLeft: $0.minutesLeft, startsAt: $0.startsAt,
                    expiresAt: $0.expiresAt)
            }, rewardDays: rules.rewardDays, downtime: rules.downtime.map { [$0.start, $0.end] }, timeZone: zone)
        try Snapshots.encoder.encode(fresh).write(to: file, options: .atomic)
        snapshot = fresh
        return true
    }

    /// The policy at `instant` without the network (nil before the first fetch).
    public func policy(at instant: Date, localUse: [UsageRecord] = []) -> ShieldPolicy? {
        snapshot?.policy(at: instant, localUse: localUse)
    }
}
