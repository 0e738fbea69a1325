import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// Rotating the server's secret key as docs/deployment.md says (the new key first, the old one
/// second) keeps every retry answering as before, on SQLite and PostgreSQL; and key files are
/// read as people write them.
@Suite struct KeyRotationTests {
    /// Runs `body` against a server on `store` holding `keys` (the first seals).
    func serve(
        _ store: Store, _ database: TestDatabase, clock: ManualClock, keys: [String],
        _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        var configuration = Harness.configuration(clock: clock)
        configuration.features.secrets = try SecretBox.parse(keys.joined(separator: "\n")).get()
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
        try await app.test(.router) { client in
            try await body(Harness(client: client, store: store, clock: clock, database: database))
        }
    }

    @Test func aRetryAcrossARotationAnswersAsBefore() async throws {
        let old = SecretBox.newKey()
        let new = SecretBox.newKey()
        let idem = HTTPField.Name("Idempotency-Key")!
        let replayed = HTTPField.Name("Idempotent-Replayed")!
        for database in TestDatabase.available {
            try await database.withStore { store in
                let clock = ManualClock(Harness.start)
                let signUp =
                    #"{"email":"rotate@example.com","password":"password123","displayName":"Ro","timeZone":"UTC"}"#
                let login = #"{"login":"rotate@example.com","password":"password123"}"#
                let read =
                    #"{"eventId":"r1","articleId":"A","title":"A","language":"en","at":"2026-05-07T09:00:00Z","timeZone":"UTC"}"#
                let firsts = NIOLockedValueBox<[String]>([])
                try await serve(store, database, clock: clock, keys: [old]) { app in
                    let created = try await app.send(.post, "/api/v1/auth/signup", json: signUp, headers: [idem: "s-1"])
                    #expect(created.status == .created, "\(created.text)")
                    let token = try created.string("token")
                    let session = try await app.send(.post, "/api/v1/auth/login", json: login, headers: [idem: "l-1"])
                    #expect(session.status == .ok)
                    let recorded = try await app.send(
                        .post, "/api/v1/reading/reads", json: read, token: token, headers: [idem: "w-1"])
                    #expect(recorded.status == .ok)
                    firsts.withLockedValue { $0 = [created.text, session.text, recorded.text, token] }
                }
                let first = firsts.withLockedValue { $0 }
                // Rotated: the new key first, the old one kept.
                try await serve(store, database, clock: clock, keys: [new, old]) { app in
                    for (path, body, key, token, answer) in [
                        ("/api/v1/auth/signup", signUp, "s-1", nil, first[0]),
                        ("/api/v1/auth/login", login, "l-1", nil, first[1]),
                        ("/api/v1/reading/reads", read, "w-1", first[3], first[2]),
                    ] {
                        let retry = try await app.send(.post, path, json: body, token: token, headers: [idem: key])
                        #expect(retry.status.code < 300, "\(path): \(retry.text)")
                        #expect(retry.headers[replayed] == "true", "\(path)")
                        #expect(retry.text == answer, "\(path)")
                    }
                    // A new write under the new key, retried, replays too; a changed body is refused.
                    let again =
                        #"{"eventId":"r2","articleId":"B","title":"B","language":"en","at":"2026-05-07T09:10:00Z","timeZone":"UTC"}"#
                    let fresh = try await app.send(
                        .post, "/api/v1/reading/reads", json: again, token: first[3], headers: [idem: "w-2"])
                    #expect(fresh.status == .ok)
                    try await app.send(
                        .post, "/api/v1/reading/reads", json: read, token: first[3], headers: [idem: "w-2"]
                    ).expectProblem(.unprocessableContent, field: "Idempotency-Key")
                }
            }
        }
    }

    @Test func keyFilesAcceptLineEndingsAndComments() throws {
        let a = SecretBox.newKey()
        let b = SecretBox.newKey()
        for text in [
            "\(a)\r\n\(b)\r\n", "# made 2026-11-01, for production\n\(a)\n\(b)\n",
            "# comment, with a comma\r\n\r\n\(a)\r\n# the old key\r\n\(b)", "\(a),\(b)",
        ] {
            let box = try SecretBox.parse(text).get()
            #expect(box.keys.count == 2, "\(text.debugDescription)")
        }
        if case .success = SecretBox.parse("# nothing but a comment\r\n") { Issue.record("a comment parsed as a key") }
    }
}
