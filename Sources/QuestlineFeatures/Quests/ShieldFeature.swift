import Foundation
public import QuestlineCore
import QuestlineStore

/// The shield: which apps a child has (the catalog the guardians keep and the one the device
/// reports), the rules that block reward apps (reward days, downtime), asking for more time, and
/// the policy the device enforces now.
public struct ShieldFeature: FamilyPart {
    let parts: FamilyFeatures.Parts
    /// Caps that keep every list a screen shows bounded.
    public static let maxApps = 100

    init(_ parts: FamilyFeatures.Parts) { self.parts = parts }

    // MARK: The app catalog

    public func apps(_ childID: MemberID, as actor: MemberRecord) async throws -> [QuestApp] {
        let child = try await access.child(childID, as: actor)
        return try await store.quests.read { try await $0.apps(child.id) }
    }

    public func putApp(
        _ childID: MemberID, as actor: MemberRecord, token: String, name: String, icon: String?, role: String,
        pointsPerMinute: Int?, scope: WriteScope
    ) async throws -> QuestApp {
        let child = try await access.child(childID, as: actor, manage: true)
        let app = try QuestApp.validated(
            token: token, name: name, icon: icon, role: role, pointsPerMinute: pointsPerMinute)
        try await store.quests.write(scope) { q in
            let apps = try await q.apps(child.id)
            if apps.count >= Self.maxApps, !apps.contains(where: { $0.token == app.token }) {
                throw DomainError.conflict(
                    field: "token", message: Message("quests.error.tooManyApps", ["count": .number(Self.maxApps)]))
            }
            if let existing = apps.first(where: { $0.token == app.token }), existing.role != app.role,
                try await q.quests(assignee: child.id).contains(where: { Self.uses($0.spec, app.token) })
            {
                throw DomainError.conflict(
                    field: "role",
                    message: Message("quests.error.appRoleInUse", ["app": .text(existing.name)]))
            }
            let now = clock.now()
            try await q.putApp(child.id, app, now: now)
            try await q.announce(.catalog, child: child, now: now)
        }
        return app
    }

    public func deleteApp(_ childID: MemberID, token: String, as actor: MemberRecord, scope: WriteScope) async throws {
        let child = try await access.child(childID, as: actor, manage: true)
        try await store.quests.write(scope) { q in
            if let quest = try await q.quests(assignee: child.id).first(where: { Self.uses($0.spec, token) }) {
                throw DomainError.conflict(
                    field: "token",
                    message: Message("quests.error.appInUse", ["quest": .text(quest.spec.title)]))
            }
            guard try await q.deleteApp(child.id, token: token) else {
                throw DomainError.notFound(Message("quests.error.noSuchApp", ["token": .text(token)]))
            }
            try await q.announce(.catalog, child: child, now: clock.now())
        }
    }

    static func uses(_ spec: QuestSpec, _ token: String) -> Bool {
        spec.learningApps.contains(token) || spec.rewardApps.contains { $0.token == token }
    }

    // MARK: The device's app catalog

    /// The child's device reports what is installed (replacing what it said before); the
    /// guardians' builder picks from it.
    public func reportDeviceApps(
        _ childID: MemberID, as actor: MemberRecord, apps items: [DeviceCatalog.Item], scope: WriteScope
    )
        async throws -> Int
    {
        let child = try await access.child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .actAsChild(child.scope, .reportDeviceApps))
        let apps = try DeviceCatalog.validate(items)
        let now = clock.now()
        try await store.quests.write(scope) { q in
            try await q.replaceDeviceApps(child.id, apps, now: now)
            try await q.announce(.catalog, child: child, now: now)
        }
        return apps.count
    }

    public func deviceApps(_ childID: MemberID, as actor: MemberRecord) async throws -> [(
        app: DeviceApp, hasIcon: Bool
    )] {
        let child = try await access.child(childID, as: actor)
        return try await store.quests.read { q in try await q.deviceApps(child.id) }
    }

    public func deviceIcon(_ childID: MemberID, token: String, as actor: MemberRecord) async throws -> [UInt8] {
        let child = try await access.child(childID, as: actor)
        guard let icon = try await store.quests.read({ try await $0.deviceIcon(child.id, token: token) }) else {
            throw DomainError.notFound(Message("quests.error.noIcon"))
        }
        return icon
    }

    // MARK: Asking for more time

    /// The child asks for minutes of a reward app, with a note; the household hears of it.
    public func askForTime(
        _ childID: MemberID, as actor: MemberRecord, appToken: String, minutes: Int, note: String, scope: WriteScope
    )
        async throws -> TimeRequest
    {
        let child = try await access.child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .actAsChild(child.scope, .askForTime))
        let now = clock.now()
        let zone = child.zone
        let today = LocalDay(now, in: zone)
        return try await store.quests.write(scope) { q in
            try await q.points.lock(child.id)  // one request at a time per child: the limits hold
            let rewardApps = Set(try await q.apps(child.id).filter { $0.role == .reward }.map(\.token))
            let counts = try await q.requestCounts(child.id, since: today.start(in: zone))
            let checked = try TimeRequest.check(
                appToken: appToken, minutes: minutes, note: note, rewardApps: rewardApps, pending: counts.pending,
                today: counts.since,
                secondsToTomorrow: Int(today.adding(days: 1).start(in: zone).timeIntervalSince(now)))
            let request = TimeRequest(
                id: ids.makeUUID().uuidString.lowercased(), child: child.id, appToken: appToken,
                minutes: checked.minutes, note: checked.note, state: .pending, createdAt: now, decidedAt: nil)
            try await q.insertRequest(request)
            try await q.announce(.request, child: child, now: now)
            return request
        }
    }

    /// The child's requests, newest first (the child and the household's guardians).
    public func timeRequests(_ childID: MemberID, as actor: MemberRecord) async throws -> [TimeRequest] {
        let child = try await access.child(childID, as: actor)
        return try await store.quests.read { q in try await q.requests(child.id) }
    }

    /// A request waiting for a guardian's answer, with the child and the app's name.
    public struct WaitingRequest: Sendable, Equatable {
        public let request: TimeRequest
        public let child: MemberRecord
        public let appName: String
    }

    /// The requests for more time waiting for an answer from the actor: every child's of their
    /// household when they are a guardian of it (none otherwise), oldest first. `children`: the
    /// household's children when the caller has them already.
    public func waitingRequests(as actor: MemberRecord, children known: [MemberRecord]? = nil) async throws
        -> [WaitingRequest]
    {
        guard let household = actor.householdID, AccessPolicy.allows(actor.actor, .manageHousehold(household)) else {
            return []
        }
        let children: [MemberRecord]
        if let known { children = known } else { children = try await access.children(as: actor) }
        let byID = Dictionary(children.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return try await store.quests.read { q in
            try await q.pendingRequests(children.map(\.id)).compactMap { pending in
                byID[pending.request.child].map {
                    WaitingRequest(
                        request: pending.request, child: $0, appName: pending.appName ?? pending.request.appToken)
                }
            }
        }
    }

    /// A guardian approves (which grants the minutes until the end of the child's day) or denies;
    /// a request is answered once, whoever answers first.
    public func decide(_ requestID: String, approve: Bool, as actor: MemberRecord, scope: WriteScope) async throws
        -> TimeRequest
    {
        guard let uuid = UUID(uuidString: requestID),
            let found = try await store.quests.read({ try await $0.request(uuid.uuidString.lowercased()) })
        else { throw DomainError.notFound(Message("quests.error.noSuchRequest")) }
        let child = try await access.child(found.child, as: actor, manage: true)
        let now = clock.now()
        return try await store.quests.write(scope) { q in
            var grantID: String?
            if approve {
                let grant = UnlockGrant(
                    id: ids.makeUUID().uuidString.lowercased(), token: found.appToken, minutes: found.minutes,
                    startsAt: now, expiresAt: UnlockGrant.expiry(now: now, zone: child.zone), questID: nil)
                grantID = grant.id
                try await q.insertGrant(child.id, grant, now: now)
            }
            guard
                try await q.decide(
                    found.id, state: approve ? .approved : .denied, by: actor.id, grant: grantID, now: now)
            else {
                throw DomainError.conflict(field: nil, message: Message("quests.error.requestAnswered"))
            }
            if grantID != nil {
                try await q.live?.record(
                    .rewardUnlocked, member: child.id,
                    data: OutboxData.RewardUnlocked(
                        memberId: child.id.rawValue, appToken: found.appToken, minutes: found.minutes, startsAt: now,
                        expiresAt: UnlockGrant.expiry(now: now, zone: child.zone), questId: nil,
                        notifyAt: try await q.questUpdateAt(child, now: now)), now: now)
                try await q.announce(.policy, child: child, now: now)
            }
            try await q.announce(.request, child: child, now: now)
            return try await q.request(found.id) ?? found
        }
    }

    // MARK: Shield rules and policy

    /// What the child's device enforces now (`ShieldPolicy.compute` over the grants and rules).
    public func policy(_ childID: MemberID, as actor: MemberRecord) async throws -> ShieldPolicy {
        let child = try await access.child(childID, as: actor)
        let now = clock.now()
        return try await store.quests.read { q in
            let apps = try await q.apps(child.id)
            let rules = try await q.shieldRules(child.id)
            let account = try await q.rewardAccount(child: child, since: now, now: now, apps: apps, rules: rules)
            return ShieldPolicy.compute(
                rewardApps: apps.filter { $0.role == .reward }.map(\.token), balances: account.balances, rules: rules,
                now: now, zone: child.zone)
        }
    }

    public func shieldRules(_ childID: MemberID, as actor: MemberRecord) async throws -> ShieldRules {
        let child = try await access.child(childID, as: actor)
        return try await store.quests.read { q in try await q.shieldRules(child.id) }
    }

    /// A guardian sets the child's rules; the devices hear of it (a `policy` live event).
    public func setShieldRules(
        _ childID: MemberID, as actor: MemberRecord, rewardDays: [Int], downtimeStart: Int?, downtimeEnd: Int?,
        scope: WriteScope
    ) async throws -> ShieldRules {
        let child = try await access.child(childID, as: actor, manage: true)
        let rules = try ShieldRules.validated(
            rewardDays: rewardDays, downtimeStart: downtimeStart, downtimeEnd: downtimeEnd)
        let now = clock.now()
        try await store.quests.write(scope) { q in
            try await q.setShieldRules(child.id, rules, now: now)
            try await q.announce(.policy, child: child, now: now)
        }
        return rules
    }
}
