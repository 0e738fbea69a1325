import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineStore
import SQLKit
import Testing

/// Cheers through the API and the page, on SQLite and PostgreSQL (#39).
@Suite struct CheerAPITests {
    @Test func householdMembersCheerEachOtherWithPresetsFiveADayUnlessAGuardianTurnsThemOff() async throws {
        try await Harness.run { app in
            let f = try await HouseholdAPITests().family(app)
            let path = "/api/v1/households/\(f.household)/cheers"
            let sent = try await app.send(
                .post, path, json: #"{"to":"\#(f.childID)","cheer":"proud"}"#, token: f.guardian,
                headers: [HTTPField.Name("Idempotency-Key")!: "cheer-1"])
            #expect(sent.status == .created, "\(sent.text)")
            let item = try sent.decode(Components.Schemas.CheerItem.self)
            #expect(item.text == "So proud of you!" && item.fromName == "Grace" && item.toName == "Kid")
            // A retry with the key does not send it twice.
            let again = try await app.send(
                .post, path, json: #"{"to":"\#(f.childID)","cheer":"proud"}"#, token: f.guardian,
                headers: [HTTPField.Name("Idempotency-Key")!: "cheer-1"])
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            // The household hears it live.
            let kinds = try await app.store.database.withConnection { db in
                try await db.raw("SELECT kind, child_id FROM live_events WHERE household_id = \(bind: f.household)")
                    .all().map {
                        "\(try $0.decode(column: "kind", as: String.self)):\(try $0.decode(column: "child_id", as: String?.self) ?? "")"
                    }
            }
            #expect(kinds.filter { $0 == "cheer:\(f.childID)" }.count == 1)

            // The child cheers back; free text, oneself and a stranger are refused.
            try await app.send(.post, path, json: #"{"to":"\#(f.guardianID)","cheer":"You rock"}"#, token: f.child)
                .expectProblem(.badRequest, field: "cheer")
            try await app.send(.post, path, json: #"{"to":"\#(f.childID)","cheer":"thanks"}"#, token: f.child)
                .expectProblem(.badRequest, field: "to")
            try await app.send(.post, path, json: #"{"to":"\#(f.strangerID)","cheer":"thanks"}"#, token: f.child)
                .expectProblem(.badRequest, field: "to")
            try await app.send(.post, path, json: #"{"to":"\#(f.guardianID)","cheer":"thanks"}"#, token: f.stranger)
                .expectProblem(.notFound)
            for _ in 0..<CheerRules.maxPerDay {
                let back = try await app.send(
                    .post, path, json: #"{"to":"\#(f.guardianID)","cheer":"thanks"}"#, token: f.child)
                #expect(back.status == .created)
            }
            let over = try await app.send(
                .post, path, json: #"{"to":"\#(f.guardianID)","cheer":"thanks"}"#, token: f.child)
            over.expectProblem(.tooManyRequests)
            #expect(over.headers[.retryAfter] != nil)

            let board = try await app.send(.get, path, token: f.child).decode(Components.Schemas.CheerBoard.self)
            #expect(board.enabled && board.sentToday == 5 && board.perDay == 5)
            #expect(board.cheers.count == 6 && board.cheers.filter { $0.cheer == "proud" }.count == 1)
            #expect(board.presets.count == Cheer.allCases.count)
            #expect(Set(board.members.map(\.displayName)) == ["Grace", "Kid"])

            // Only a guardian turns them off; then nobody can send.
            try await app.send(
                .put, "/api/v1/households/\(f.household)/cheer-settings", json: #"{"enabled":false}"#, token: f.child
            ).expectProblem(.forbidden)
            let off = try await app.send(
                .put, "/api/v1/households/\(f.household)/cheer-settings", json: #"{"enabled":false}"#, token: f.guardian
            )
            #expect(off.status == .noContent)
            try await app.send(.post, path, json: #"{"to":"\#(f.childID)","cheer":"highFive"}"#, token: f.guardian)
                .expectProblem(.conflict)
            #expect(
                try await app.send(.get, path, token: f.guardian).decode(Components.Schemas.CheerBoard.self).enabled
                    == false)

            // The page lists them and sends with a preset button.
            let page = try await app.send(
                .get, "/quests/family/cheers", headers: [.cookie: "ql_session=\(f.child)", .accept: "text/html"]
            ).text
            #expect(page.contains("So proud of you!") && page.contains("A guardian has turned cheers off."))
        }
    }
}
