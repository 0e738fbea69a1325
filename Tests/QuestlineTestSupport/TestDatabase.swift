import Foundation
import Logging
import PostgresKit
import QuestlineStore

/// The databases every store, feature and HTTP test runs on: a fresh SQLite file always, and
/// PostgreSQL when `QUESTLINE_TEST_POSTGRES_URL` is set (the test script starts one). With
/// `QUESTLINE_REQUIRE_POSTGRES=1` a missing PostgreSQL fails the run instead of skipping it.
/// Shared by the test targets (a plain target, so it links into each of them).
public enum TestDatabase: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["QUESTLINE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether a run must have PostgreSQL (`QUESTLINE_REQUIRE_POSTGRES=1`, set by the test script).
    public static var postgresRequired: Bool {
        ProcessInfo.processInfo.environment["QUESTLINE_REQUIRE_POSTGRES"] == "1"
    }

    public static var available: [TestDatabase] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// A new, empty database for one test, removed afterwards.
    public func withStore<T: Sendable>(migrate: Bool = true, _ body: (Store) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
                "questline-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            return try await run(.sqlite(path: dir.appendingPathComponent("test.sqlite").path), migrate: migrate, body)
        case .postgres:
            guard let url = Self.postgresURL else { throw TestSetupError.noPostgres }
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
            let admin = try Database(.postgres(url: url))
            try await admin.withConnection { db in try await db.raw("CREATE SCHEMA \(unsafeRaw: String(schema))").run()
            }
            defer {
                Task {
                    try? await admin.withConnection { db in
                        try await db.raw("DROP SCHEMA \(unsafeRaw: String(schema)) CASCADE").run()
                    }
                    await admin.shutdown()
                }
            }
            let separator = url.contains("?") ? "&" : "?"
            return try await run(.postgres(url: url + separator + "schema=" + schema), migrate: migrate, body)
        }
    }

    private func run<T: Sendable>(_ location: StoreLocation, migrate: Bool, _ body: (Store) async throws -> T)
        async throws -> T
    {
        let store: Store
        if migrate { store = try await Store.open(location) } else { store = Store(database: try Database(location)) }
        do {
            let result = try await body(store)
            await store.shutdown()
            return result
        } catch {
            await store.shutdown()
            throw error
        }
    }
}

public enum TestSetupError: Error { case noPostgres }
