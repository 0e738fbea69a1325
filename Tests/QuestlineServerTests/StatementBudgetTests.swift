import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineStore
import QuestlineTestSupport
import Testing

/// The statements a hot request runs, from authentication to commit, held to a budget (#37:
/// each statement is work on the database's thread, and the load runs showed that the count,
/// more than any one statement, set a write's cost). Counted on both databases (their
/// connections count what they run, `Database.statementsRun`). PostgreSQL's budget is larger by
/// what only it runs: the shared rate limits' one upsert for a write (SQLite's are in memory),
/// the child's points lock (a live event's household lock and `pg_notify` ride in the events'
/// own statement since #37's fifth step; they were two more statements before). Each request is
/// measured the second time it is sent with new content, so that one-off work (a session read
/// into the cache, a first settlement) is not counted.
@Suite struct StatementBudgetTests {
    /// Statements `send` runs (BEGIN and COMMIT included).
    func statements(_ app: Harness, _ send: () async throws -> Void) async throws -> Int {
        let before = app.store.database.statementsRun
        try await send()
        return app.store.database.statementsRun - before
    }

    @Test func familyRequests() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let postgres = app.database == .postgres
            let quests = QuestAPITests()
            let f = try await quests.familyWithDailyQuest(app)
            var n = 0
            func report() async throws {
                n += 1
                let sent = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/usage",
                    json: quests.usage([("b\(n)", "khan", "2026-05-07T0\(n):00:00Z", 60)]), token: f.child)
                #expect(sent.status == .ok, "\(sent.text)")
            }
            try await report()
            let usage = try await statements(app) { try await report() }
            let points = try await app.send(
                .post, "/api/v1/children/\(f.childID)/adjustments", json: #"{"points":500,"reason":"budget"}"#,
                token: f.guardian)
            #expect(points.status == .created, "\(points.text)")
            func redeem() async throws {
                let redeemed = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/redemptions", json: #"{"appToken":"game","minutes":5}"#,
                    token: f.child)
                #expect(redeemed.status == .created || redeemed.status == .ok, "\(redeemed.text)")
            }
            try await redeem()
            let redemption = try await statements(app) { try await redeem() }
            let board = try await statements(app) {
                let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                #expect(board.status == .ok)
            }
            var questID = ""
            let create = try await statements(app) {
                let created = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/quests", json: QuestAPITests.dailyQuest, token: f.guardian)
                #expect(created.status == .created, "\(created.text)")
                questID = try created.string("id")
            }
            let quest = try await statements(app) {
                let quest = try await app.send(.get, "/api/v1/quests/\(questID)", token: f.guardian)
                #expect(quest.status == .ok)
            }
            func console() async throws {
                let page = try await app.send(
                    .get, "/quests/family", headers: [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"])
                #expect(page.status == .ok && page.text.contains("Kid"), "\(page.status)")
            }
            try await console()
            let family = try await statements(app) { try await console() }
            print(
                "statements (\(app.database)): usage \(usage), redemption \(redemption), board \(board), quest \(create) to set, \(quest) to read, console \(family)"
            )
            // A usage report: the child, BEGIN, the catalogue, the reports' insert, settlement's
            // three reads (quests; earnings and bonuses; usage), its totals (one statement), the
            // earnings, the stats, the balance, the ledger, the live events, the acting member's
            // check, COMMIT; and since #39 the co-op quests the child is in (held before the points
            // lock: their payouts credit the other children). 23 before #37's third step.
            #expect(usage <= (postgres ? 18 : 16))
            // A redemption: the child, BEGIN, the rules, the catalogue, the shield rules, the
            // balance, the ledger, the grant, the notification settings, the live events, the
            // check, COMMIT. 15 before.
            #expect(redemption <= (postgres ? 13 : 12))
            // The board: the child, the catalogue, the quests, the grants, the usage (once for
            // progress and reward time), the completed periods, the totals, the shield rules,
            // the household's rules. 14 before.
            #expect(board <= 9)
            // Setting a quest answers from the rows it wrote and the quest's own usage, in its
            // transaction (settling it asks for the child's co-op quests too, #39); reading one
            // quest reads that quest, not the whole board.
            #expect(create <= (postgres ? 17 : 15))
            #expect(quest <= 5)
            // The guardian's console: the household and its members, its quests, their shown periods'
            // completions, one statement of balances, apps and streaks, the household's rules (before:
            // a whole board a child); and the card of the household together (#39): its members, the
            // family streak's facts, this week's co-op quests (their facts only when there are some);
            // and the requests for more time waiting for the guardian, with their apps' names (#48).
            #expect(family <= 11)
        }
    }

    @Test func readingRequests() async throws {
        try await Harness.run { app in
            let postgres = app.database == .postgres
            let (reader, _) = try await app.signUp("reader@example.com")
            var n = 0
            func read() async throws {
                n += 1
                let sent = try await app.send(
                    .post, "/api/v1/reading/reads",
                    json:
                        #"{"eventId":"e\#(n)","articleId":"A_\#(n)","title":"A \#(n)","language":"en","at":"2026-05-07T09:0\#(n):00Z","timeZone":"Europe/Berlin"}"#,
                    token: reader)
                #expect(sent.status == .created || sent.status == .ok, "\(sent.text)")
            }
            try await read()
            let recorded = try await statements(app) { try await read() }
            let widget = try await statements(app) {
                let widget = try await app.send(.get, "/api/v1/reading/widget", token: reader)
                #expect(widget.status == .ok)
            }
            print("statements (\(app.database)): read \(recorded), widget \(widget)")
            // A read: BEGIN, the event, the day's count, the check, COMMIT (concurrent reads
            // share these in one group commit). The widget: one read of its facts, and here
            // (the harness does not buffer analytics) the view's analytics event in a write.
            #expect(recorded <= (postgres ? 6 : 5))
            #expect(widget <= 5)
        }
    }
}
