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
