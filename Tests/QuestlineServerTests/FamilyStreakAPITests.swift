import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

private func at(_ iso: String) throws -> Date { try Date(iso, strategy: .iso8601) }

/// The family streak through the API and the pages, on SQLite and PostgreSQL (#39).
@Suite struct FamilyStreakAPITests {
    typealias Streak = Components.Schemas.FamilyStreak

    static func read(_ id: String, _ instant: String) -> String {
        #"{"eventId":"\#(id)","articleId":"Octopus","title":"Octopus","language":"en","at":"\#(instant)","timeZone":"Europe/Berlin"}"#
    }

    @Test func aDayCountsWhenTheReaderReadAndTheChildLearnedAndALateReportFillsIt() async throws {
        try await Harness.run(sessionLifetime: 30 * 86_400) { app in
            let quests = QuestAPITests()
            let f = try await quests.family(app)
            let path = "/api/v1/households/\(f.household)/family-streak"
            // Nobody in it: no day counts.
            var streak = try await app.send(.get, path, token: f.child).decode(Streak.self)
            #expect(streak.current == 0 && streak.members.allSatisfy { !$0.joined } && streak.days.count == 14)

            // The guardian joins themselves and the child; the child cannot take the guardian out.
            for member in [f.guardianID, f.childID] {
                let joined = try await app.send(
                    .put, "\(path)/members/\(member)", json: #"{"joined":true}"#, token: f.guardian,
                    headers: [HTTPField.Name("Idempotency-Key")!: "join-\(member)"])
                #expect(joined.status == .ok, "\(joined.text)")
            }
            try await app.send(.put, "\(path)/members/\(f.guardianID)", json: #"{"joined":false}"#, token: f.child)
                .expectProblem(.forbidden)
            try await app.send(.put, "\(path)/members/\(f.childID)", json: #"{"joined":true}"#, token: f.otherGuardian)
                .expectProblem(.notFound)
            try await app.send(.put, "\(path)/members/\(f.strangerID)", json: #"{"joined":true}"#, token: f.guardian)
                .expectProblem(.notFound)
            try await app.send(.put, "\(path)/members/\(f.childID)", json: #"{"joined":"yes"}"#, token: f.guardian)
                .expectProblem(.badRequest)

            // 7 May: the guardian reads, the child learns.
            #expect(
                try await app.send(
                    .post, "/api/v1/reading/reads", json: Self.read("r5", "2026-05-07T09:00:00Z"), token: f.guardian
                )
                .status == .ok)
            streak = try await app.send(.get, path, token: f.guardian).decode(Streak.self)
            #expect(streak.current == 0 && !streak.todayMet)
            #expect(streak.members.first { $0.id == f.childID }?.metToday == false)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([("u5", "khan", "2026-05-07T09:00:00Z", 600)]), token: f.child)
            streak = try await app.send(.get, path, token: f.child).decode(Streak.self)
            #expect(streak.current == 1 && streak.todayMet && streak.today == "2026-05-07")

            // 8 May: the guardian reads; the child's use that day is reported on the 9th (late).
            app.clock.set(try at("2026-05-08T18:00:00Z"))
            _ = try await app.send(
                .post, "/api/v1/reading/reads", json: Self.read("r6", "2026-05-08T09:00:00Z"), token: f.guardian)
            app.clock.set(try at("2026-05-09T10:00:00Z"))
            _ = try await app.send(
                .post, "/api/v1/reading/reads", json: Self.read("r7", "2026-05-09T09:00:00Z"), token: f.guardian)
            streak = try await app.send(.get, path, token: f.child).decode(Streak.self)
            #expect(streak.current == 0, "8 May is missed until the child's report arrives")
            #expect(streak.days.first { $0.day == "2026-05-08" }?.state == .missed)
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: quests.usage([
                    ("u6", "duo", "2026-05-08T15:00:00Z", 300), ("u7", "duo", "2026-05-09T08:00:00Z", 300),
                ]),
                token: f.child)
            streak = try await app.send(.get, path, token: f.child).decode(Streak.self)
            #expect(streak.current == 3 && streak.todayMet, "\(streak)")

            // Leaving counts until the end of today: today stays met, tomorrow counts the guardian alone.
            let left = try await app.send(
                .put, "\(path)/members/\(f.childID)", json: #"{"joined":false}"#, token: f.guardian
            ).decode(Streak.self)
            #expect(left.current == 3 && left.members.first { $0.id == f.childID }?.joined == true)
            app.clock.set(try at("2026-05-10T10:00:00Z"))
            _ = try await app.send(
                .post, "/api/v1/reading/reads", json: Self.read("r8", "2026-05-10T09:00:00Z"), token: f.guardian)
            streak = try await app.send(.get, path, token: f.guardian).decode(Streak.self)
            #expect(streak.current == 4 && streak.members.first { $0.id == f.childID }?.joined == false)

            // Another household sees nothing; the export holds the member's spans.
            try await app.send(.get, path, token: f.otherGuardian).expectProblem(.notFound)
            let export = try await app.send(.get, "/api/v1/me/export", token: f.guardian).text
            #expect(export.contains("familyStreak"))

            // The pages: the card on the child's board and the guardian's console, the streak page.
            for (token, page) in [(f.child, "/quests"), (f.guardian, "/quests/family")] {
                let html = try await app.send(
                    .get, page, headers: [.cookie: "ql_session=\(token)", .accept: "text/html"]
                ).text
                #expect(html.contains("-day family streak") && html.contains("/quests/family/streak"), "\(page)")
            }
            let html = try await app.send(
                .get, "/quests/family/streak", headers: [.cookie: "ql_session=\(f.child)", .accept: "text/html"]
            ).text
            #expect(html.contains("Not in the family streak") && html.contains("Done for today"))
        }
    }
}
