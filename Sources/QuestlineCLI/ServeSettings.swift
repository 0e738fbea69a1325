import ArgumentParser
import Configuration
import Foundation
import Logging
import QuestlineFeatures
import QuestlineStore
import SystemPackage

/// One option of `questline serve`, under its three names: a command-line flag, an environment
/// variable (`QUESTLINE_` and the key in upper snake case) and a key of the configuration file.
public struct ServeOption: Sendable, Equatable {
    /// The key in the configuration file (camelCase); the flag and variable derive from it.
    public let key: String
    public let defaultValue: String
    public let meaning: String

    public var flag: String {
        "--" + key.reduce(into: "") { out, c in out += c.isUppercase ? "-" + c.lowercased() : String(c) }
    }
    public var variable: String {
        "QUESTLINE_" + key.reduce(into: "") { out, c in out += c.isUppercase ? "_" + String(c) : c.uppercased() }
    }

    /// Every option, in the order of the README's table (a test keeps the two in step).
    public static let all: [ServeOption] = [
        .init(
            key: "config", defaultValue: "none",
            meaning: "a JSON file of options (these keys); flags and variables override it"),
        .init(
            key: "database", defaultValue: "questline.sqlite",
            meaning: "the SQLite file, when `DATABASE_URL` is not set"),
        .init(
            key: "hostname", defaultValue: "127.0.0.1", meaning: "address to listen on (`0.0.0.0` for every interface)"),
        .init(key: "port", defaultValue: "8080", meaning: "port to listen on"),
        .init(key: "noDemoData", defaultValue: "false", meaning: "do not create demo accounts, nor the demo campaign"),
        .init(
            key: "secureCookies", defaultValue: "false",
            meaning: "mark the cookies (session, flash message) `Secure` (behind HTTPS)"),
        .init(
            key: "noRateLimits", defaultValue: "false", meaning: "no request limits nor login backoff (load tests only)"
        ),
        .init(
            key: "noReminders", defaultValue: "false",
            meaning: "this instance runs no reading-reminder pass (run it on one or a few instances)"),
        .init(key: "logLevel", defaultValue: "info", meaning: "trace, debug, info, notice, warning, error or critical"),
        .init(key: "logFormat", defaultValue: "text", meaning: "`text`, or `json`: one object a line"),
        .init(
            key: "feedUrl", defaultValue: "Wikimedia REST",
            meaning: "the game's feed URL template; `none`: imported feeds only"),
        .init(
            key: "wikiUrl", defaultValue: "https://{language}.wikipedia.org",
            meaning: "Wikipedia's base URL template (search, random, summaries); `none`: the offline pack only"),
        .init(
            key: "drainSeconds", defaultValue: "0", meaning: "seconds of 503 on `/ready` after SIGTERM before stopping"),
        .init(
            key: "trustedProxy", defaultValue: "none",
            meaning: "proxies (CIDR list) whose `X-Forwarded-For` names the client"),
        .init(key: "dbPoolSize", defaultValue: "8 per core", meaning: "PostgreSQL connections this instance may open"),
        .init(key: "otlpEndpoint", defaultValue: "none", meaning: "OTLP/HTTP collector URL: turns tracing on"),
        .init(
            key: "streakReminderHour", defaultValue: "19",
            meaning: "the local hour from which a streak-at-risk reminder is produced"),
        .init(
            key: "webhookRetrySeconds", defaultValue: "10",
            meaning: "the first webhook retry's delay, doubled each time"),
        .init(
            key: "secretKeyFile", defaultValue: "none (required without demo data)",
            meaning:
                "the server's secret key(s), one a line (64 hex digits; the first seals); or QUESTLINE_SECRET_KEY"),
        .init(
            key: "webhookAllowPrivate", defaultValue: "false",
            meaning: "let webhooks go to plain http and to loopback and private addresses (development, tests)"),
    ]

    static func named(_ key: String) -> ServeOption { all.first { $0.key == key }! }
}

/// What `questline serve` runs with, once every option is resolved: from its flag, else its
/// environment variable, else the configuration file, else the default (swift-configuration's
/// providers, in that order). A value that does not fit stops the start with a message naming
/// the option's three names.
public struct ServeSettings: Sendable {
    public var database = "questline.sqlite"
    public var hostname = "127.0.0.1"
    public var port = 8080
    public var demoData = true
    public var secureCookies = false
    public var rateLimits = true
    /// Whether this instance runs the reading-reminder pass (`ReminderService`).
    public var reminders = true
    public var logLevel = Logger.Level.info
    public var jsonLogs = false
    public var feedURL = WikimediaFeedClient.defaultTemplate
    public var wikiURL = WikimediaClient.defaultTemplate
    public var drainSeconds = 0
    public var trustedProxies: [AddressRange] = []
    public var dbPoolSize: Int?
    /// Where spans go (OTLP over HTTP); nil: no tracing.
    public var otlpEndpoint: URL?
    public var webhookRetrySeconds = 10
    /// Webhooks may go to plain `http` and inward addresses (development and tests only).
    public var webhookAllowPrivate = false
    /// The server's secret key(s) (`--secret-key-file` or `QUESTLINE_SECRET_KEY`); nil with demo
    /// data only, when a key kept in the database is used (`DemoData.storedSecretKey`).
    public var secrets: SecretBox?
    public var streakReminderHour = 19

    public init() {}

    /// Where the data is: `DATABASE_URL` selects PostgreSQL, else the SQLite file.
    public func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreLocation {
        StoreLocation.fromEnvironment(environment, defaultSQLitePath: database)
    }

    /// The use cases' configuration these settings describe.
    public var features: FeatureConfiguration {
        FeatureConfiguration(
            feedFetcher: feedURL == "none" ? nil : WikimediaFeedClient(template: feedURL),
            wikiFetcher: wikiURL == "none" ? nil : WikimediaClient(template: wikiURL),
            demoCampaign: demoData, bufferAnalytics: true, rateLimits: rateLimits ? .standard : .off,
            webhookRetrySeconds: TimeInterval(webhookRetrySeconds), streakReminderHour: streakReminderHour,
            webhookDestination: WebhookDestination(allowPrivate: webhookAllowPrivate),
            secrets: secrets ?? .ephemeral())
    }

    /// A bad value: stops the start, naming where it can be set; or an option that no longer
    /// exists, saying what replaced it.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String

        init(option: ServeOption, problem: String) {
            description = "\(option.flag) (\(option.variable), \"\(option.key)\" in the config file): \(problem)"
        }

        /// A value that only an environment variable gives.
        init(variable: String, problem: String) {
            description = "\(variable): \(problem)"
        }

        init(removed names: String, instead: String) {
            description = "\(names) is no longer an option: \(instead)"
        }
    }

    /// Resolves `options` (the flags given) over `environment` and the config file they name.
    public static func resolve(
        _ options: ServeOptions, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ServeSettings {
        var given: [AbsoluteConfigKey: ConfigValue] = [:]
        func flag(_ key: String, _ value: ConfigContent?) {
            if let value { given[AbsoluteConfigKey([key])] = ConfigValue(value, isSecret: false) }
        }
        flag("config", options.config.map { .string($0) })
        flag("database", options.store.database.map { .string($0) })
        flag("hostname", options.hostname.map { .string($0) })
        flag("port", options.port.map { .int($0) })
        flag("noDemoData", options.noDemoData ? .bool(true) : nil)
        flag("secureCookies", options.secureCookies ? .bool(true) : nil)
        flag("noRateLimits", options.noRateLimits ? .bool(true) : nil)
        flag("noReminders", options.noReminders ? .bool(true) : nil)
        flag("logLevel", options.logLevel.map { .string($0) })
        flag("logFormat", options.logFormat.map { .string($0) })
        flag("feedUrl", options.feedURL.map { .string($0) })
        flag("wikiUrl", options.wikiURL.map { .string($0) })
        flag("adminEmail", options.adminEmails.isEmpty ? nil : .stringArray(options.adminEmails))  // refused below
        flag("drainSeconds", options.drainSeconds.map { .int($0) })
        flag("trustedProxy", options.trustedProxies.isEmpty ? nil : .stringArray(options.trustedProxies))
        flag("dbPoolSize", options.dbPoolSize.map { .int($0) })
        flag("otlpEndpoint", options.otlpEndpoint.map { .string($0) })
        flag("webhookRetrySeconds", options.webhookRetrySeconds.map { .int($0) })
        flag("streakReminderHour", options.streakReminderHour.map { .int($0) })
        flag("webhookAllowPrivate", options.webhookAllowPrivate ? .bool(true) : nil)
        flag("secretKeyFile", options.secretKeyFile.map { .string($0) })

        let variables = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "questline")
        var providers: [any ConfigProvider] = [InMemoryProvider(name: "flags", values: given), variables]
        let early = ConfigReader(providers: providers)
        if let path = early.string(forKey: "config") {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(path)))
            } catch {
                throw Invalid(option: .named("config"), problem: "cannot read \(path) as a JSON object: \(error)")
            }
        }
        return try Reader(config: ConfigReader(providers: providers)).settings()
    }

    /// Reads each option, turning every value that does not fit into an `Invalid`.
    private struct Reader {
        let config: ConfigReader

        func text(_ key: String) throws -> String? {
            if let value = config.string(forKey: ConfigKey(key)) { return value }
            if config.int(forKey: ConfigKey(key)) != nil || config.bool(forKey: ConfigKey(key)) != nil {
                throw Invalid(option: .named(key), problem: "expected text")
            }
            return nil
        }

        func whole(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
            let value: Int
            if let number = config.int(forKey: ConfigKey(key)) {
                value = number
            } else if let text = config.string(forKey: ConfigKey(key)) {
                guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                    throw Invalid(option: .named(key), problem: "\"\(text)\" is not a whole number")
                }
                value = number
            } else {
                return nil
            }
            guard range.contains(value) else {
                throw Invalid(
                    option: .named(key), problem: "\(value) is not within \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }

        func yes(_ key: String) throws -> Bool {
            if let value = config.bool(forKey: ConfigKey(key)) { return value }
            if let text = config.string(forKey: ConfigKey(key)) {
                throw Invalid(option: .named(key), problem: "\"\(text)\" is not true or false")
            }
            return false
        }

        func list(_ key: String) throws -> [String] {
            if let values = config.stringArray(forKey: ConfigKey(key)) {
                return values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            return try text(key).map { [$0] } ?? []
        }

        /// The key file, else `QUESTLINE_SECRET_KEY`; neither is allowed only with demo data.
        func secretKeys(demoData: Bool) throws -> SecretBox? {
            let text: String
            // Where the keys came from, so that a bad one is reported there.
            let invalid: (String) -> Invalid
            if let path = try self.text("secretKeyFile") {
                guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw Invalid(option: .named("secretKeyFile"), problem: "cannot read \(path)")
                }
                text = contents
                invalid = { Invalid(option: .named("secretKeyFile"), problem: "the key file \(path): \($0)") }
            } else if let variable = config.string(forKey: "secretKey", isSecret: true) {
                text = variable
                invalid = { Invalid(variable: "QUESTLINE_SECRET_KEY", problem: $0) }
            } else if demoData {
                return nil
            } else {
                throw Invalid(
                    option: .named("secretKeyFile"),
                    problem:
                        "a secret key is required without demo data (it seals webhook secrets and keys the idempotency table): create one with `questline secrets new-key` and give it in a file or in QUESTLINE_SECRET_KEY"
                )
            }
            switch SecretBox.parse(text) {
            case .success(let box): return box
            case .failure(let error):
                throw invalid(error.reason)
            }
        }

        func settings() throws -> ServeSettings {
            var s = ServeSettings()
            if let value = try text("database") { s.database = value }
            if let value = try text("hostname") { s.hostname = value }
            if let value = try whole("port", in: 1...65_535) { s.port = value }
            s.demoData = !(try yes("noDemoData"))
            s.secureCookies = try yes("secureCookies")
            s.rateLimits = !(try yes("noRateLimits"))
            s.reminders = !(try yes("noReminders"))
            s.webhookAllowPrivate = try yes("webhookAllowPrivate")
            s.secrets = try secretKeys(demoData: s.demoData)
            if let value = try text("logLevel") {
                guard let level = Logger.Level(rawValue: value) else {
                    throw Invalid(
                        option: .named("logLevel"),
                        problem: "\"\(value)\" is not one of trace, debug, info, notice, warning, error, critical")
                }
                s.logLevel = level
            }
            if let value = try text("logFormat") {
                guard ["text", "json"].contains(value) else {
                    throw Invalid(option: .named("logFormat"), problem: "\"\(value)\" is not text or json")
                }
                s.jsonLogs = value == "json"
            }
            if let value = try text("feedUrl") {
                guard value == "none" || (value.hasPrefix("http://") || value.hasPrefix("https://")) else {
                    throw Invalid(
                        option: .named("feedUrl"), problem: "\"\(value)\" is not an http(s) URL template or none")
                }
                s.feedURL = value
            }
            if let value = try text("wikiUrl") {
                guard value == "none" || (value.hasPrefix("http://") || value.hasPrefix("https://")) else {
                    throw Invalid(
                        option: .named("wikiUrl"), problem: "\"\(value)\" is not an http(s) URL template or none")
                }
                s.wikiURL = value
            }
            // Administrators were e-mails given here; an e-mail is never verified, so anyone signing
            // up with one became an administrator. The role is stored now (`questline admin`).
            if config.string(forKey: "adminEmail") != nil || config.stringArray(forKey: "adminEmail") != nil {
                throw Invalid(
                    removed: "--admin-email (QUESTLINE_ADMIN_EMAIL, \"adminEmail\" in the config file)",
                    instead:
                        "administrators are a stored role now: grant one with `questline admin grant EMAIL` (same database options as serve)"
                )
            }
            if let value = try whole("drainSeconds", in: 0...3_600) { s.drainSeconds = value }
            s.trustedProxies = try list("trustedProxy").map { text in
                guard let range = AddressRange(text) else {
                    throw Invalid(
                        option: .named("trustedProxy"),
                        problem: "\"\(text)\" is not an address or CIDR range (10.0.0.0/8)")
                }
                return range
            }
            s.dbPoolSize = try whole("dbPoolSize", in: 1...1_000)
            if let value = try text("otlpEndpoint"), value != "none" {
                guard let url = URL(string: value), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                    throw Invalid(option: .named("otlpEndpoint"), problem: "\"\(value)\" is not an http(s) URL")
                }
                s.otlpEndpoint = url
            }
            if let value = try whole("webhookRetrySeconds", in: 1...3_600) { s.webhookRetrySeconds = value }
            if let value = try whole("streakReminderHour", in: 0...23) { s.streakReminderHour = value }
            return s
        }
    }
}
