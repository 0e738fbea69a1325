import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

/// A child's request for more time is where the guardian looks first: the home, the family
/// console and the child's card, with a count, answerable there (SQLite and PostgreSQL).
@Suite struct WaitingRequestsTests {
    @Test func theGuardianSeesAndAnswersRequestsFromHomeAndConsole() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let html: HTTPFields = [.cookie: "ql_session=\(f.guardian)", .accept: "text/html"]
            // Nothing waits: no such section.
            #expect(!(try await app.send(.get, "/", headers: html).text.contains("Waiting for you")))
            for minutes in [10, 20] {
                let asked = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/time-requests",
                    json: #"{"appToken":"game","minutes":\#(minutes),"note":"Please"}"#, token: f.child)
                #expect(asked.status == .created, "\(asked.text)")
            }
            let home = try await app.send(.get, "/", headers: html).text
            #expect(home.contains("Waiting for you") && home.contains("data-waiting-count>2<"), "\(home)")
            #expect(home.contains("Kid asks for 10 more minutes of Minecraft"))
            #expect(home.contains(#"data-live="/api/v1/households/\#(f.household)/events""#))
            let console = try await app.send(.get, "/quests/family", headers: html).text
            #expect(console.contains("data-waiting-count>2<") && console.contains("2 waiting for you"))
            // A child never sees the guardian's queue.
            let child = try await app.send(
                .get, "/", headers: [.cookie: "ql_session=\(f.child)", .accept: "text/html"]
            ).text
            #expect(!child.contains("Waiting for you"))

            // Answered from the console: back there, said once, one fewer waiting.
            let id = try #require(
                home.firstMatch(of: /time-requests\/([0-9a-f-]+)\/decision/).map { String($0.1) })
            let answered = try await app.submit(
                "/quests/time-requests/\(id)/decision", form: "approve=1&back=%2Fquests%2Ffamily", token: f.guardian)
            #expect(answered.status == .seeOther && answered.headers[.location] == "/quests/family")
            let flash = try #require(answered.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let after = try await app.send(
                .get, "/quests/family", headers: [.cookie: "ql_session=\(f.guardian); \(flash)", .accept: "text/html"]
            ).text
            #expect(after.contains("Approved") && after.contains("data-waiting-count>1<"), "\(after)")
            // Answered from home: back home; then nothing waits.
            let second = try #require(
                after.firstMatch(of: /time-requests\/([0-9a-f-]+)\/decision/).map { String($0.1) })
            let declined = try await app.submit(
                "/quests/time-requests/\(second)/decision", form: "approve=0&back=%2F", token: f.guardian)
            #expect(declined.headers[.location] == "/")
            #expect(!(try await app.send(.get, "/", headers: html).text.contains("Waiting for you")))
            // Any other `back` returns to the child's device page, never off the site.
            let third = try await app.send(
                .post, "/api/v1/children/\(f.childID)/time-requests", json: #"{"appToken":"game","minutes":5}"#,
                token: f.child
            ).string("id")
            let elsewhere = try await app.submit(
                "/quests/time-requests/\(third)/decision", form: "approve=0&back=https%3A%2F%2Fevil.example",
                token: f.guardian)
            #expect(elsewhere.headers[.location] == "/quests/children/\(f.childID)/device?answered=1")
        }
    }
}
