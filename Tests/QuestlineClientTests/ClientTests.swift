import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OpenAPIURLSession
import QuestlineAPI
import QuestlineClient
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import Testing

/// The generated client against a real server listening on a port.
@Suite struct ClientTests {
    @Test func signsUpLogsInAndReadsItsProfile() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: dir.appendingPathComponent("c.sqlite").path))
        var logger = Logger(label: "client-test")
        logger.logLevel = .warning
        let configuration = AppConfiguration(
            hostname: "127.0.0.1", port: 0, store: .sqlite(path: ":unused:"), bcryptCost: 4, logLevel: .warning)
        let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
        do {
            try await app.test(.live) { testClient in
                let port = try #require(testClient.port)
                let auth = BearerTokenMiddleware()
                let client = Client.questline(
                    serverURL: URL(string: "http://127.0.0.1:\(port)")!, transport: URLSessionTransport(), auth: auth)

                let signUp = try await client.signUp(
                    body: .json(
                        .init(
                            email: "ada@example.com", password: "password123",
                            displayName: "Ada", timeZone: "Europe/Berlin")))
                let session = try signUp.created.body.json
                #expect(session.member.displayName == "Ada")

                let login = try await client.logIn(
                    body: .json(.init(login: "ada@example.com", password: "password123")))
                auth.token = try login.ok.body.json.token

                let me = try await client.getMe().ok.body.json
                #expect(me.id == session.member.id)
                #expect(me.timeZone == "Europe/Berlin")

                let updated = try await client.updateMe(body: .json(.init(timeZone: "Asia/Kolkata"))).ok.body.json
                #expect(updated.timeZone == "Asia/Kolkata")

                // Errors arrive as typed problems.
                let refused = try await client.updateMe(body: .json(.init(timeZone: "Nowhere")))
                let problem = try refused.badRequest.body.application_problem_plus_json
                #expect(problem.field == "timeZone")

                _ = try await client.logOut().noContent
                let afterLogout = try await client.getMe()
                #expect(try afterLogout.unauthorized.body.application_problem_plus_json.status == 401)
            }
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }
}
