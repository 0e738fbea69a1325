import ArgumentParser
import Foundation
@testable import QuestlineCLI
import QuestlineCore
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

@Suite struct GameCLITests {
    private var fixture: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../QuestlineCoreTests/Fixtures/onthisday-10-30-trimmed.json").standardized.path
    }

    @Test func gameQuestionsPrintsTheFixedJSON() throws {
        let command = try #require(try QuestlineCommand.parseAsRoot(["game-questions", "--feed", fixture, "--date", "2026-02-06"]) as? GameQuestionsCommand)
        guard case .questions(let questions) = QuestionBuilder.build(try OnThisDayFeed.decode(Data(contentsOf: URL(fileURLWithPath: fixture))),
                                                                      date: LocalDay(iso: "2026-02-06")!) else {
            Issue.record("no game")
            return
        }
        let json = GameQuestionsCommand.json(questions)
        #expect(json.hasPrefix(#"{"questions": [{"first": {"year": 1944, "text": ""#))
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [[String: [String: Any]]]]
        #expect(parsed?["questions"]?.map { [$0["first"]?["year"] as? Int, $0["second"]?["year"] as? Int] }
                == [[1944, 1941], [1501, 1485], [637, 758], [1864, 1863], [1340, 1270]])
        #expect(command.language == "en")
        #expect(throws: (any Error).self) { try QuestlineCommand.parseAsRoot(["game-questions", "--date", "2026-02-06"]) }
    }

    @Test func gameQuestionsExitsWithStatus3WhenThereIsNoGame() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let feed = dir.appendingPathComponent("one.json")
        try Data(#"{"events":[{"text":"Verdun.","year":1916,"pages":[]}]}"#.utf8).write(to: feed)
        let command = try #require(try QuestlineCommand.parseAsRoot(["game-questions", "--feed", feed.path, "--date", "2026-02-21"]) as? GameQuestionsCommand)
        #expect(throws: ExitCode(3)) { try command.run() }
        let bad = try #require(try QuestlineCommand.parseAsRoot(["game-questions", "--feed", feed.path, "--date", "2026-02-30"]) as? GameQuestionsCommand)
        #expect(throws: (any Error).self) { try bad.run() }
    }

    @Test func gameImportChecksTheWholeFileAndImportsNothingWhenItIsBad() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("g.sqlite").path
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"events":[{"text":"Fine.","year":1916},{"text":"Broken.","year":"MCMXVI"}]}"#.utf8).write(to: bad)
        let failing = try #require(try QuestlineCommand.parseAsRoot(["game-import", "--database", database, "--feed", bad.path, "--date", "10-30"]) as? GameImportCommand)
        await #expect(throws: CommandFailure.self) { try await failing.run() }
        let good = try #require(try QuestlineCommand.parseAsRoot(["game-import", "--database", database, "--feed", fixture, "--date", "2026-10-30"]) as? GameImportCommand)
        try await good.run()
        let store = try await Store.open(.sqlite(path: database))
        #expect(try await store.game.feed(language: "en", month: 10, day: 30)?.feed.events.count == 48)
        #expect(try await store.game.feed(language: "en", month: 10, day: 31) == nil)
        await store.shutdown()
        let wrongDay = try #require(try QuestlineCommand.parseAsRoot(["game-import", "--database", database, "--feed", fixture, "--date", "02-30"]) as? GameImportCommand)
        await #expect(throws: CommandFailure.self) { try await wrongDay.run() }
    }
}
