public import Foundation
public import QuestlineCore
import SQLKit

enum AccountsSchema: StoreModule {
    /// The audit of administrator changes keeps that a change was made, not to whom.
    static func forget(_ member: PersonalData.Departing, on db: any SQLDatabase) async throws {
        try await db.raw(
            "UPDATE admin_audit SET member_id = NULL, login = NULL WHERE member_id = \(bind: member.id.rawValue)"
        ).run()
    }

    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "members", column: "id", secret: ["password_hash"], export: (.profile, "account")),
        PersonalData.Holding(table: "household_members", column: "member_id", export: (.profile, "household")),
        PersonalData.Holding(
            table: "sessions", column: "member_id", secret: ["token_hash"], export: (.profile, "sessions")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "accounts",
            [
                """
                CREATE TABLE members (
                    id TEXT PRIMARY KEY,
                    email TEXT UNIQUE,
                    username TEXT UNIQUE,
                    password_hash TEXT NOT NULL,
                    display_name TEXT NOT NULL,
                    time_zone TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    CHECK (email IS NOT NULL OR username IS NOT NULL)
                )
                """,
                """
                CREATE TABLE households (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE household_members (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('guardian', 'child')),
                    joined_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX household_members_by_household ON household_members (household_id)",
                """
                CREATE TABLE sessions (
                    token_hash TEXT PRIMARY KEY,
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT
                )
                """,
                "CREATE INDEX sessions_by_member ON sessions (member_id)",
                """
                CREATE TABLE invitations (
                    code_hash TEXT PRIMARY KEY,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('guardian', 'child')),
                    created_by TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    accepted_by TEXT REFERENCES members(id) ON DELETE SET NULL,
                    accepted_at BIGINT
                )
                """,
            ]),
        // The member's primary language (the game's, by default); NULL until chosen.
        Migration(version: 3, name: "member_language", ["ALTER TABLE members ADD COLUMN language TEXT"]),
        // Secrets every instance shares (the flash messages' signing key): made once, by whichever
        // instance asks first.
        Migration(
            version: 4, name: "server_secrets",
            ["CREATE TABLE server_secrets (name TEXT PRIMARY KEY, secret TEXT NOT NULL, created_at BIGINT NOT NULL)"]),
        // Administrators are a stored role, granted and revoked by the operator (`questline admin`),
        // each change audited. An account's e-mail gives no role: it is never verified.
        Migration(
            version: 5, name: "administrators",
            [
                "ALTER TABLE members ADD COLUMN administrator_since BIGINT",
                """
                CREATE TABLE admin_audit (
                    id TEXT PRIMARY KEY,
                    at BIGINT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('grant', 'revoke')),
                    member_id TEXT,
                    login TEXT,
                    by_whom TEXT NOT NULL
                )
                """,
            ]),
    ]
}

public struct NewMember: Sendable {
    public let id: MemberID
    public let email: String?
    public let username: String?
    public let passwordHash: String
    public let displayName: String
    public let timeZone: TimeZoneID

    public init(
        id: MemberID, email: String?, username: String?, passwordHash: String, displayName: String, timeZone: TimeZoneID
    ) {
        self.id = id
        self.email = email
        self.username = username
        self.passwordHash = passwordHash
        self.displayName = displayName
        self.timeZone = timeZone
    }
}

/// One audited grant or revocation of the administrator role (the member and login are
/// forgotten when the account is deleted).
public struct AdministratorChange: Sendable, Equatable {
    public let at: Date
    public let granted: Bool
    public let memberID: MemberID?
    public let login: String?
    public let by: String
}

public struct SessionRecord: Sendable, Equatable {
    public let memberID: MemberID
    public let expiresAt: Date
    public let revokedAt: Date?
}

public struct InvitationRecord: Sendable, Equatable {
    public let householdID: HouseholdID
    public let role: HouseholdRole
    public let expiresAt: Date
    public let acceptedBy: MemberID?
}

/// Members, sessions, households and invitations.
public struct AccountStore: Sendable {
    let database: Database

    public init(_ database: Database) { self.database = database }

    private static let memberColumns = """
        m.id, m.email, m.username, m.display_name, m.time_zone, m.created_at, m.language, m.administrator_since,
        hm.household_id, hm.role
        """

    static func decodeMember(_ row: any SQLRow) throws -> MemberRecord {
        let household = try row.decode(column: "household_id", as: String?.self)
        let role = try row.decode(column: "role", as: String?.self)
        return MemberRecord(
            id: try row.decode(column: "id", as: MemberID.self),
            email: try row.decode(column: "email", as: String?.self),
            username: try row.decode(column: "username", as: String?.self),
            displayName: try row.decode(column: "display_name", as: String.self),
            timeZone: try row.decode(column: "time_zone", as: String.self),
            householdID: household.flatMap { HouseholdID($0) },
            role: role.flatMap { HouseholdRole(rawValue: $0) },
            createdAt: Date(storedMillis: try row.decode(column: "created_at", as: Int64.self)),
            language: try row.decode(column: "language", as: String?.self),
            isAdministrator: try row.decode(column: "administrator_since", as: Int64?.self) != nil)
    }

    // MARK: Members

    /// Inserts a member; a taken e-mail or username is a conflict naming that field.
    /// The secret stored under `name`: `candidate` when none was (this call stores it), else the
    /// one stored first, so that every instance uses the same.
    public func sharedSecret(_ name: String, candidate: String, now: Date) async throws -> String {
        try await database.transaction(.system) { db in
            try await db.raw(
                """
                INSERT INTO server_secrets (name, secret, created_at)
                VALUES (\(bind: name), \(bind: candidate), \(bind: now.storedMillis))
                ON CONFLICT (name) DO NOTHING
                """
            ).run()
            guard
                let row = try await db.raw("SELECT secret FROM server_secrets WHERE name = \(bind: name)").first()
            else { throw StoreError.noRowReturned("server secret \(name)") }
            return try row.decode(column: "secret", as: String.self)
        }
    }

    public func createMember(_ new: NewMember, now: Date, scope: WriteScope) async throws -> MemberRecord {
        try await database.transaction(scope) { db in
            try await Self.insertMember(new, now: now, db: db)
            return try await Self.member(new.id, db: db).orNoRow("the member just written")
        }
    }

    static func insertMember(_ new: NewMember, now: Date, db: any SQLDatabase) async throws {
        do {
            try await db.raw(
                """
                INSERT INTO members (id, email, username, password_hash, display_name, time_zone, created_at, updated_at)
                VALUES (\(bind: new.id.rawValue), \(bind: new.email), \(bind: new.username), \(bind: new.passwordHash),
                        \(bind: new.displayName), \(bind: new.timeZone.identifier), \(bind: now.storedMillis), \(bind: now.storedMillis))
                """
            ).run()
        } catch  where isUniqueViolation(error) {
            if new.email != nil {
                throw DomainError.conflict(field: "email", message: Message("accounts.error.emailTaken"))
            }
            throw DomainError.conflict(field: "username", message: Message("accounts.error.usernameTaken"))
        }
    }

    public func member(_ id: MemberID) async throws -> MemberRecord? {
        try await database.withConnection { db in try await Self.member(id, db: db) }
    }

    static func member(_ id: MemberID, db: any SQLDatabase) async throws -> MemberRecord? {
        try await db.raw(
            """
            SELECT \(unsafeRaw: memberColumns) FROM members m
            LEFT JOIN household_members hm ON hm.member_id = m.id
            WHERE m.id = \(bind: id.rawValue)
            """
        ).first().map(decodeMember)
    }

    /// The member and password hash for a login name (an e-mail or a child's username), looked
    /// up by its key (`LoginName.key`, the key sign-up stored).
    public func credentials(login: String) async throws -> (MemberRecord, passwordHash: String)? {
        let key = LoginName.key(login)
        return try await database.withConnection { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.memberColumns), m.password_hash FROM members m
                    LEFT JOIN household_members hm ON hm.member_id = m.id
                    WHERE m.email = \(bind: key) OR m.username = \(bind: key)
                    """
                ).first()
            else { return nil }
            return (try Self.decodeMember(row), try row.decode(column: "password_hash", as: String.self))
        }
    }

    /// Changes the given fields; nil leaves a field as it is.
    public func updateProfile(
        _ id: MemberID, displayName: String?, timeZone: TimeZoneID?, language: String? = nil, now: Date,
        scope: WriteScope
    ) async throws -> MemberRecord? {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                UPDATE members SET
                    display_name = COALESCE(\(bind: displayName), display_name),
                    time_zone = COALESCE(\(bind: timeZone?.identifier), time_zone),
                    language = COALESCE(\(bind: language), language),
                    updated_at = \(bind: now.storedMillis)
                WHERE id = \(bind: id.rawValue)
                """
            ).run()
            return try await Self.member(id, db: db)
        }
    }

    // MARK: Administrators

    /// Grants (or with `grant: false` revokes) the administrator role of the account whose login
    /// key (`LoginName.key`) is `login`, and audits the change (`admin_audit`, with `by`: who
    /// made it). Returns the member as it is now, or nil when there is no such account. Granting
    /// a role held already (or revoking one not held) changes and audits nothing.
    public func setAdministrator(
        login: String, grant: Bool, by: String, auditID: String, now: Date, scope: WriteScope
    ) async throws -> (member: MemberRecord, changed: Bool)? {
        try await database.transaction(scope) { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT id, administrator_since FROM members WHERE email = \(bind: login) OR username = \(bind: login)
                    """
                ).first()
            else { return nil }
            let id = try row.decode(column: "id", as: MemberID.self)
            let holds = try row.decode(column: "administrator_since", as: Int64?.self) != nil
            guard holds != grant else {
                return (try await Self.member(id, db: db).orNoRow("the member just written"), false)
            }
            try await db.raw(
                """
                UPDATE members SET administrator_since = \(bind: grant ? now.storedMillis : nil as Int64?)
                WHERE id = \(bind: id.rawValue)
                """
            ).run()
            try await db.raw(
                """
                INSERT INTO admin_audit (id, at, action, member_id, login, by_whom)
                VALUES (\(bind: auditID), \(bind: now.storedMillis), \(bind: grant ? "grant" : "revoke"),
                        \(bind: id.rawValue), \(bind: login), \(bind: by))
                """
            ).run()
            return (try await Self.member(id, db: db).orNoRow("the member just written"), true)
        }
    }

    /// Every administrator, with when the role was granted, oldest first.
    public func administrators() async throws -> [(member: MemberRecord, since: Date)] {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.memberColumns) FROM members m
                LEFT JOIN household_members hm ON hm.member_id = m.id
                WHERE m.administrator_since IS NOT NULL ORDER BY m.administrator_since, m.id
                """
            ).all().map { row in
                (
                    try Self.decodeMember(row),
                    Date(storedMillis: try row.decode(column: "administrator_since", as: Int64.self))
                )
            }
        }
    }

    /// The audit of administrator changes, newest first.
    public func administratorAudit(limit: Int = 100) async throws -> [AdministratorChange] {
        try await database.withConnection { db in
            try await db.raw(
                """
                SELECT at, action, member_id, login, by_whom FROM admin_audit ORDER BY at DESC, id DESC
                LIMIT \(bind: limit)
                """
            ).all().map { row in
                AdministratorChange(
                    at: Date(storedMillis: try row.decode(column: "at", as: Int64.self)),
                    granted: try row.decode(column: "action", as: String.self) == "grant",
                    memberID: try row.decode(column: "member_id", as: String?.self).flatMap { MemberID($0) },
                    login: try row.decode(column: "login", as: String?.self),
                    by: try row.decode(column: "by_whom", as: String.self))
            }
        }
    }

    // MARK: Sessions

    public func createSession(tokenHash: String, member: MemberID, now: Date, expiresAt: Date, scope: WriteScope)
        async throws
    {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO sessions (token_hash, member_id, created_at, expires_at)
                VALUES (\(bind: tokenHash), \(bind: member.rawValue), \(bind: now.storedMillis), \(bind: expiresAt.storedMillis))
                """
            ).run()
        }
    }

    /// The session and its member in one query (the hot path of every signed-in request).
    public func sessionMember(tokenHash: String) async throws -> (SessionRecord, MemberRecord)? {
        try await database.withConnection { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT s.expires_at, s.revoked_at, \(unsafeRaw: Self.memberColumns) FROM sessions s
                    JOIN members m ON m.id = s.member_id
                    LEFT JOIN household_members hm ON hm.member_id = m.id
                    WHERE s.token_hash = \(bind: tokenHash)
                    """
                ).first()
            else { return nil }
            let member = try Self.decodeMember(row)
            let session = SessionRecord(
                memberID: member.id,
                expiresAt: Date(storedMillis: try row.decode(column: "expires_at", as: Int64.self)),
                revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Date.init(storedMillis:)))
            return (session, member)
        }
    }

    /// Deletes sessions expired or revoked before `cutoff`; returns how many.
    @discardableResult
    public func purgeSessions(endedBefore cutoff: Date) async throws -> Int {
        try await database.transaction(.system) { db in
            let rows = try await db.raw(
                """
                DELETE FROM sessions WHERE expires_at < \(bind: cutoff.storedMillis) OR revoked_at < \(bind: cutoff.storedMillis)
                RETURNING token_hash
                """
            ).all()
            return rows.count
        }
    }

    /// Deletes `member` and everything held about them in one transaction (`PersonalData`), with
    /// a `member.deleted` event for webhooks; false when there was no such member.
    public func deleteMember(_ member: MemberID, outbox: Outbox, eventID: String, now: Date, scope: WriteScope)
        async throws -> Bool
    {
        // The member's row is held first (`FOR UPDATE`): a write acting for them either commits
        // before (and its rows are deleted here) or finds them gone (`WriteScope`). The
        // deletion itself acts for no one (a member may delete themself).
        let lock = database.flavor == .postgres ? " FOR UPDATE" : ""
        return try await database.transaction(scope.withoutMembers) { db in
            guard
                let row = try await db.raw(
                    "SELECT email, username FROM members WHERE id = \(bind: member.rawValue)\(unsafeRaw: lock)"
                ).first()
            else { return false }
            let login = [
                try row.decode(column: "email", as: String?.self), try row.decode(column: "username", as: String?.self),
            ].compactMap { $0 }
            try await PersonalData.delete(member, login: login, on: db)
            try await outbox.record(
                .memberDeleted, member: nil, data: OutboxData.MemberDeleted(memberId: member.rawValue), id: eventID,
                now: now, on: db)
            return true
        }
    }

    public func revokeSession(tokenHash: String, now: Date, scope: WriteScope) async throws {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                UPDATE sessions SET revoked_at = \(bind: now.storedMillis)
                WHERE token_hash = \(bind: tokenHash) AND revoked_at IS NULL
                """
            ).run()
        }
    }

    // MARK: Households

    /// Creates a household with `guardian` as its first guardian. A member belongs to at most
    /// one household.
    public func createHousehold(id: HouseholdID, name: String, guardian: MemberID, now: Date, scope: WriteScope)
        async throws
        -> HouseholdRecord
    {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO households (id, name, created_at) VALUES (\(bind: id.rawValue), \(bind: name), \(bind: now.storedMillis))
                """
            ).run()
            try await Self.join(household: id, member: guardian, role: .guardian, now: now, db: db)
            return try await Self.household(id, db: db).orNoRow("the household just written")
        }
    }

    static func join(household: HouseholdID, member: MemberID, role: HouseholdRole, now: Date, db: any SQLDatabase)
        async throws
    {
        do {
            try await db.raw(
                """
                INSERT INTO household_members (member_id, household_id, role, joined_at)
                VALUES (\(bind: member.rawValue), \(bind: household.rawValue), \(bind: role.rawValue), \(bind: now.storedMillis))
                """
            ).run()
        } catch  where isUniqueViolation(error) {
            throw DomainError.conflict(field: nil, message: Message("households.error.alreadyMember"))
        }
    }

    public func household(_ id: HouseholdID) async throws -> HouseholdRecord? {
        try await database.withConnection { db in try await Self.household(id, db: db) }
    }

    static func household(_ id: HouseholdID, db: any SQLDatabase) async throws -> HouseholdRecord? {
        guard let row = try await db.raw("SELECT id, name FROM households WHERE id = \(bind: id.rawValue)").first()
        else {
            return nil
        }
        let members = try await db.raw(
            """
            SELECT \(unsafeRaw: memberColumns) FROM household_members hm
            JOIN members m ON m.id = hm.member_id
            WHERE hm.household_id = \(bind: id.rawValue)
            ORDER BY hm.role DESC, hm.joined_at, m.id
            """
        ).all().map(decodeMember)
        return HouseholdRecord(id: id, name: try row.decode(column: "name", as: String.self), members: members)
    }

    /// Creates a child account inside a household, in one transaction.
    public func createChild(_ new: NewMember, household: HouseholdID, now: Date, scope: WriteScope) async throws
        -> MemberRecord
    {
        try await database.transaction(scope) { db in
            try await Self.insertMember(new, now: now, db: db)
            try await Self.join(household: household, member: new.id, role: .child, now: now, db: db)
            return try await Self.member(new.id, db: db).orNoRow("the member just written")
        }
    }

    // MARK: Invitations

    public func createInvitation(
        codeHash: String, household: HouseholdID, role: HouseholdRole, by creator: MemberID, now: Date, expiresAt: Date,
        scope: WriteScope
    ) async throws {
        try await database.transaction(scope) { db in
            try await db.raw(
                """
                INSERT INTO invitations (code_hash, household_id, role, created_by, created_at, expires_at)
                VALUES (\(bind: codeHash), \(bind: household.rawValue), \(bind: role.rawValue), \(bind: creator.rawValue),
                        \(bind: now.storedMillis), \(bind: expiresAt.storedMillis))
                """
            ).run()
        }
    }

    /// Accepts an invitation: valid, unexpired and unused; the member joins in the same
    /// transaction that marks it used, so a code works once.
    public func acceptInvitation(codeHash: String, member: MemberID, now: Date, scope: WriteScope) async throws
        -> HouseholdRecord
    {
        try await database.transaction(scope) { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT household_id, role, expires_at, accepted_by FROM invitations WHERE code_hash = \(bind: codeHash)
                    """
                ).first(),
                try row.decode(column: "accepted_by", as: String?.self) == nil,
                try row.decode(column: "expires_at", as: Int64.self) > now.storedMillis
            else { throw DomainError.notFound(Message("households.error.unknownInvitation")) }
            let household = try row.decode(column: "household_id", as: HouseholdID.self)
            let role = HouseholdRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .child
            try await Self.join(household: household, member: member, role: role, now: now, db: db)
            try await db.raw(
                """
                UPDATE invitations SET accepted_by = \(bind: member.rawValue), accepted_at = \(bind: now.storedMillis)
                WHERE code_hash = \(bind: codeHash)
                """
            ).run()
            return try await Self.household(household, db: db).orNoRow("the household just written")
        }
    }

    /// How many members exist (for demo-data checks and health).
    public func memberCount() async throws -> Int {
        try await database.withConnection { db in
            try await db.raw("SELECT COUNT(*) AS n FROM members").first().orNoRow("COUNT members").decode(
                column: "n", as: Int.self)
        }
    }
}
