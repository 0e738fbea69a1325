import Foundation
import QuestlineCore
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)

private func newMember(email: String? = nil, username: String? = nil, name: String = "Ada") -> NewMember {
    NewMember(
        id: MemberID(UUID()), email: email, username: username, passwordHash: "hash", displayName: name,
        timeZone: TimeZoneID("Europe/Berlin")!)
}

@Suite struct MigrationTests {
    @Test(arguments: TestDatabase.available)
    func migrationsApplyOnceAndAreRecorded(_ db: TestDatabase) async throws {
        try await db.withStore(migrate: false) { store in
            let first = try await Migrator().migrate(store.database)
            #expect(first.map(\.version) == Migrations.all.map(\.version).sorted())
            let second = try await Migrator().migrate(store.database)
            #expect(second.isEmpty)
            #expect(try await Migrator().appliedVersions(store.database) == Migrations.all.map(\.version).sorted())
        }
    }

    @Test(arguments: TestDatabase.available)
    func aFailingMigrationLeavesNothingBehind(_ db: TestDatabase) async throws {
        try await db.withStore(migrate: false) { store in
            let broken = Migrator(
                Migrations.all + [
                    Migration(
                        version: 9999, name: "broken",
                        [
                            "CREATE TABLE half_done (id TEXT)",
                            "THIS IS NOT SQL",
                        ])
                ])
            await #expect(throws: StoreError.self) { try await broken.migrate(store.database) }
            // The whole run rolled back: no table of it exists, not even schema_migrations (asked
            // of the catalogue, so that a failing query cannot pass for an absent table).
            let tables = try await store.database.withConnection { sql in
                store.database.flavor == .sqlite
                    ? try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table'").all()
                        .map { try $0.decode(column: "name", as: String.self) }
                    : try await sql.raw("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()")
                        .all().map { try $0.decode(column: "name", as: String.self) }
            }
            #expect(tables.filter { !$0.hasPrefix("sqlite_") } == [], "\(tables)")
            #expect(try await Migrator().appliedVersions(store.database) == [])
            // And the good migrations still apply afterwards.
            let reapplied = try await Migrator().migrate(store.database)
            #expect(reapplied.count == Migrations.all.count)
        }
    }
}

@Suite struct AccountStoreTests {
    @Test(arguments: TestDatabase.available)
    func membersAreCreatedReadAndUpdated(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let new = newMember(email: "ada@example.com")
            let created = try await store.accounts.createMember(new, now: t0, scope: .system)
            #expect(created.email == "ada@example.com")
            #expect(created.householdID == nil)
            #expect(created.createdAt == t0)
            #expect(try await store.accounts.member(new.id) == created)

            let found = try await store.accounts.credentials(login: " ADA@example.com ")
            #expect(found?.0.id == new.id)
            #expect(found?.passwordHash == "hash")

            let renamed = try await store.accounts.updateProfile(
                new.id, displayName: "Ada L.", timeZone: nil, now: t0, scope: .system)
            #expect(renamed?.displayName == "Ada L.")
            #expect(renamed?.timeZone == "Europe/Berlin")
            let moved = try await store.accounts.updateProfile(
                new.id, displayName: nil, timeZone: TimeZoneID("Asia/Kolkata"), now: t0, scope: .system)
            #expect(moved?.displayName == "Ada L.")
            #expect(moved?.timeZone == "Asia/Kolkata")
            #expect(
                try await store.accounts.updateProfile(
                    MemberID(UUID()), displayName: "x", timeZone: nil, now: t0, scope: .system)
                    == nil)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aTakenEmailIsAConflictOnTheEmailField(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            _ = try await store.accounts.createMember(newMember(email: "ada@example.com"), now: t0, scope: .system)
            await #expect(
                throws: DomainError.conflict(field: "email", message: Message("accounts.error.emailTaken"))
            ) {
                try await store.accounts.createMember(newMember(email: "ada@example.com"), now: t0, scope: .system)
            }
            #expect(try await store.accounts.memberCount() == 1)
        }
    }

    @Test(arguments: TestDatabase.available)
    func sessionsExpireAndRevoke(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let member = try await store.accounts.createMember(
                newMember(email: "ada@example.com"), now: t0, scope: .system)
            try await store.accounts.createSession(
                tokenHash: "h1", member: member.id, now: t0, expiresAt: t0 + 3600, scope: .system)
            let found = try await store.accounts.sessionMember(tokenHash: "h1")
            #expect(found?.1 == member)
            #expect(found?.0.expiresAt == t0 + 3600)
            #expect(found?.0.revokedAt == nil)
            try await store.accounts.revokeSession(tokenHash: "h1", now: t0 + 60, scope: .system)
            #expect(try await store.accounts.sessionMember(tokenHash: "h1")?.0.revokedAt == t0 + 60)
            #expect(try await store.accounts.sessionMember(tokenHash: "unknown") == nil)
        }
    }

    @Test(arguments: TestDatabase.available)
    func householdsHoldGuardiansAndChildren(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let guardian = try await store.accounts.createMember(
                newMember(email: "g@example.com", name: "Grace"), now: t0, scope: .system)
            let home = HouseholdID(UUID())
            let household = try await store.accounts.createHousehold(
                id: home, name: "Home", guardian: guardian.id, now: t0, scope: .system)
            #expect(household.members.map(\.role) == [.guardian])

            let child = try await store.accounts.createChild(
                newMember(username: "kid", name: "Kid"), household: home, now: t0, scope: .system)
            #expect(child.role == .child)
            #expect(child.householdID == home)
            #expect(try await store.accounts.credentials(login: "KID")?.0.id == child.id)
            #expect(try await store.accounts.household(home)?.members.count == 2)

            // One household per member.
            await #expect(throws: DomainError.self) {
                try await store.accounts.createHousehold(
                    id: HouseholdID(UUID()), name: "Second", guardian: guardian.id, now: t0, scope: .system)
            }
            #expect(try await store.accounts.member(guardian.id)?.householdID == home)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aChildWithATakenUsernameWritesNothing(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let guardian = try await store.accounts.createMember(
                newMember(email: "g@example.com"), now: t0, scope: .system)
            let home = HouseholdID(UUID())
            _ = try await store.accounts.createHousehold(
                id: home, name: "Home", guardian: guardian.id, now: t0, scope: .system)
            _ = try await store.accounts.createChild(
                newMember(username: "kid"), household: home, now: t0, scope: .system)
            await #expect(
                throws: DomainError.conflict(field: "username", message: Message("accounts.error.usernameTaken"))
            ) {
                try await store.accounts.createChild(
                    newMember(username: "kid"), household: home, now: t0, scope: .system)
            }
            #expect(try await store.accounts.memberCount() == 2)
            #expect(try await store.accounts.household(home)?.members.count == 2)
        }
    }

    @Test(arguments: TestDatabase.available)
    func invitationsWorkOnceAndExpire(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let guardian = try await store.accounts.createMember(
                newMember(email: "g@example.com"), now: t0, scope: .system)
            let other = try await store.accounts.createMember(
                newMember(email: "o@example.com"), now: t0, scope: .system)
            let late = try await store.accounts.createMember(newMember(email: "l@example.com"), now: t0, scope: .system)
            let home = HouseholdID(UUID())
            _ = try await store.accounts.createHousehold(
                id: home, name: "Home", guardian: guardian.id, now: t0, scope: .system)
            try await store.accounts.createInvitation(
                codeHash: "c1", household: home, role: .guardian, by: guardian.id, now: t0, expiresAt: t0 + 3600,
                scope: .system)
            let joined = try await store.accounts.acceptInvitation(
                codeHash: "c1", member: other.id, now: t0 + 60, scope: .system)
            #expect(joined.members.first { $0.id == other.id }?.role == .guardian)
            await #expect(throws: DomainError.self) {
                try await store.accounts.acceptInvitation(
                    codeHash: "c1", member: late.id, now: t0 + 120, scope: .system)
            }
            try await store.accounts.createInvitation(
                codeHash: "c2", household: home, role: .child, by: guardian.id, now: t0, expiresAt: t0 + 3600,
                scope: .system)
            await #expect(throws: DomainError.self) {
                try await store.accounts.acceptInvitation(
                    codeHash: "c2", member: late.id, now: t0 + 3601, scope: .system)
            }
            #expect(try await store.accounts.member(late.id)?.householdID == nil)
        }
    }
}

/// The scope a write takes is the only thing that decides what it checks: a write acting for a
/// member who is gone writes nothing; a write that acts for no one (`.system`) checks no one.
@Suite struct WriteScopeTests {
    @Test(arguments: TestDatabase.available)
    func aWriteActingForAMemberWhoIsGoneWritesNothing(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let t0 = Date(timeIntervalSince1970: 1_780_000_000)
            let gone = MemberID(UUID())
            let present = try await store.accounts.createMember(
                newMember(email: "here@example.com"), now: t0, scope: .system)
            let household = HouseholdID(UUID())
            await #expect(throws: DomainError.self) {
                _ = try await store.accounts.createHousehold(
                    id: household, name: "Nobody's", guardian: present.id, now: t0, scope: .member(gone))
            }
            #expect(try await store.accounts.household(household) == nil)
            #expect(try await store.accounts.member(present.id)?.householdID == nil)
            // The same write acting for a member who exists commits.
            _ = try await store.accounts.createHousehold(
                id: household, name: "Home", guardian: present.id, now: t0, scope: .member(present.id))
            #expect(try await store.accounts.household(household)?.name == "Home")
        }
    }
}

@Suite struct IdempotencyStoreTests {
    private let response = StoredResponse(
        status: 201, contentType: "application/json", body: Array(#"{"ok":true}"#.utf8))

    /// The claim a decision grants, or nil.
    private func claim(_ decision: IdempotencyDecision) -> IdempotencyClaim? {
        if case .proceed(let claim) = decision { claim } else { nil }
    }

    /// A write under `claim`, as a request runs it: a row and the key's mark in one transaction.
    private func write(_ store: Store, under claim: IdempotencyClaim, _ value: String) async throws {
        try await store.database.transaction(WriteScope(member: nil, claim: claim)) { db in
            try await db.raw(
                "INSERT INTO story_content (id, content, imported_at) VALUES (\(bind: value), '{}', 0)"
            )
            .run()
        }
    }

    private func rows(_ store: Store) async throws -> Int {
        try await store.database.withConnection { db in
            try await db.raw("SELECT COUNT(*) AS n FROM story_content").first()!.decode(column: "n", as: Int.self)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aKeyIsClaimedCompletedReplayedAndGuarded(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let idem = store.idempotency
            let first = try #require(claim(try await idem.begin(scope: "m1", key: "k", requestHashes: ["h"], now: t0)))
            #expect(try await idem.begin(scope: "m1", key: "k", requestHashes: ["h"], now: t0 + 1) == .inProgress)
            try await idem.complete(first, response: response, sealed: false)
            #expect(
                try await idem.begin(scope: "m1", key: "k", requestHashes: ["h"], now: t0 + 2)
                    == .replay(response, sealed: false))
            #expect(try await idem.begin(scope: "m1", key: "k", requestHashes: ["other"], now: t0 + 3) == .mismatch)
            // Keys are per scope.
            let other = try #require(
                claim(try await idem.begin(scope: "m2", key: "k", requestHashes: ["h"], now: t0 + 4)))
            // A released claim (nothing committed) can be taken again; an abandoned one after
            // `staleAfter`.
            #expect(try await idem.release(other))
            #expect(claim(try await idem.begin(scope: "m2", key: "k", requestHashes: ["h"], now: t0 + 5)) != nil)
            #expect(
                claim(
                    try await idem.begin(scope: "m2", key: "k", requestHashes: ["h"], now: t0 + 5 + idem.staleAfter + 1)
                )
                    != nil)
            // Past its lifetime a finished key is a new request.
            #expect(
                claim(
                    try await idem.begin(
                        scope: "m1", key: "k", requestHashes: ["h"], now: t0 + IdempotencyStore.lifetime + 10)) != nil)
        }
    }

    @Test(arguments: TestDatabase.available)
    func theKeyCommitsWithTheWriteAndAStaleClaimIsTakenOverOnce(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let idem = store.idempotency
            // The write commits, the server stops before storing the response: the retry must
            // not run it again.
            let lost = try #require(
                claim(try await idem.begin(scope: "m", key: "crash", requestHashes: ["h"], now: t0)))
            try await write(store, under: lost, "crash-write")
            #expect(try await idem.release(lost) == false)  // something committed: not released
            for later in [t0 + 1, t0 + idem.staleAfter + 60] {
                #expect(
                    try await idem.begin(scope: "m", key: "crash", requestHashes: ["h"], now: later)
                        == .appliedWithoutResponse)
            }
            #expect(try await rows(store) == 1)

            // A claim abandoned before its write: two late retries race to take it over, one wins;
            // the first request, alive after all, can no longer commit.
            let slow = try #require(claim(try await idem.begin(scope: "m", key: "slow", requestHashes: ["h"], now: t0)))
            let late = t0 + idem.staleAfter + 1
            let retries = try await withThrowingTaskGroup(of: IdempotencyDecision.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await idem.begin(scope: "m", key: "slow", requestHashes: ["h"], now: late) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = retries.compactMap(claim)
            #expect(winners.count == 1 && retries.filter { $0 == .inProgress }.count == 7)
            await #expect(throws: IdempotencyClaimLost.self) { try await write(store, under: slow, "slow-first") }
            try await write(store, under: winners[0], "slow-retry")
            #expect(try await rows(store) == 2)

            // The purge forgets keys past their lifetime.
            #expect(try await idem.purge(olderThan: late + 1) == 2)
            #expect(claim(try await idem.begin(scope: "m", key: "crash", requestHashes: ["h"], now: late + 2)) != nil)
        }
    }

    @Test(arguments: TestDatabase.available)
    func concurrentClaimsLetExactlyOneProceed(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let idem = store.idempotency
            let decisions = try await withThrowingTaskGroup(of: IdempotencyDecision.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await idem.begin(scope: "m", key: "race", requestHashes: ["h"], now: t0) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(decisions.compactMap(claim).count == 1)
            #expect(decisions.filter { $0 == .inProgress }.count == 19)
        }
    }
}

/// SQLite's write-ahead log is checkpointed either by SQLite inside commits (`.automatic`) or
/// by the owner on a connection of its own (`.background`, the server), with commits
/// checkpointing only past 10,000 pages as a backstop.
@Suite struct CheckpointTests {
    private func withSQLite(_ checkpoints: WALCheckpoints, _ body: (Store) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(
            .sqlite(path: dir.appendingPathComponent("t.sqlite").path), checkpoints: checkpoints)
        do { try await body(store) } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    private func autocheckpoint(_ store: Store) async throws -> Int {
        try await store.database.withConnection { db in
            try await db.raw("PRAGMA wal_autocheckpoint").first()!.decode(column: "wal_autocheckpoint", as: Int.self)
        }
    }

    @Test func inBackgroundModeCommitsLeaveTheLogToCheckpoint() async throws {
        try await withSQLite(.background) { store in
            #expect(try await autocheckpoint(store) == 10_000)
            try await store.reading.trackBatch(
                (0..<2_000).map {
                    AnalyticsEvent(
                        id: "e\($0)", subject: "s\($0)", name: "reading_share", campaign: "c", properties: [:], at: t0)
                })
            let first = try #require(try await store.database.checkpoint())
            #expect(first.logPages > 0)
            #expect(first.copiedPages == first.logPages)  // no reader held an older snapshot
            #expect(try await store.reading.distinctSubjects(campaign: "c")["reading_share"] == 2_000)
            // The next commit starts the log over: the next checkpoint finds only its pages.
            try await store.reading.trackBatch([
                AnalyticsEvent(
                    id: "after", subject: "s", name: "reading_share", campaign: "c",
                    properties: [:], at: t0)
            ])
            let second = try #require(try await store.database.checkpoint())
            #expect(second.logPages > 0 && second.logPages < 10 && first.logPages > 20, "\(first) then \(second)")
        }
    }

    @Test func inAutomaticModeSQLiteCheckpointsAtItsDefault() async throws {
        try await withSQLite(.automatic) { store in
            let pages = try await autocheckpoint(store)
            #expect(pages == 1_000)
        }
    }

    @Test(arguments: TestDatabase.available.filter { $0 == .postgres })
    func postgresHasNoCheckpointToRun(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let result = try await store.database.checkpoint()
            #expect(result == nil)
        }
    }
}

@Suite struct UnreadableRowTests {
    /// A stored value that does not decode (an id that is not one) is the store's fault: an
    /// error of the store, which the server answers 500, not a `DecodingError` that would read
    /// as a refused request body (400). In a read and in a transaction alike.
    @Test(arguments: TestDatabase.available)
    func aRowThatDoesNotDecodeIsAStoreError(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            func isUnreadable(_ error: any Error) -> Bool {
                if case StoreError.unreadableRow(let reason) = error { return reason.contains("id") }
                return false
            }
            await #expect(throws: StoreError.self) {
                try await store.database.withConnection { db in
                    try await db.raw("SELECT 'not-an-id' AS id").first()?.decode(column: "id", as: MemberID.self)
                }
            }
            do {
                _ = try await store.database.transaction(.system) { db in
                    try await db.raw("SELECT 'not-an-id' AS id").first()?.decode(column: "id", as: MemberID.self)
                }
                Issue.record("the transaction read an id that is not one")
            } catch {
                #expect(isUnreadable(error), "\(error)")
            }
        }
    }
}
