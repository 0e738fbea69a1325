import ArgumentParser
import Foundation
import NIOCore
import OpenAPIAsyncHTTPClient
import QuestlineAPI
import QuestlineCore
import QuestlineKit
import QuestlineL10n

/// A child's device on Linux, built on QuestlineKit: what an iOS app's DeviceActivity monitor
/// and ManagedSettings extension do, driven by a script instead of real app use.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "A child's device: reports app use from a script through the outbox, and applies the shield.",
        subcommands: [DeviceRun.self, DeviceStatus.self])
}

/// One line of a device script: use (`{"at": ISO 8601, "app": token, "seconds": n}`), or a
/// request for time (`{"ask": token, "minutes": n, "note": text}`). `zone` (an IANA name)
/// stamps a use line with another zone than the member's (travel).
struct ScriptLine: Decodable {
    var at: String?
    var app: String?
    var seconds: Int?
    var ask: String?
    var minutes: Int?
    var note: String?
    var zone: String?
}

/// What `device run` played of its script (`progress.json` in the state directory).
struct ScriptProgress: Codable {
    var script: String
    var played: Int
}

struct DeviceRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play a usage script as the child's device: queue, send, retry, and apply the policy.",
        discussion: """
            Each line of the script is queued in the outbox in --state (on disk, with its key) before \
            it is sent, so the device can be stopped at any moment and started again with the same \
            directory: it resumes where it stopped and sends nothing twice. Use that has ended is \
            sent as history at once; use still to come waits for its time. When the server cannot \
            be reached, the device keeps trying (login and uploads) with backoff. It exits 0 once \
            the script is played and the queue is empty (--follow keeps it running).
            """)

    @Option(help: "The server's root URL, e.g. http://127.0.0.1:8080.") var server: String
    @Option(help: "The child's username (or a guardian's e-mail, with --child).") var username: String
    @Option(help: "The password.") var password: String
    @Option(help: ArgumentHelp("The JSON-lines script to play.", valueName: "file")) var script: String
    @Option(help: ArgumentHelp("The device's directory: its queue, session and policy.", valueName: "dir"))
    var state: String
    @Option(help: "The child whose device this is (default: the member signed in).") var child: String?
    @Option(help: "The zone use is stamped with (default: the member's).") var timeZone: String?
    @Option(help: "The longest wait between two tries, in seconds (default 30).") var maxBackoff: Double = 30
    @Option(help: "How often to ask for the policy while waiting or following, in seconds (default 60).")
    var policyEvery: Double = 60
    @Option(help: "The most reports a request carries, 1 to 500 (default 500).") var batchSize = 500
    @Flag(help: "Keep running after the script is played: keep sending and applying the policy.") var follow = false

    func validate() throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--server: give an http or https URL, e.g. http://127.0.0.1:8080.")
        }
        guard maxBackoff > 0 else { throw ValidationError("--max-backoff: give a number of seconds above 0.") }
        guard (1...OutboxSender.maxBatch).contains(batchSize) else {
            throw ValidationError("--batch-size: give 1 to \(OutboxSender.maxBatch).")
        }
        if let timeZone, TimeZoneID(timeZone) == nil {
            throw ValidationError("--time-zone: \(timeZone) is not an IANA time zone.")
        }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: state, isDirectory: true)
        let lines = try Self.readScript(script)
        let device = try await DevicePlayer(
            server: URL(string: server)!, username: username, password: password, directory: directory,
            backoff: Backoff(base: 0.25, cap: maxBackoff), policyEvery: policyEvery, batchSize: batchSize)
        try await device.signIn()
        let child = try await device.resolveChild(child, timeZone: timeZone)
        try await device.play(lines, childID: child.id, zone: child.zone, follow: follow)
        await device.printSummary()
    }

    /// The script's lines, parsed (a line that is not a use or an ask names its number).
    static func readScript(_ path: String) throws -> [(number: Int, text: String, line: ScriptLine)] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--script: cannot read \(path).")
        }
        var lines: [(Int, String, ScriptLine)] = []
        for (index, raw) in String(decoding: data, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .enumerated() {
            let text = raw.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            let line: ScriptLine
            do { line = try JSONDecoder().decode(ScriptLine.self, from: Data(text.utf8)) } catch {
                throw ValidationError("--script: line \(index + 1) is not JSON: \(text.prefix(80))")
            }
            let isUse = line.at != nil && line.app != nil && line.seconds != nil
            let isAsk = line.ask != nil && line.minutes != nil
            guard isUse != isAsk else {
                throw ValidationError(
                    "--script: line \(index + 1) is neither a use {\"at\",\"app\",\"seconds\"} nor a request {\"ask\",\"minutes\"}."
                )
            }
            if let at = line.at, DevicePlayer.instant(at) == nil {
                throw ValidationError("--script: line \(index + 1): \"at\" is not an ISO 8601 date-time.")
            }
            lines.append((index + 1, text, line))
        }
        return lines
    }
}

struct DeviceStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Print what a device's outbox holds: waiting, sent and dropped.")

    @Option(help: ArgumentHelp("The device's directory (as given to device run).", valueName: "dir")) var state: String

    func run() async throws {
        let directory = URL(fileURLWithPath: state, isDirectory: true)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("outbox.jsonl").path) else {
            throw ValidationError("--state: \(state) holds no device outbox.")
        }
        let (waiting, tally) = try Outbox.inspect(directory: directory)
        print("waiting: \(waiting.count)")
        for (kind, count) in Dictionary(grouping: waiting, by: \.item.kind).mapValues(\.count).sorted(by: {
            $0.key < $1.key
        }) {
            print("  \(kind): \(count)")
        }
        if let oldest = waiting.first {
            print("  oldest queued at \(oldest.queuedAt.formatted(.iso8601)) (key \(oldest.key))")
        }
        print("sent: \(tally.sent)")
        print("dropped: \(tally.dropped)")
        for drop in tally.drops { print("  \(drop.kind) \(drop.key): \(drop.reason)") }
        if let data = FileManager.default.contents(atPath: directory.appendingPathComponent("progress.json").path),
            let progress = try? JSONDecoder().decode(ScriptProgress.self, from: data)
        {
            print("script: \(progress.played) lines played")
        }
    }
}

/// The device's loop: signs in, plays the script into the outbox, sends it, applies the policy.
actor DevicePlayer {
    let session: QuestlineSession
    let outbox: Outbox
    let sender: OutboxSender
    let directory: URL
    let username: String
    let password: String
    let backoff: Backoff
    let policyEvery: Double
    var shield: ShieldKeeper?
    var lastPolicyCheck = Date.distantPast
    var failures = 0

    init(
        server: URL, username: String, password: String, directory: URL, backoff: Backoff, policyEvery: Double,
        batchSize: Int
    ) async throws {
        self.directory = directory
        self.username = username
        self.password = password
        self.backoff = backoff
        self.policyEvery = policyEvery
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let transport = AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(30)))
        session = try await QuestlineSession(
            serverURL: server, transport: transport,
            tokens: FileTokenStore(url: directory.appendingPathComponent("token")))
        outbox = try Outbox(directory: directory)
        sender = OutboxSender(
            outbox: outbox, session: session, backoff: backoff, batchLimit: batchSize, log: { print($0) })
    }

    static func instant(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    /// Signs in (keeping the saved session when there is one), waiting while the server cannot
    /// be reached. A wrong password stops the command.
    func signIn() async throws {
        if await session.forgotDamagedToken, !(await session.isSignedIn) {
            print(
                "the saved session in \(directory.appendingPathComponent("token").path) was damaged: signing in again")
        }
        while !(await session.isSignedIn) {
            do {
                try await session.logIn(login: username, password: password)
                print("signed in as \(username)")
                failures = 0
            } catch SessionError.refused(let detail) {
                throw ValidationError("Login refused: \(detail)")
            } catch {
                try await wait("cannot sign in (\(Self.describe(error)))")
            }
        }
    }

    /// The child this device reports for, and the zone its use is stamped with.
    func resolveChild(_ given: String?, timeZone: String?) async throws -> (id: String, zone: String) {
        while true {
            do {
                let me = try await session.currentMember()
                failures = 0
                let id = given ?? me.id
                if given == nil, me.role != .child {
                    throw ValidationError("\(username) is not a child: name the child with --child.")
                }
                return (id, timeZone ?? me.timeZone)
            } catch SessionError.signedOut {
                try await signIn()
            } catch let error as ValidationError {
                throw error
            } catch {
                try await wait("cannot read the member (\(Self.describe(error)))")
            }
        }
    }

    func play(_ lines: [(number: Int, text: String, line: ScriptLine)], childID: String, zone: String, follow: Bool)
        async throws
    {
        shield = try ShieldKeeper(session: session, childID: childID, directory: directory)
        let scriptID = Self.digest(lines.map(\.text).joined(separator: "\n"))
        let progressFile = directory.appendingPathComponent("progress.json")
        var progress = ScriptProgress(script: scriptID, played: 0)
        if let data = FileManager.default.contents(atPath: progressFile.path),
            let saved = try? JSONDecoder().decode(ScriptProgress.self, from: data), saved.script == scriptID
        {
            progress = saved
            if saved.played > 0 { print("resuming after line \(saved.played) of \(lines.count)") }
        }
        while true {
            // Queue every line whose time has come.
            var ready: [(item: OutboxItem, key: String?)] = []
            var played = progress.played
            while played < lines.count {
                let (number, text, line) = lines[played]
                let key = "dev-" + Self.digest("\(username)\n\(number)\n\(text)")
                if let at = line.at.flatMap(Self.instant), let app = line.app, let seconds = line.seconds {
                    guard at.addingTimeInterval(Double(seconds)) <= Date() else { break }
                    ready.append(
                        (
                            .usage(
                                childID: childID,
                                report: .init(
                                    id: key, appToken: app, startedAt: at, durationSeconds: seconds,
                                    timeZone: line.zone ?? zone)), nil
                        ))
                } else if let app = line.ask, let minutes = line.minutes {
                    ready.append(
                        (.timeRequest(childID: childID, appToken: app, minutes: minutes, note: line.note), key))
                }
                played += 1
            }
            // Queued first, then marked played: a kill in between queues the same keys again,
            // which the outbox (still waiting) or the server (already sent) ignores.
            let queued = played - progress.played
            if queued > 0 {
                try await outbox.enqueue(contentsOf: ready)
                progress.played = played
                try JSONEncoder().encode(progress).write(to: progressFile, options: .atomic)
            }
            if queued > 0 { print("queued \(queued) (\(progress.played) of \(lines.count) lines played)") }

            // Send what waits.
            let before = await outbox.counts()
            let pass = await sender.sendPass()
            let after = await outbox.counts()
            if after.sent > before.sent { print("sent \(after.sent - before.sent) (\(after.sent) in all)") }
            switch pass {
            case .drained:
                failures = 0
            case .signedOut:
                print("the session ended: signing in again")
                try await signIn()
                continue
            case .wait(let seconds, let reason):
                // Until the held lane may go again, or sooner when the next line is due or the
                // policy should be checked (other lanes are not held).
                var pause = min(seconds, policyEvery)
                if progress.played < lines.count, let at = lines[progress.played].line.at.flatMap(Self.instant) {
                    let due = at.addingTimeInterval(Double(lines[progress.played].line.seconds ?? 0))
                    pause = min(pause, max(due.timeIntervalSince(Date()), 0.05))
                }
                print("waiting \(String(format: "%.1f", pause)) s: \(reason)")
                try await Task.sleep(for: .seconds(pause))
                if Date().timeIntervalSince(lastPolicyCheck) >= policyEvery { await applyPolicy() }
                continue
            }

            // Apply the policy when it may have changed.
            let now = Date()
            let due = now.timeIntervalSince(lastPolicyCheck) >= policyEvery || queued > 0
            if due { await applyPolicy() }

            let done = progress.played >= lines.count
            if done, !follow { return }
            // Wait for the next line's time, the policy's next change, or the next check.
            var next = now.addingTimeInterval(policyEvery)
            if !done, let at = lines[progress.played].line.at.flatMap(Self.instant) {
                next = min(next, at.addingTimeInterval(Double(lines[progress.played].line.seconds ?? 0)))
            }
            if let change = await shield?.policy(at: now)?.nextChange { next = min(next, change) }
            try await Task.sleep(for: .seconds(max(next.timeIntervalSince(Date()), 0.05)))
        }
    }

    /// Fetches the policy (a 304 when unchanged) and prints what the device shields now.
    func applyPolicy() async {
        guard let shield else { return }
        lastPolicyCheck = Date()
        do {
            let changed = try await shield.refresh()
            let waiting = await outbox.waiting().compactMap { entry -> UsageRecord? in
                guard case .usage(_, let report) = entry.item, let zone = TimeZoneID(report.timeZone) else {
                    return nil
                }
                return UsageRecord(
                    token: report.appToken, start: report.startedAt, seconds: report.durationSeconds, zone: zone)
            }
            guard let policy = await shield.policy(at: Date(), localUse: waiting) else { return }
            if changed {
                for app in policy.apps {
                    let state =
                        app.blocked
                        ? "blocked (\(app.reason.rawValue))"
                        : "unlocked until \(app.unlockedUntil?.formatted(.iso8601) ?? "?"), \(app.minutesLeft) min left"
                    print("shield: \(app.token) \(state)")
                }
                if let next = policy.nextChange { print("shield: next change at \(next.formatted(.iso8601))") }
            }
        } catch {
            print("policy not refreshed (\(Self.describe(error))): applying the one kept")
        }
    }

    func printSummary() async {
        let tally = await outbox.counts()
        let waiting = await outbox.waiting().count
        print("summary: sent \(tally.sent), pending \(waiting), dropped \(tally.dropped)")
        for drop in tally.drops { print("  dropped \(drop.kind) \(drop.key): \(drop.reason)") }
    }

    private func wait(_ reason: String) async throws {
        let seconds = backoff.delay(attempt: failures)
        failures += 1
        print("waiting \(String(format: "%.1f", seconds)) s: \(reason)")
        try await Task.sleep(for: .seconds(seconds))
    }

    static func describe(_ error: any Error) -> String {
        String(describing: error).prefix(160).description
    }

    static func digest(_ text: String) -> String { StableDigest.fnv1a(text) }
}
