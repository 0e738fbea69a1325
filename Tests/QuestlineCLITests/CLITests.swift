import ArgumentParser
import Foundation
import Logging
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import Testing

@testable import QuestlineCLI

@Suite struct CLITests {
    private func temporaryDatabase() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("cli.sqlite").path)
    }

    @Test func everyCommandExplainsItsOptions() {
        let root = QuestlineTools.helpMessage()
        for name in ["migrate", "demo-data", "game-questions", "content-import"] { #expect(root.contains(name)) }
        let serve = ServeOptions.helpMessage()
        for option in ["--database", "--hostname", "--port", "--no-demo-data", "DATABASE_URL", "--log-level"] {
            #expect(serve.contains(option), "serve --help lacks \(option)")
        }
        #expect(QuestlineTools.helpMessage(for: Migrate.self).contains("--database"))
        #expect(QuestlineTools.helpMessage(for: DemoDataCommand.self).contains("--database"))
    }

    @Test func optionsParseWithDefaults() async throws {
        let serve = try await ServeSettings.resolve(try ServeOptions.parse([]), environment: [:])
        #expect(serve.port == 8080)
        #expect(serve.hostname == "127.0.0.1")
        #expect(serve.database == "questline.sqlite")
        #expect(serve.features.demoCampaign)
        #expect(serve.otlpEndpoint == nil && serve.trustedProxies.isEmpty && serve.dbPoolSize == nil)
        let key = SecretBox.newKey()
        let custom = try await ServeSettings.resolve(
            try ServeOptions.parse(["--port", "9000", "--no-demo-data", "--feed-url", "none"]),
            environment: ["QUESTLINE_SECRET_KEY": key])
        #expect(custom.port == 9000)
        #expect(!custom.demoData && !custom.features.demoCampaign && custom.features.feedFetcher == nil)
        #expect(custom.secrets?.keys.count == 1 && serve.secrets == nil)
        #expect(throws: (any Error).self) { try ServeOptions.parse(["--port", "many"]) }
        await #expect(throws: ServeSettings.Invalid.self) {
            try await ServeSettings.resolve(try ServeOptions.parse(["--log-level", "loud"]), environment: [:])
        }
        #expect(throws: (any Error).self) { try QuestlineTools.parseAsRoot(["fly"]) }
    }

    /// A flag wins over its variable, a variable over the config file, the file over the default.
    @Test func everyOptionComesFromAFlagAVariableOrTheConfigFile() async throws {
        let (dir, _) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("questline.json")
        try Data(
            #"{"port": 7000, "hostname": "0.0.0.0", "logFormat": "json", "trustedProxy": ["10.0.0.0/8"], "dbPoolSize": 12, "drainSeconds": 5, "noDemoData": true}"#
                .utf8
        ).write(to: file)
        let environment = [
            "QUESTLINE_CONFIG": file.path, "QUESTLINE_PORT": "7100", "QUESTLINE_LOG_LEVEL": "debug",
            "QUESTLINE_SECRET_KEY": SecretBox.newKey(),
        ]
        let fromFile = try await ServeSettings.resolve(try ServeOptions.parse([]), environment: environment)
        #expect(fromFile.port == 7100)  // the variable over the file
        #expect(fromFile.logLevel == .debug && fromFile.jsonLogs && fromFile.hostname == "0.0.0.0")
        #expect(fromFile.trustedProxies == [AddressRange("10.0.0.0/8")!] && fromFile.dbPoolSize == 12)
        #expect(fromFile.drainSeconds == 5 && !fromFile.demoData)
        let flagged = try await ServeSettings.resolve(
            try ServeOptions.parse(["--port", "7200", "--trusted-proxy", "192.168.0.0/16"]), environment: environment)
        #expect(flagged.port == 7200 && flagged.trustedProxies == [AddressRange("192.168.0.0/16")!])
        let listed = try await ServeSettings.resolve(
            try ServeOptions.parse([]), environment: ["QUESTLINE_NO_RATE_LIMITS": "true"])
        #expect(!listed.rateLimits && listed.reminders)
        // Administrators are a stored role: the old option stops the start, saying what replaced it.
        for (options, environment) in [
            (["--admin-email", "a@example.com"], [String: String]()),
            ([], ["QUESTLINE_ADMIN_EMAIL": "a@example.com"]),
        ] {
            await #expect {
                _ = try await ServeSettings.resolve(try ServeOptions.parse(options), environment: environment)
            } throws: { error in
                "\(error)".contains("questline admin grant") && "\(error)".contains("--admin-email")
            }
        }
        // The secret key: a file of keys (the first seals), required without demo data.
        let keys = dir.appendingPathComponent("keys")
        try Data("# new\n\(SecretBox.newKey())\n\n# old\n\(SecretBox.newKey())\n".utf8).write(to: keys)
        let keyed = try await ServeSettings.resolve(
            try ServeOptions.parse(["--no-demo-data", "--secret-key-file", keys.path]), environment: [:])
        #expect(keyed.secrets?.keys.count == 2)
        // A key file written on Windows (CRLF), with comments.
        let windows = dir.appendingPathComponent("keys-crlf")
        try Data("# made 2026-11-01, new\r\n\(SecretBox.newKey())\r\n# old\r\n\(SecretBox.newKey())\r\n".utf8)
            .write(to: windows)
        #expect(
            try await ServeSettings.resolve(
                try ServeOptions.parse(["--no-demo-data", "--secret-key-file", windows.path]), environment: [:]
            ).secrets?.keys.count == 2)
        let badFile = dir.appendingPathComponent("keys-bad")
        try Data("# only a comment\n".utf8).write(to: badFile)
        // Each bad value is reported where it came from.
        for (options, environment, problem, source) in [
            (["--no-demo-data"], [String: String](), "a secret key is required without demo data", "--secret-key-file"),
            (["--no-demo-data"], ["QUESTLINE_SECRET_KEY": "short"], "not 64 hex digits", "QUESTLINE_SECRET_KEY"),
            (["--secret-key-file", "/no/such/keys"], [:], "cannot read", "--secret-key-file"),
            (["--secret-key-file", badFile.path], [:], "no key in it", badFile.path),
        ] {
            do {
                _ = try await ServeSettings.resolve(try ServeOptions.parse(options), environment: environment)
                Issue.record("\(options) \(environment) was accepted")
            } catch let invalid as ServeSettings.Invalid {
                #expect(
                    invalid.description.contains(problem) && invalid.description.contains(source),
                    "\(invalid.description)")
                if source == "QUESTLINE_SECRET_KEY" {
                    #expect(!invalid.description.contains("--secret-key-file"), "\(invalid.description)")
                }
            }
        }
        let quiet = try await ServeSettings.resolve(try ServeOptions.parse(["--no-reminders"]), environment: [:])
        let quietByVariable = try await ServeSettings.resolve(
            try ServeOptions.parse([]), environment: ["QUESTLINE_NO_REMINDERS": "true"])
        #expect(!quiet.reminders && !quietByVariable.reminders)

        // A bad value stops the start and names the option's three names.
        for (environment, named) in [
            (["QUESTLINE_PORT": "eighty"], "--port (QUESTLINE_PORT, \"port\""),
            (["QUESTLINE_PORT": "70000"], "QUESTLINE_PORT"),
            (["QUESTLINE_TRUSTED_PROXY": "banana"], "--trusted-proxy (QUESTLINE_TRUSTED_PROXY"),
            (["QUESTLINE_OTLP_ENDPOINT": "ftp://x"], "--otlp-endpoint"),
            (["QUESTLINE_SECURE_COOKIES": "maybe"], "QUESTLINE_SECURE_COOKIES"),
            (["QUESTLINE_CONFIG": dir.appendingPathComponent("missing.json").path], "--config (QUESTLINE_CONFIG"),
        ] {
            do {
                _ = try await ServeSettings.resolve(try ServeOptions.parse([]), environment: environment)
                Issue.record("\(environment) was accepted")
            } catch let invalid as ServeSettings.Invalid {
                #expect(invalid.description.contains(named), "\(invalid.description)")
            }
        }
    }

    /// The README's configuration table lists every option under its three names.
    @Test func theReadmeListsEveryOption() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../README.md"), encoding: .utf8)
        for option in ServeOption.all {
            #expect(
                readme.contains("| `\(option.flag)` | `\(option.variable)` | `\(option.key)` |"),
                "README lacks the row of \(option.flag)")
        }
    }

    @Test func migrateCreatesTheSchemaOnce() async throws {
        let (dir, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let migrate = try #require(try QuestlineTools.parseAsRoot(["migrate", "--database", path]) as? Migrate)
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
        let configuration = FeatureConfiguration(bcryptCost: 4)
        let created = try await DemoData.ensure(store: store, configuration: configuration)
        #expect(created.map(\.login) == [DemoData.guardianEmail, DemoData.childUsername])
        #expect(try await DemoData.ensure(store: store, configuration: configuration).isEmpty)
        let (child, _) = try #require(try await store.accounts.credentials(login: DemoData.childUsername))
        #expect(child.role == .child)
        #expect(try await store.accounts.memberCount() == 2)
        // The demo guardian administers the demo through the stored role, audited.
        #expect(try await store.accounts.administrators().map(\.member.email) == [DemoData.guardianEmail])
        #expect(try await store.accounts.administratorAudit().map(\.by) == ["demo-data"])
        await store.shutdown()
    }

    /// `questline admin grant|revoke|list`, as an operator runs them: the role is stored and
    /// audited, the login is matched by its key (any case, stray spaces), an unknown account
    /// fails with status 1.
    @Test func adminGrantRevokeAndList() async throws {
        let (dir, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await Store.open(.sqlite(path: path))
        let accounts = AccountsFeature(
            store: store, configuration: FeatureConfiguration(bcryptCost: 4), events: FeatureEvents())
        let signed = try await accounts.signUp(
            email: "ops@example.com", password: "password123", displayName: "Ops", timeZone: "UTC", scope: .system)
        #expect(!signed.member.isAdministrator)
        await store.shutdown()

        let none = try Questline.run(["admin", "list", "--database", path])
        #expect(none.status == 0 && none.output.contains("No administrators"), "\(none.output)\(none.errors)")
        let granted = try Questline.run(["admin", "grant", " OPS@example.com ", "--database", path])
        #expect(granted.status == 0 && granted.output.contains("ops@example.com is now an administrator"))
        let again = try Questline.run(["admin", "grant", "ops@example.com", "--database", path])
        #expect(again.status == 0 && again.output.contains("nothing changed"))
        let unknown = try Questline.run(["admin", "grant", "nobody@example.com", "--database", path])
        #expect(unknown.status != 0 && unknown.errors.contains("No account"), "\(unknown.errors)")
        let listed = try Questline.run(["admin", "list", "--database", path])
        #expect(
            listed.output.contains("  ops@example.com  since")
                && listed.output.contains("granted  ops@example.com  by cli"))
        let revoked = try Questline.run(["admin", "revoke", "ops@example.com", "--database", path])
        #expect(revoked.status == 0 && revoked.output.contains("no longer an administrator"))

        let reopened = try await Store.open(.sqlite(path: path))
        #expect(try await reopened.accounts.administrators().isEmpty)
        let audit = try await reopened.accounts.administratorAudit()
        #expect(audit.map(\.granted) == [false, true] && audit.allSatisfy { $0.memberID == signed.member.id })
        await reopened.shutdown()
    }
}

@Suite struct GameCLITests {
    private var fixture: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../QuestlineCoreTests/Fixtures/onthisday-10-30-trimmed.json").standardized.path
    }

    @Test func gameQuestionsPrintsTheFixedJSON() throws {
        // The command itself, as an operator runs it: the built executable, its standard output.
        let run = try Questline.run(["game-questions", "--feed", fixture, "--date", "2026-02-06"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix(#"{"questions": [{"first": {"year": 1944, "text": ""#))
        let parsed =
            try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: [[String: [String: Any]]]]
        #expect(
            parsed?["questions"]?.map { [$0["first"]?["year"] as? Int, $0["second"]?["year"] as? Int] }
                == [[1944, 1941], [1501, 1485], [637, 758], [1864, 1863], [1340, 1270]])
        let command = try #require(
            try QuestlineTools.parseAsRoot(["game-questions", "--feed", fixture, "--date", "2026-02-06"])
                as? GameQuestionsCommand)
        #expect(command.language == "en")
        #expect(throws: (any Error).self) {
            try QuestlineTools.parseAsRoot(["game-questions", "--date", "2026-02-06"])
        }
        #expect(try Questline.run(["game-questions", "--date", "2026-02-06"]).status != 0)
    }

    @Test func gameQuestionsExitsWithStatus3WhenThereIsNoGame() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let feed = dir.appendingPathComponent("one.json")
        try Data(#"{"events":[{"text":"Verdun.","year":1916,"pages":[]}]}"#.utf8).write(to: feed)
        let command = try #require(
            try QuestlineTools.parseAsRoot(["game-questions", "--feed", feed.path, "--date", "2026-02-21"])
                as? GameQuestionsCommand)
        #expect(throws: ExitCode(3)) { try command.run() }
        let bad = try #require(
            try QuestlineTools.parseAsRoot(["game-questions", "--feed", feed.path, "--date", "2026-02-30"])
                as? GameQuestionsCommand)
        #expect(throws: (any Error).self) { try bad.run() }
    }

    @Test func gameImportChecksTheWholeFileAndImportsNothingWhenItIsBad() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("g.sqlite").path
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"events":[{"text":"Fine.","year":1916},{"text":"Broken.","year":"MCMXVI"}]}"#.utf8).write(to: bad)
        let failing = try #require(
            try QuestlineTools.parseAsRoot([
                "game-import", "--database", database, "--feed", bad.path, "--date", "10-30",
            ]) as? GameImportCommand)
        await #expect(throws: CommandFailure.self) { try await failing.run() }
        let good = try #require(
            try QuestlineTools.parseAsRoot([
                "game-import", "--database", database, "--feed", fixture, "--date", "2026-10-30",
            ]) as? GameImportCommand)
        try await good.run()
        let store = try await Store.open(.sqlite(path: database))
        #expect(try await store.game.feed(language: "en", month: 10, day: 30)?.feed.events.count == 48)
        #expect(try await store.game.feed(language: "en", month: 10, day: 31) == nil)
        await store.shutdown()
        let wrongDay = try #require(
            try QuestlineTools.parseAsRoot([
                "game-import", "--database", database, "--feed", fixture, "--date", "02-30",
            ]) as? GameImportCommand)
        await #expect(throws: CommandFailure.self) { try await wrongDay.run() }
    }

    @Test func wikiImportChecksTheWholeFileThenAddsToThePack() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("w.sqlite").path
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"language":"en","summaries":[{"title":"Fine","extract":"Yes."},{"title":"Broken"}]}"#.utf8)
            .write(to: bad)
        let failing = try #require(
            try QuestlineTools.parseAsRoot(["wiki-import", "--database", database, bad.path]) as? WikiImportCommand)
        await #expect(throws: CommandFailure.self) { try await failing.run() }
        #expect(!FileManager.default.fileExists(atPath: database))  // a bad file touches nothing
        let good = dir.appendingPathComponent("good.json")
        try Data(
            #"{"language":"en","summaries":[{"title":"Fine","extract":"Yes."},{"title":"Also fine","extract":"Too."}]}"#
                .utf8
        ).write(to: good)
        try await #require(
            try QuestlineTools.parseAsRoot(["wiki-import", "--database", database, good.path]) as? WikiImportCommand
        ).run()
        let store = try await Store.open(.sqlite(path: database))
        #expect(try await store.wiki.imported().map(\.title).sorted() == ["Also fine", "Fine"])
        await store.shutdown()
    }
}

@Suite struct ReadingCLITests {
    private func files(_ campaign: String, _ history: String) throws -> (URL, String, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(campaign.utf8).write(to: dir.appendingPathComponent("c.json"))
        try Data(history.utf8).write(to: dir.appendingPathComponent("h.json"))
        return (dir, dir.appendingPathComponent("c.json").path, dir.appendingPathComponent("h.json").path)
    }

    private let campaign =
        #"{"id": "2026", "startDay": "2026-05-01", "endDay": "2026-05-31", "goalDays": 25, "claimUntilDay": "2026-07-10", "removeAfterDay": "2026-07-10", "continueActiveStreakAfterEnd": false, "freezes": 1}"#

    @Test func widgetPreviewPrintsTheModel() throws {
        let (dir, c, h) = try files(
            campaign,
            #"{"joinedAt": "2026-05-02T10:00:00Z", "reads": [{"at": "2026-05-07T09:00:00Z", "timeZone": "Europe/Paris"}, {"at": "2026-05-08T09:00:00Z", "timeZone": "Europe/Paris"}]}"#
        )
        defer { try? FileManager.default.removeItem(at: dir) }
        // The 9th was missed: the freeze kept the streak; the 10th is not read yet. What the
        // command prints is the model.
        let run = try Questline.run([
            "widget-preview", "--campaign", c, "--history", h, "--now", "2026-05-10T08:30:00Z", "--time-zone",
            "Europe/Paris",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let model = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(model["state"] as? String == "freezeApplied")
        #expect(model["streak"] as? Int == 2)
        #expect(model["freezesLeft"] as? Int == 0)
    }

    /// Rest days, pauses and repairs are previewed by the CLI as by the web page (one input
    /// shape, one function); unknown keys are refused, a pause over the yearly cap too.
    @Test func widgetPreviewTakesEveryStreakSetting() throws {
        func preview(_ history: String, now: String = "2026-05-06T10:00:00Z") throws -> Questline.Run {
            let (dir, c, h) = try files(campaign, history)
            defer { try? FileManager.default.removeItem(at: dir) }
            return try Questline.run([
                "widget-preview", "--campaign", c, "--history", h, "--now", now, "--time-zone", "Europe/Paris",
            ])
        }
        func state(_ run: Questline.Run) throws -> String? {
            try (JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])?["state"] as? String
        }
        func reads(_ days: [String]) -> String {
            days.map { #"{"at": "\#($0)T09:00:00Z", "timeZone": "Europe/Paris"}"# }.joined(separator: ", ")
        }
        let joined = #""joinedAt": "2026-05-01T10:00:00Z""#
        let paused = try preview(
            #"{\#(joined), "reads": [\#(reads(["2026-05-01", "2026-05-02", "2026-05-03"]))], "pauses": [{"start": "2026-05-04", "end": "2026-05-08"}]}"#
        )
        #expect(try state(paused) == "paused", "\(paused.output) \(paused.errors)")
        let rest = try preview(
            #"{\#(joined), "restDays": [6, 7], "reads": [\#(reads(["2026-05-04", "2026-05-05", "2026-05-06", "2026-05-07", "2026-05-08"]))]}"#,
            now: "2026-05-09T10:00:00Z")
        #expect(try state(rest) == "restDay", "\(rest.output) \(rest.errors)")
        let repaired = try preview(
            #"{\#(joined), "reads": [\#(reads(["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-06", "2026-05-06", "2026-05-06"]))]}"#
        )
        #expect(try state(repaired) == "streakReadToday", "\(repaired.output) \(repaired.errors)")
        let unknown = try preview(#"{\#(joined), "reads": [], "pauseStart": "2026-05-04"}"#)
        #expect(unknown.status != 0 && unknown.errors.contains("pauseStart"), "\(unknown.errors)")
        let tooLong = try preview(#"{"reads": [], "pauses": [{"start": "2026-05-01", "end": "2026-05-15"}]}"#)
        #expect(tooLong.status != 0 && tooLong.errors.contains("At most 14 paused days"), "\(tooLong.errors)")
        let help = try Questline.run(["widget-preview", "--help"])
        for key in ReadingHistory.keys { #expect(help.output.contains("\"\(key)\""), "--help lacks \(key)") }
    }

    @Test func widgetPreviewRefusesBadInput() throws {
        let (dir, c, h) = try files(
            campaign, #"{"joinedAt": null, "reads": [{"at": "2026-06-01T09:00:00Z", "timeZone": "Europe/Paris"}]}"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [
            ["--now", "2026-05-10T08:30:00Z", "--time-zone", "Mars/Base"],
            ["--now", "yesterday", "--time-zone", "Europe/Paris"],
            ["--now", "2026-05-10T08:30:00Z", "--time-zone", "Europe/Paris"],
        ] {  // a read in the future
            let command = try #require(
                try QuestlineTools.parseAsRoot(["widget-preview", "--campaign", c, "--history", h] + arguments)
                    as? WidgetPreviewCommand)
            #expect(throws: (any Error).self) { try command.run() }
        }
    }
}

/// The built `questline` executable (beside the test bundle), run as an operator runs it.
enum Questline {
    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("questline")
    }

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DATABASE_URL")
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }
}

/// `questline doctor`: exit status 0 when nothing is wrong, 1 when something is, whatever it is.
@Suite struct DoctorTests {
    func doctor(_ arguments: [String]) async throws {
        let command = try #require(try QuestlineTools.parseAsRoot(["doctor"] + arguments) as? DoctorCommand)
        try await command.run()
    }

    @Test func aHealthySetUpPassesAndEachKindOfFaultFails() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("questline-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.sqlite").path
        try await doctor(["--database", path, "--feed-url", "none"])
        // A database that cannot be opened.
        await #expect(throws: ExitCode.self) {
            try await doctor(["--database", "/proc/no/such/dir/d.sqlite", "--feed-url", "none"])
        }
        // A bad value in the config file.
        let config = dir.appendingPathComponent("bad.json")
        try Data(#"{"drainSeconds": "soon"}"#.utf8).write(to: config)
        await #expect(throws: ExitCode.self) {
            try await doctor(["--database", path, "--feed-url", "none", "--config", config.path])
        }
        // A trace collector that does not answer.
        await #expect(throws: ExitCode.self) {
            try await doctor(["--database", path, "--feed-url", "none", "--otlp-endpoint", "http://127.0.0.1:9"])
        }
    }
}
