import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import QuestlineCore
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// `/ready` for load balancers: 200 when the instance should get traffic; 503 with a reason
/// while it drains or while the database lacks migrations. `/health` stays 200 (liveness).
@Suite struct ReadinessTests {
    private func status(_ store: Store, readiness: Readiness) async throws -> [String] {
        var configuration = Harness.configuration(clock: ManualClock(Harness.start))
        configuration.readiness = readiness
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
        return try await app.test(.router) { client in
            var seen: [String] = []
            for path in ["/ready", "/health"] {
                let response = try await client.execute(uri: path, method: .get)
                seen.append("\(path) \(response.status.code) \(String(buffer: response.body))")
            }
            return seen
        }
    }

    @Test(arguments: TestDatabase.available)
    func readyUntilDraining(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let readiness = Readiness()
            let before = try await status(store, readiness: readiness)
            #expect(
                before == [
                    #"/ready 200 {"status":"ready"}"#, #"/health 200 {"status":"ok","database":"ok"}"#,
                ])
            readiness.startDraining()
            let draining = try await status(store, readiness: readiness)
            #expect(
                draining == [
                    #"/ready 503 {"status":"not ready","reason":"draining"}"#,
                    #"/health 200 {"status":"ok","database":"ok"}"#,
                ])
        }
    }

    /// `/health`'s database check counts a success for its max age, and sees an outage at once
    /// after it (a failure is not kept).
    @Test func livenessAnswersFromARecentSuccessAndSeesAnOutageAfterIt() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: dir.appendingPathComponent("live.sqlite").path))
        let recent = LivenessCheck(store: store, maxAge: .seconds(60))
        let everyTime = LivenessCheck(store: store, maxAge: .zero)
        try await recent.check()
        try await everyTime.check()
        await store.shutdown()
        try await recent.check()  // the success a moment ago still counts
        await #expect(throws: (any Error).self) { try await everyTime.check() }
        await #expect(throws: (any Error).self) { try await everyTime.check() }  // not kept: asked again
    }

    @Test(arguments: TestDatabase.available)
    func notReadyWhileMigrationsArePending(_ db: TestDatabase) async throws {
        try await db.withStore(migrate: false) { store in
            let latest = Migrations.all.map(\.version).max()!
            try await Migrator(Migrations.all.filter { $0.version < latest }).migrate(store.database)
            let seen = try await status(store, readiness: Readiness())
            #expect(seen.first == #"/ready 503 {"status":"not ready","reason":"migrations pending"}"#)
            try await Migrator().migrate(store.database)
            let migrated = try await status(store, readiness: Readiness())
            #expect(migrated.first == #"/ready 200 {"status":"ready"}"#)
        }
    }
}
