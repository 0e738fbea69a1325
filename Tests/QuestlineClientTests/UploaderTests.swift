import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import OpenAPIRuntime
import OpenAPIURLSession
import QuestlineAPI
import QuestlineClient
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import Testing

/// Cuts the connection after a number of import requests, like an app killed mid-upload.
final class Interrupter: ClientMiddleware {
    private let remaining: NIOLockedValueBox<Int>
    init(allow: Int) { remaining = NIOLockedValueBox(allow) }
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if operationID == "importSaved" {
            let go = remaining.withLockedValue { left -> Bool in
                left -= 1
                return left >= 0
            }
            guard go else { throw URLError(.networkConnectionLost) }
        }
        return try await next(request, body, baseURL)
    }
}

@Suite struct UploaderTests {
    @Test func tenThousandItemsResumeAfterAnInterruptionAndLandOnce() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: dir.appendingPathComponent("u.sqlite").path))
        var logger = Logger(label: "upload-test")
        logger.logLevel = .warning
        let configuration = AppConfiguration(
            hostname: "127.0.0.1", port: 0, store: .sqlite(path: ":unused:"), bcryptCost: 4,
            maxBodyBytes: 1 << 20, logLevel: .warning, feedFetcher: nil)
        let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
        // 10,000 items: every 1,000th has no date at all (reported), every 7th only a reading-list date.
        let base = Date(timeIntervalSince1970: 1_600_000_000)
        let items = (0..<10_000).map { index -> LegacySavedItem in
            let noDate = index % 1000 == 999
            return LegacySavedItem(
                language: index % 2 == 0 ? "en" : "de", title: "Article \(index)",
                savedAt: noDate || index % 7 == 0 ? nil : base.addingTimeInterval(Double(index) * 60),
                readingListCreatedAt: noDate ? nil : base, readingList: index % 3 == 0 ? "Later" : nil)
        }
        do {
            try await app.test(.live) { testClient in
                let url = URL(string: "http://127.0.0.1:\(try #require(testClient.port))")!
                let auth = BearerTokenMiddleware()
                let plain = Client.questline(serverURL: url, transport: URLSessionTransport(), auth: auth)
                let session = try await plain.signUp(
                    body: .json(
                        .init(
                            email: "mover@example.com", password: "password123",
                            displayName: "Mover", timeZone: "UTC"))
                ).created.body.json
                auth.token = session.token
                let progress = FileUploadProgress(url: dir.appendingPathComponent("progress.json"))

                // First attempt: the connection goes after 10 of 20 batches.
                let flaky = Client(
                    serverURL: url.appendingPathComponent("api/v1"), transport: URLSessionTransport(),
                    middlewares: [auth, Interrupter(allow: 10)])
                let first = SavedHistoryUploader(client: flaky, importID: "device-1", progress: progress)
                await #expect(throws: (any Error).self) { try await first.upload(items) }
                #expect(await progress.committedBatches(importID: "device-1") == 10)

                // Resume: only the remaining ten batches are sent.
                let seen = NIOLockedValueBox<[Int]>([])
                let second = SavedHistoryUploader(client: plain, importID: "device-1", progress: progress)
                let summary = try await second.upload(items) { done, _ in seen.withLockedValue { $0.append(done) } }
                #expect(summary.batchesSent == 10)
                #expect(summary.done == 10_000)
                #expect(seen.withLockedValue { $0 } == Array(stride(from: 5500, through: 10_000, by: 500)))
                #expect(try await store.activity.savedCount(MemberID(session.member.id)!) == 9_990)

                // The same batch sent twice changes nothing.
                let again = try await plain.importSaved(
                    body: .json(
                        .init(
                            importId: "device-1", total: 10_000, offset: 0,
                            items: [
                                .init(
                                    language: "en", title: "Article 0", savedAt: nil, readingListCreatedAt: base,
                                    readingList: "Later")
                            ])))
                let result = try again.ok.body.json
                #expect(result.alreadyCommitted)
                #expect(result.imported == 0)
                #expect(try await store.activity.savedCount(MemberID(session.member.id)!) == 9_990)

                // Everything committed: a third run sends nothing.
                #expect(try await second.upload(items).batchesSent == 0)
            }
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }
}
