import ArgumentParser
import Foundation
@testable import QuestlineCLI
import QuestlineServer
import QuestlineStore
import Testing

@Suite struct CLITests {
    private func temporaryDatabase() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("cli.sqlite").path)
    }

    @Test func everyCommandExplainsItsOptions() {
        let root = QuestlineCommand.helpMessage()
        for name in ["serve", "migrate", "demo-data"] { #expect(root.contains(name)) }
        let serve = QuestlineCommand.helpMessage(for: Serve.self)
        for option in ["--database", "--hostname", "--port", "--no-demo-data", "DATABASE_URL", "--log-level"] {
            #expect(serve.contains(option), "serve --help lacks \(option)")
        }
        #expect(QuestlineCommand.helpMessage(for: Migrate.self).contains("--database"))
        #expect(QuestlineCommand.helpMessage(for: DemoDataCommand.self).contains("--database"))
    }

    @Test func optionsParseWithDefaults() throws {
        let serve = try #require(try QuestlineCommand.parseAsRoot(["serve"]) as? Serve)
        #expect(serve.port == 8080)
        #expect(serve.hostname == "127.0.0.1")
        #expect(serve.store.database == "questline.sqlite")
        let custom = try #require(try QuestlineCommand.parseAsRoot(["serve", "--port", "9000", "--no-demo-data"]) as? Serve)
        #expect(custom.port == 9000)
        #expect(custom.noDemoData)
        #expect(throws: (any Error).self) { try QuestlineCommand.parseAsRoot(["serve", "--port", "many"]) }
        #expect(throws: (any Error).self) { try QuestlineCommand.parseAsRoot(["fly"]) }
    }

    @Test func migrateCreatesTheSchemaOnce() async throws {
        let (dir, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        var migrate = try #require(try QuestlineCommand.parseAsRoot(["migrate", "--database", path]) as? Migrate)
        try await migrate.run()
        try await migrate.run()
        let database = try Database(.sqlite(path: path))
        let versions = try await Migrator().appliedVersions(database)
        await database.shutdown()
        #expect(versions == Migrations.all.map(\.version).sorted())
    }

    @Test func demoDataCreatesAccountsThatCanSignIn() async throws {
        let (dir, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: path))
        let configuration = AppConfiguration(store: .sqlite(path: path), bcryptCost: 4)
        let created = try await DemoData.ensure(store: store, configuration: configuration)
        #expect(created.map(\.login) == [DemoData.guardianEmail, DemoData.childUsername])
        #expect(try await DemoData.ensure(store: store, configuration: configuration).isEmpty)
        let (child, _) = try #require(try await store.accounts.credentials(login: DemoData.childUsername))
        #expect(child.role == .child)
        #expect(try await store.accounts.memberCount() == 2)
        await store.shutdown()
    }
}
