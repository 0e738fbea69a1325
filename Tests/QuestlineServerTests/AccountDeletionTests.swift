import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

/// Account deletion and export: the export holds the member's rows; after deletion no table
/// of the schema holds the member's id anywhere, in any column.
@Suite struct AccountDeletionTests {
    /// Every table of the schema and its columns.
    func schema(_ store: Store) async throws -> [String: [String]] {
        try await store.database.withConnection { db in
            var tables: [String: [String]] = [:]
            if store.database.flavor == .sqlite {
                for row in try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table'").all() {
                    let table = try row.decode(column: "name", as: String.self)
                    guard !table.hasPrefix("sqlite_") else { continue }
                    tables[table] = try await db.raw("SELECT name FROM pragma_table_info(\(bind: table))").all().map {
                        try $0.decode(column: "name", as: String.self)
                    }
                }
            } else {
                for row in try await db.raw(
                    """
                    SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()
                    """
                ).all() {
                    tables[try row.decode(column: "table_name", as: String.self), default: []].append(
                        try row.decode(column: "column_name", as: String.self))
                }
            }
            return tables
        }
    }

    /// Where `needle` still appears: "table.column" → rows.
    func traces(of needle: String, in store: Store) async throws -> [String: Int] {
        let tables = try await schema(store)
        #expect(tables.count > 40, "the walk sees the whole schema (\(tables.count) tables)")
        return try await store.database.withConnection { db in
            var found: [String: Int] = [:]
            for (table, columns) in tables {
                for column in columns {
                    let count =
                        try await db.raw(
                            """
                            SELECT COUNT(*) AS n FROM \(ident: table) WHERE CAST(\(ident: column) AS TEXT) LIKE \(bind: "%" + needle + "%")
                            """
                        ).first()?.decode(column: "n", as: Int.self) ?? 0
                    if count > 0 { found[table + "." + column] = count }
                }
            }
            return found
        }
    }

    @Test func deletingAMemberLeavesNoneOfTheirRowsAndTheExportHeldThem() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let quests = QuestAPITests()
            let f = try await quests.family(app)
            // The child's life in the product: a quest, usage, points, reads, a saved
            // article.
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: QuestAPITests.dailyQuest, token: f.guardian)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("r1", "khan", "2026-05-07T09:00:00Z", 1800)]), token: f.child)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":50,"reason":"Chores"}"#,
                token: f.guardian)
            _ = try await app.send(
                .post, "/api/v1/reading/reads",
                json:
                    #"{"eventId":"d1","articleId":"Octopus","title":"Octopus","language":"en","at":"2026-05-07T08:00:00Z","timeZone":"Europe/Berlin"}"#,
                token: f.child)
            _ = try await app.send(
                .post, "/api/v1/saved", json: #"{"language":"en","title":"Octopus"}"#, token: f.child)
            #expect(try await traces(of: f.childID, in: app.store).count > 5)

            // The export holds the rows, readable and grouped by feature, without secrets or
            // bookkeeping, and is never cached.
            let export = try await app.send(.get, "/api/v1/me/export", token: f.child)
            #expect(export.status == .ok)
            #expect(export.headers[.cacheControl] == "no-store")
            let archive = try export.decode(Components.Schemas.MemberExport.self)
            #expect(archive.memberId == f.childID)
            let object = export.object
            func records(_ section: String, _ kind: String) -> [[String: Any]] {
                ((object[section] as? [String: Any])?[kind] as? [[String: Any]]) ?? []
            }
            for (section, kind) in [
                ("profile", "account"), ("quests", "usage"), ("points", "ledger"), ("reading", "reads"),
                ("saved", "articles"), ("quests", "quests"),
            ] {
                #expect(!records(section, kind).isEmpty, "the export lacks \(section).\(kind)")
            }
            for section in ["profile", "reading", "saved", "game", "quests", "points", "stories", "notifications"] {
                #expect(object[section] is [String: Any], "no \(section) section")
            }
            // Times are ISO 8601, names camelCase; no raw tables, secrets or bookkeeping rows.
            let account = try #require(records("profile", "account").first)
            #expect((account["createdAt"] as? String)?.hasSuffix("Z") == true, "\(account)")
            #expect((records("quests", "usage").first?["startedAt"] as? String)?.hasPrefix("2026-05-07T") == true)
            #expect(records("quests", "usage").first?["childId"] == nil)
            for hidden in [
                "password_hash", "passwordHash", "token_hash", "tokenHash", "idempotency", "tables", "created_at",
            ] {
                #expect(!export.text.contains(hidden), "the export shows \(hidden)")
            }
            // The web's download is the same archive.
            let download = try await app.send(
                .get, "/profile/export", headers: [.cookie: "ql_session=\(f.child)"])
            #expect(download.headers[.cacheControl] == "no-store")
            #expect(download.headers[.contentDisposition]?.contains("attachment") == true)
            let web = try #require(try JSONSerialization.jsonObject(with: Data(download.text.utf8)) as? [String: Any])
            #expect(Set(web.keys) == Set(object.keys))
            #expect(
                ((web["quests"] as? [String: Any])?["usage"] as? [Any])?.count == records("quests", "usage").count)

            // A guardian whose children would be left without a guardian is refused.
            try await app.send(.delete, "/api/v1/me", token: f.guardian).expectProblem(.conflict)
            // Strangers and children cannot delete others.
            try await app.send(.delete, "/api/v1/members/\(f.childID)", token: f.stranger).expectProblem(.notFound)

            // The guardian deletes the child: nothing of theirs is left, anywhere.
            #expect(try await app.send(.delete, "/api/v1/members/\(f.childID)", token: f.guardian).status == .noContent)
            #expect(try await traces(of: f.childID, in: app.store) == [:])
            try await app.send(.get, "/api/v1/me", token: f.child).expectProblem(.unauthorized)

            // Then the guardian (an administrator, so the role's audit names them) deletes their
            // own account; the empty household goes with it, and the audit forgets them.
            _ = try await AccountsFeature(
                store: app.store, configuration: FeatureConfiguration(clock: app.clock), events: FeatureEvents()
            )
            .setAdministrator(login: "grace@example.com", grant: true, by: "test", scope: .system)
            let guardianID = f.guardianID
            #expect(try await app.send(.delete, "/api/v1/me", token: f.guardian).status == .noContent)
            #expect(try await traces(of: guardianID, in: app.store) == [:])
            #expect(try await traces(of: f.household, in: app.store) == [:])
            try await app.send(.get, "/api/v1/me", token: f.guardian).expectProblem(.unauthorized)
        }
    }
}

/// Deletion everywhere, at once: a deleted or signed-out member's sessions end on every instance
/// (announced on the channel every instance listens to), a write that was already past
/// authentication on another instance is refused (`WriteScope`), and a child cannot delete
/// its own account. Before, the other instance's session cache kept the token working for up to
/// 5 s, and writes then left rows naming the deleted member.
@Suite struct DeletionEverywhereTests {
    static let read =
        #"{"eventId":"late","articleId":"Octopus","title":"Octopus","language":"en","at":"2026-05-07T09:00:00Z","timeZone":"Europe/Berlin"}"#

    @Test func aDeletedMembersSessionEndsOnEveryInstanceAndLaterWritesAreRefused() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let (reader, readerID) = try await app.signUp("leaving@example.com")
            try await SharedLimitTests().withSecondInstance(app, rateLimits: .standard) { other in
                let listening = Task {
                    await other.store.live.listen(logger: Logger(label: "test"), reconnected: {}, deliver: { _ in })
                }
                defer { listening.cancel() }
                try await Task.sleep(for: .milliseconds(300))  // the LISTEN connection (PostgreSQL)
                // Both sessions are in the second instance's cache.
                #expect(try await other.send(.get, "/api/v1/me", token: f.child).status == .ok)
                #expect(try await other.send(.get, "/api/v1/me", token: reader).status == .ok)

                // The guardian deletes the child on the first instance; the reader signs out there.
                #expect(
                    try await app.send(.delete, "/api/v1/members/\(f.childID)", token: f.guardian).status == .noContent)
                #expect(try await app.send(.post, "/api/v1/auth/logout", token: reader).status == .noContent)

                // A write through the second instance is refused, whether its cache was told
                // (PostgreSQL) or not (SQLite, which one instance serves in production), and
                // leaves nothing naming the child.
                let write = try await other.send(.post, "/api/v1/reading/reads", json: Self.read, token: f.child)
                #expect(write.status == .unauthorized, "\(write.status) \(write.text)")
                #expect(try await AccountDeletionTests().traces(of: f.childID, in: app.store) == [:])

                if app.database == .postgres {
                    // Every instance hears at once: no cached session outlives the change.
                    for (token, who) in [(f.child, "deleted child"), (reader, "signed-out reader")] {
                        var status = HTTPResponse.Status.ok
                        for _ in 0..<40 where status == .ok {
                            status = try await other.send(.get, "/api/v1/me", token: token).status
                            if status == .ok { try await Task.sleep(for: .milliseconds(50)) }
                        }
                        #expect(status == .unauthorized, "\(who) still signed in on the other instance")
                    }
                }
                _ = readerID
            }
        }
    }

    /// docs/privacy.md says what happens to every table of the schema.
    /// A guardian who set a quest and then deleted their account: the quest stays the child's
    /// (it forgets who made it), and the child's board and the other guardian's console still
    /// read it.
    @Test func aQuestOutlivesTheGuardianWhoSetIt() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let second = try await HouseholdAPITests().addGuardian(app, to: f)
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests", json: QuestAPITests.dailyQuest, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            #expect(try await app.send(.delete, "/api/v1/me", token: f.guardian).status == .noContent)
            for token in [f.child, second] {
                let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: token)
                #expect(board.status == .ok, "\(board.text)")
                #expect(board.text.contains("Learn 30 minutes"), "\(board.text)")
            }
            // The other guardian's pages: the console and the child's quests.
            let page: HTTPFields = [.accept: "text/html", .cookie: "ql_session=\(second)"]
            let console = try await app.send(.get, "/quests/family", headers: page)
            #expect(console.status == .ok, "\(console.text.prefix(300))")
            let child = try await app.send(.get, "/quests/children/\(f.childID)", headers: page)
            #expect(child.status == .ok, "\(child.text.prefix(300))")
            #expect(child.text.contains("Learn 30 minutes"))
        }
    }

    @Test func thePrivacyPageListsEveryTable() async throws {
        let page = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../docs/privacy.md"), encoding: .utf8)
        try await TestDatabase.sqlite.withStore { store in
            for table in try await AccountDeletionTests().schema(store).keys.sorted() {
                let listed = page.contains("`\(table)`") || (table.hasPrefix("story_") && page.contains("`story_*`"))
                #expect(listed, "docs/privacy.md does not list \(table)")
            }
        }
    }

    @Test func aChildCannotDeleteItsOwnAccount() async throws {
        try await Harness.run { app in
            let f = try await QuestAPITests().family(app)
            try await app.send(.delete, "/api/v1/me", token: f.child).expectProblem(.forbidden)
            try await app.send(.delete, "/api/v1/members/\(f.childID)", token: f.child).expectProblem(.forbidden)
            let page = try await app.send(
                .get, "/profile", headers: [.cookie: "ql_session=\(f.child)", .accept: "text/html"])
            #expect(!page.text.contains("Delete my account") && page.text.contains("ask your guardian"))
            // The guardian can.
            #expect(try await app.send(.delete, "/api/v1/members/\(f.childID)", token: f.guardian).status == .noContent)
        }
    }
}
