import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import Testing

@testable import QuestlineServer

/// What the pages say after a change and when there is nothing (#48's smaller list), on SQLite
/// and PostgreSQL.
@Suite struct PageNoticeTests {
    /// The page a redirect leads to, with the flash message the redirect set.
    func follow(_ app: Harness, _ reply: Reply, token: String) async throws -> String {
        let location = try #require(reply.headers[.location])
        let flash = reply.headers[values: .setCookie].first { $0.hasPrefix("ql_flash=") }
            .map { String($0.split(separator: ";")[0]) }
        let cookie = "ql_session=\(token)" + (flash.map { "; \($0)" } ?? "")
        return try await app.send(.get, location, headers: [.cookie: cookie, .accept: "text/html"]).text
    }

    @Test func creatingAHouseholdAndAdjustingPointsAreConfirmed() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let (token, _) = try await app.signUp("home@example.com", name: "Hana")
            let created = try await app.submit("/household", form: "name=Hill+house", token: token)
            #expect(created.status == .seeOther)
            #expect(try await follow(app, created, token: token).contains("Your household “Hill house” is created"))

            let f = try await QuestAPITests().family(app)
            let adjusted = try await app.submit(
                "/quests/children/\(f.childID)/adjust", form: "points=12&reason=Tidy+room", token: f.guardian)
            #expect(try await follow(app, adjusted, token: f.guardian).contains("Added 12 points."))
            let taken = try await app.submit(
                "/quests/children/\(f.childID)/adjust", form: "points=-1&reason=Oops", token: f.guardian)
            #expect(try await follow(app, taken, token: f.guardian).contains("Took away 1 point."))
        }
    }

    @Test func aCoopQuestOneChildDidAloneIsNotCalledTogether() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let (f, kiri) = try await CoopQuestAPITests.family(app)
            let coop = try await app.send(
                .post, "/api/v1/households/\(f.household)/coop-quests",
                json: CoopQuestAPITests.input(f, second: kiri.id, target: 10), token: f.guardian)
            #expect(coop.status == .created, "\(coop.text)")
            let used = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([("alone", "khan", "2026-05-07T08:00:00Z", 900)]), token: f.child)
            #expect(used.status == .ok, "\(used.text)")
            let page = try await app.send(
                .get, "/quests/family/coop", headers: [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"]
            ).text
            #expect(page.contains("Target reached by Kid") && !page.contains("Done together!"), "\(page)")

            // A refusal names an app as people know it, never by its token.
            #expect(
                try await app.send(
                    .put, "/api/v1/children/\(kiri.id)/apps/demo.paint", json: #"{"name":"Paint Box","role":"reward"}"#,
                    token: f.guardian
                ).status == .ok)
            let input = CoopQuestAPITests.input(f, second: kiri.id).replacingOccurrences(
                of: "\"game\"", with: "\"demo.paint\"")
            let refused = try await app.send(
                .post, "/api/v1/households/\(f.household)/coop-quests", json: input, token: f.guardian)
            refused.expectProblem(.badRequest, field: "rewardApps")
            #expect(refused.text.contains("Paint Box") && !refused.text.contains("demo.paint"), "\(refused.text)")
        }
    }

    @Test func anEmptySearchSaysWhatWasSearched() {
        let pack = ReadingSearchPage(query: "zzz", articles: [], source: .pack, online: false, localizer: .english)
        #expect(pack.none && pack.noneText.contains("kept offline"))
        let wikipedia = ReadingSearchPage(
            query: "zzz", articles: [], source: .wikipedia, online: true, localizer: .english)
        #expect(wikipedia.noneText.contains("Wikipedia"))
    }
}
