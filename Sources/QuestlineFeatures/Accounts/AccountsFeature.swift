public import Foundation
public import QuestlineCore
public import QuestlineStore

/// A new session: the bearer token (shown once) and the member it signs in.
public struct SignedIn: Sendable {
    public let token: String
    public let expiresAt: Date
    public let member: MemberRecord
}

/// Account use cases, shared by the JSON API and the web pages: validate (core rules),
/// authorize (`AccessPolicy`), then read or write the store.
public struct AccountsFeature: Sendable {
    private let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    let passwords: PasswordHasher
    let sessionLifetime: TimeInterval
    let invitationLifetime: TimeInterval
    /// Failed logins per account and the lock that follows them.
    let loginGuard: AttemptGuard
    /// Recently authenticated sessions (a few seconds), dropped on every change to the member.
    let sessions: SessionCache
    /// Where a member's zone change is told to the features that follow it (no default: a
    /// composition that forgot its listeners would change zones without what follows).
    let events: FeatureEvents

    /// A secret every instance shares, made by the first that asks (the flash messages' key).
    public func sharedSecret(_ name: String) async throws -> String {
        try await store.accounts.sharedSecret(name, candidate: Secret.makeToken(), now: clock.now())
    }

    public init(store: Store, configuration: FeatureConfiguration, events: FeatureEvents) {
        self.events = events
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        passwords = PasswordHasher(cost: configuration.bcryptCost)
        sessionLifetime = configuration.sessionLifetime
        invitationLifetime = configuration.invitationLifetime
        loginGuard = AttemptGuard(
            store: store.limits, clock: configuration.clock, policy: configuration.rateLimits.logins)
        let sessions = SessionCache(lifetime: configuration.sessionCacheSeconds)
        self.sessions = sessions
        // What other instances change (a sign-out, a deletion, a new role) ends here too.
        store.live.watchSessions { change in sessions.apply(change) }
    }

    /// Drops what every instance cached of these members' sessions: at once here, and through
    /// the channel every instance listens to elsewhere.
    private func sessionsChanged(_ changes: [LiveEventLog.SessionChange]) async throws {
        for change in changes { sessions.apply(change) }
        try await store.live.announce(changes)
    }

    // MARK: Sign-up, login, logout

    public func signUp(email: String, password: String, displayName: String, timeZone: String, scope: WriteScope)
        async throws -> SignedIn
    {
        var validation = FieldValidation()
        let email = validation.check { () throws(DomainError) in try AccountRules.email(email) }
        let password = validation.check { () throws(DomainError) in try AccountRules.password(password) }
        let name = validation.check { () throws(DomainError) in try AccountRules.displayName(displayName) }
        let zone = validation.check { () throws(DomainError) in try AccountRules.timeZone(timeZone) }
        let checked = try validation.finish(email, password, name, zone)
        let member = try await store.accounts.createMember(
            NewMember(
                id: ids.make(), email: checked.0, username: nil, passwordHash: try await passwords.hash(checked.1),
                displayName: checked.2, timeZone: checked.3),
            now: clock.now(), scope: scope)
        return try await startSession(for: member, scope: scope)
    }

    public func logIn(login: String, password: String, scope: WriteScope) async throws -> SignedIn {
        var validation = FieldValidation()
        validation.check { () throws(DomainError) in
            if LoginName.key(login).isEmpty {
                throw .invalid(field: "login", Message("accounts.error.loginMissing"))
            }
        }
        validation.check { () throws(DomainError) in
            if password.isEmpty { throw .invalid(field: "password", Message("accounts.error.passwordMissing")) }
        }
        try validation.finish()
        // After repeated failures the account is locked for a while, doubling each time: the
        // same answer whether or not the account exists, so it reveals nothing.
        // Every spelling that reaches an account shares its lock (`LoginName.key`).
        let attempt = [AttemptSubject.login(LoginName.key(login))]
        if let seconds = try await loginGuard.lockedFor(attempt) {
            throw DomainError.tooManyRequests(
                retryAfter: seconds, Message("accounts.error.lockedOut", ["wait": .message(Self.wait(seconds))]))
        }
        guard let (member, hash) = try await store.accounts.credentials(login: login) else {
            // The same work as a known login: one bcrypt verification, against a hash made once.
            _ = try await passwords.verify(password, hash: try await passwords.decoyHash())
            try await loginGuard.failed(attempt)
            throw DomainError.unauthenticated(Message("accounts.error.badCredentials"))
        }
        guard try await passwords.verify(password, hash: hash) else {
            try await loginGuard.failed(attempt)
            throw DomainError.unauthenticated(Message("accounts.error.badCredentials"))
        }
        try await loginGuard.succeeded(attempt)
        return try await startSession(for: member, scope: scope)
    }

    /// How long to wait before trying again: "30 seconds", "5 minutes" (rounded up).
    public static func wait(_ seconds: Int) -> Message {
        seconds < 60
            ? Message("accounts.unit.seconds", ["count": .number(seconds)]) : .count((seconds + 59) / 60, .minutes)
    }

    private func startSession(for member: MemberRecord, scope: WriteScope) async throws -> SignedIn {
        let token = Secret.makeToken()
        let now = clock.now()
        let expires = now.addingTimeInterval(sessionLifetime)
        try await store.accounts.createSession(
            tokenHash: Secret.digest(token), member: member.id, now: now, expiresAt: expires, scope: scope)
        return SignedIn(token: token, expiresAt: expires, member: member)
    }

    public func logOut(_ identity: Identity, scope: WriteScope) async throws {
        _ = try identity.requireMember()
        if let hash = identity.tokenHash {
            try await store.accounts.revokeSession(tokenHash: hash, now: clock.now(), scope: scope)
            try await sessionsChanged([.session(tokenHash: hash)])
        }
    }

    /// The identity behind a bearer token or session cookie.
    public func authenticate(token: String) async throws -> Identity {
        guard !token.isEmpty, token.count <= 128 else {
            return Identity(member: nil, tokenHash: nil, failure: .invalidToken)
        }
        let hash = Secret.digest(token)
        let now = clock.now()
        let found: (SessionRecord, MemberRecord)?
        if let cached = sessions.lookup(hash, now: now) {
            found = cached
        } else {
            found = try await store.accounts.sessionMember(tokenHash: hash)
            if let (session, member) = found { sessions.remember(hash, session: session, member: member, now: now) }
        }
        guard let (session, member) = found, session.revokedAt == nil else {
            return Identity(member: nil, tokenHash: nil, failure: .invalidToken)
        }
        guard session.expiresAt > now else { return Identity(member: nil, tokenHash: nil, failure: .expired) }
        return Identity(member: member, tokenHash: hash, failure: nil)
    }

    // MARK: Profiles

    /// The member as stored now (after a change made through another use case).
    public func refreshed(_ member: MemberRecord) async throws -> MemberRecord? {
        try await store.accounts.member(member.id)
    }

    public func member(_ id: MemberID, as actor: MemberRecord) async throws -> MemberRecord {
        guard let target = try await store.accounts.member(id) else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try AccessPolicy.check(actor.actor, .readMember(target.scope))
        return target
    }

    /// Deletes a member (themself, or a guardian's child) and everything held about them, and
    /// ends their sessions on every instance. A child cannot delete its own account; a guardian
    /// who would leave children without a guardian is refused.
    public func deleteMember(_ id: MemberID, as actor: MemberRecord, scope: WriteScope) async throws {
        guard let target = try await store.accounts.member(id) else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try AccessPolicy.check(actor.actor, .deleteMember(target.scope))
        if target.role == .guardian, let household = target.householdID,
            let members = try await store.accounts.household(household)?.members,
            members.contains(where: { $0.role == .child }),
            !members.contains(where: { $0.role == .guardian && $0.id != target.id })
        {
            throw DomainError.conflict(field: nil, message: Message("households.error.lastGuardian"))
        }
        _ = try await store.accounts.deleteMember(
            id, outbox: store.outbox, eventID: ids.makeUUID().uuidString.lowercased(), now: clock.now(), scope: scope)
        try await sessionsChanged([.member(id)])
    }

    /// Everything held about the member, readable and grouped by feature (`MemberArchive`).
    public func export(_ actor: MemberRecord) async throws -> MemberArchive {
        try await PersonalData.export(actor.id, now: clock.now(), on: store.database)
    }

    public func updateProfile(
        _ id: MemberID, as actor: MemberRecord, displayName: String?, timeZone: String?, language: String? = nil,
        scope: WriteScope
    ) async throws -> MemberRecord {
        guard let target = try await store.accounts.member(id) else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try AccessPolicy.check(actor.actor, .updateMember(target.scope))
        var validation = FieldValidation()
        let name = displayName.flatMap { name in
            validation.check { () throws(DomainError) in try AccountRules.displayName(name) }
        }
        let zone = timeZone.flatMap { zone in
            validation.check { () throws(DomainError) in try AccountRules.timeZone(zone) }
        }
        let language = language.flatMap { code in
            validation.check { () throws(DomainError) in try GameLanguage(code).code }
        }
        try validation.finish()
        if let zone, zone.identifier != target.timeZone {
            try AccessPolicy.check(actor.actor, .changeTimeZone(target.scope))
        }
        guard
            let updated = try await store.accounts.updateProfile(
                id, displayName: name, timeZone: zone, language: language, now: clock.now(), scope: scope)
        else {
            throw DomainError.notFound(Message("accounts.error.noSuchMember"))
        }
        try await sessionsChanged([.member(id)])
        if zone != nil { try await events.publish(.zoneSet(updated), scope: scope) }
        return updated
    }

    // MARK: Administrators

    /// Grants the administrator role to the account with this login (an e-mail or a username,
    /// by `LoginName.key`), auditing who did it (`by`: "cli", "demo-data"). The operator's way
    /// in (`questline admin grant`); no request grants a role. Sessions of the member see the
    /// change at once on this instance, and within the session cache's seconds on others.
    public func setAdministrator(login: String, grant: Bool, by: String, scope: WriteScope) async throws -> (
        member: MemberRecord, changed: Bool
    ) {
        let key = LoginName.key(login)
        guard !key.isEmpty else {
            throw DomainError.invalid(field: "login", Message("accounts.error.adminLoginMissing"))
        }
        guard
            let result = try await store.accounts.setAdministrator(
                login: key, grant: grant, by: by, auditID: ids.makeUUID().uuidString.lowercased(), now: clock.now(),
                scope: scope)
        else { throw DomainError.notFound(Message("accounts.error.noSuchLogin", ["login": .text(key)])) }
        try await sessionsChanged([.member(result.member.id)])
        return result
    }

    /// Every administrator, with when the role was granted.
    public func administrators() async throws -> [(member: MemberRecord, since: Date)] {
        try await store.accounts.administrators()
    }

    /// The audit of administrator changes, newest first.
    public func administratorAudit(limit: Int = 100) async throws -> [AdministratorChange] {
        try await store.accounts.administratorAudit(limit: limit)
    }

    // MARK: Households

    public func createHousehold(name: String, as actor: MemberRecord, scope: WriteScope) async throws -> HouseholdRecord
    {
        let name = try AccountRules.householdName(name)
        guard actor.householdID == nil else {
            throw DomainError.conflict(field: nil, message: Message("households.error.alreadyMember"))
        }
        let household = try await store.accounts.createHousehold(
            id: ids.make(), name: name, guardian: actor.id, now: clock.now(), scope: scope)
        try await sessionsChanged([.member(actor.id)])
        return household
    }

    public func household(_ id: HouseholdID, as actor: MemberRecord) async throws -> HouseholdRecord {
        try AccessPolicy.check(actor.actor, .readHousehold(id))
        guard let household = try await store.accounts.household(id) else {
            throw DomainError.notFound(Message("households.error.noSuchHousehold"))
        }
        return household
    }

    public func createChild(
        in household: HouseholdID, as actor: MemberRecord, username: String, password: String,
        displayName: String, timeZone: String?, scope: WriteScope
    ) async throws -> MemberRecord {
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        var validation = FieldValidation()
        let username = validation.check { () throws(DomainError) in try AccountRules.username(username) }
        let password = validation.check { () throws(DomainError) in try AccountRules.password(password) }
        let name = validation.check { () throws(DomainError) in try AccountRules.displayName(displayName) }
        let zone = validation.check { () throws(DomainError) in try AccountRules.timeZone(timeZone ?? actor.timeZone) }
        let checked = try validation.finish(username, password, name, zone)
        return try await store.accounts.createChild(
            NewMember(
                id: ids.make(), email: nil, username: checked.0, passwordHash: try await passwords.hash(checked.1),
                displayName: checked.2, timeZone: checked.3),
            household: household, now: clock.now(), scope: scope)
    }

    /// An invitation code (shown once) for an existing account to join as `role`.
    public func invite(to household: HouseholdID, role: HouseholdRole, as actor: MemberRecord, scope: WriteScope)
        async throws -> (
            code: String, expiresAt: Date
        )
    {
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        let code = Secret.makeCode()
        let now = clock.now()
        let expires = now.addingTimeInterval(invitationLifetime)
        try await store.accounts.createInvitation(
            codeHash: Secret.digest(code), household: household, role: role,
            by: actor.id, now: now, expiresAt: expires, scope: scope)
        return (code, expires)
    }

    public func acceptInvitation(code: String, as actor: MemberRecord, scope: WriteScope) async throws
        -> HouseholdRecord
    {
        let normalized = code.trimmed(newlines: false).uppercased()
        guard !normalized.isEmpty else {
            throw DomainError.invalid(field: "code", Message("households.error.codeMissing"))
        }
        guard actor.householdID == nil else {
            throw DomainError.conflict(field: "code", message: Message("households.error.alreadyMember"))
        }
        let household = try await store.accounts.acceptInvitation(
            codeHash: Secret.digest(normalized), member: actor.id, now: clock.now(), scope: scope)
        try await sessionsChanged([.member(actor.id)])
        return household
    }
}
