import Foundation
import QuestlineAPI
import QuestlineCore
import Testing

@testable import QuestlineKit

/// The outbox's file: what survives a kill, what a torn line does, compaction and the bound.
@Suite struct OutboxTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("questline-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func usage(_ index: Int) -> OutboxItem {
        .usage(
            childID: "child",
            report: .init(
                id: "r\(index)", appToken: "learn",
                startedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(index)),
                durationSeconds: 60, timeZone: "Europe/Berlin"))
    }

    @Test func queuedItemsSurviveReopeningWithTheirKeysAndOrder() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outbox = try Outbox(directory: dir)
        for index in 0..<5 { try await outbox.enqueue(Self.usage(index)) }
        try await outbox.enqueue(.timeRequest(childID: "child", appToken: "game", minutes: 10, note: nil), key: "ask-1")
        // The same key again is not queued twice.
        try await outbox.enqueue(Self.usage(2))
        try await outbox.markSent([1, 2])
        try await outbox.markDropped([3], reason: "400 too long")

        let reopened = try Outbox(directory: dir)
        let waiting = await reopened.waiting()
        #expect(waiting.map(\.key) == ["r3", "r4", "ask-1"])
        #expect(waiting.map(\.seq) == [4, 5, 6])
        #expect(waiting.first?.item == Self.usage(3))
        let tally = await reopened.counts()
        #expect(tally.sent == 2 && tally.dropped == 1)
        #expect(tally.drops == [.init(key: "r2", kind: "usage", reason: "400 too long")])
        // New entries continue the sequence.
        #expect(try await reopened.enqueue(Self.usage(9)).seq == 7)
    }

    /// A report queued before a kill and sent after it carries the same body as its first try:
    /// the server refuses a retried key whose body changed.
    @Test func aReopenedEntryIsTheQueuedOneToTheBit() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outbox = try Outbox(directory: dir)
        let instants = [1_800_000_000.123_456_7, 1_800_000_000.999_999_9, 1_800_000_001.000_5, 1_800_000_002.124]
        for (index, instant) in instants.enumerated() {
            try await outbox.enqueue(
                .usage(
                    childID: "child",
                    report: .init(
                        id: "d\(index)", appToken: "learn", startedAt: Date(timeIntervalSince1970: instant),
                        durationSeconds: 60, timeZone: "Europe/Berlin")))
        }
        let queued = await outbox.waiting()
        let reopened = await (try Outbox(directory: dir)).waiting()
        #expect(reopened == queued)
        // And again after an entry read back was sent.
        let again = try Outbox(directory: dir)
        try await again.markSent([1])
        #expect(await (try Outbox(directory: dir)).waiting() == Array(queued.dropFirst()))
    }

    @Test func anOutboxWrittenWithISODatesStillReads() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let line =
            #"{"add":{"item":{"timeRequest":{"appToken":"game","childID":"child","minutes":10}},"key":"ask-1","#
            + #""queuedAt":"2027-01-15T08:00:00.250Z","seq":1}}"#
        try Data((line + "\n").utf8).write(to: dir.appendingPathComponent("outbox.jsonl"))
        let waiting = await (try Outbox(directory: dir)).waiting()
        #expect(waiting.map(\.key) == ["ask-1"])
        #expect(waiting.first?.queuedAt == Date(timeIntervalSince1970: 1_800_000_000.25))
    }

    @Test func aLineCutByAKillIsIgnoredAndRepaired() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let outbox = try Outbox(directory: dir)
            try await outbox.enqueue(Self.usage(0))
            try await outbox.enqueue(Self.usage(1))
        }
        let file = dir.appendingPathComponent("outbox.jsonl")
        var data = try Data(contentsOf: file)
        data.append(Data(#"{"add":{"seq":3,"key":"r2","item":{"usa"#.utf8))  // killed mid-append
        try data.write(to: file)

        // Reading without repairing leaves the file as it is.
        let inspected = try Outbox.inspect(directory: dir)
        #expect(inspected.waiting.map(\.key) == ["r0", "r1"])
        #expect(try Data(contentsOf: file) == data)

        let outbox = try Outbox(directory: dir)
        #expect(await outbox.waiting().map(\.key) == ["r0", "r1"])
        try await outbox.enqueue(Self.usage(2))
        let reopened = try Outbox(directory: dir)
        #expect(await reopened.waiting().map(\.key) == ["r0", "r1", "r2"])
    }

    @Test func compactionKeepsWhatWaitsAndTheCounts() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outbox = try Outbox(directory: dir)
        try await outbox.enqueue(contentsOf: (0..<600).map { (Self.usage($0), nil) })
        try await outbox.markSent((1...400).map(Int64.init))
        try await outbox.markDropped([401], reason: "422 bad")
        let file = dir.appendingPathComponent("outbox.jsonl")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        // Compacted when the 400 were sent: the tally and the 200 then waiting; then one done record.
        #expect(lines.count == 202)
        #expect(lines.dropFirst().prefix(200).allSatisfy { $0.hasPrefix(#"{"add""#) })
        #expect(lines[0].hasPrefix(#"{"tally""#))
        let reopened = try Outbox(directory: dir)
        #expect(await reopened.waiting().count == 199)
        #expect(await reopened.waiting().first?.key == "r401")
        let tally = await reopened.counts()
        #expect(tally.sent == 400 && tally.dropped == 1)
    }

    @Test func aFullOutboxRefusesTheNewItemAndKeepsTheRest() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outbox = try Outbox(directory: dir, limit: 3)
        try await outbox.enqueue(contentsOf: (0..<3).map { (Self.usage($0), nil) })
        await #expect(throws: OutboxError.full(pending: 3, limit: 3)) { try await outbox.enqueue(Self.usage(3)) }
        await #expect(throws: OutboxError.full(pending: 3, limit: 3)) {
            try await outbox.enqueue(contentsOf: [(Self.usage(4), nil)])
        }
        #expect(await outbox.waiting().count == 3)
        try await outbox.markSent([1])
        try await outbox.enqueue(Self.usage(3))
        #expect(await outbox.waiting().map(\.key) == ["r1", "r2", "r3"])
    }

    @Test func whatAnAnswerMeans() {
        func problem(_ status: Int, type: String = "about:blank", field: String? = nil) -> Components.Schemas.Problem {
            .init(_type: type, title: "t", status: status, detail: "d", field: field)
        }
        #expect(OutboxSender.verdict(status: 200, problem: nil) == .sent)
        #expect(OutboxSender.verdict(status: 401, problem: problem(401)) == .signedOut)
        #expect(
            OutboxSender.verdict(status: 409, problem: problem(409, type: "https://x/idempotency-applied")) == .sent)
        #expect(
            OutboxSender.verdict(status: 409, problem: problem(409, type: "https://x/idempotency-in-progress"))
                == .retry("409 t", retryAfter: nil, conflict: true))
        for status in [408, 429] {
            #expect(
                OutboxSender.verdict(status: status, problem: nil)
                    == .retry("\(status) ", retryAfter: nil, conflict: false))
        }
        // The server failing holds every lane, not one.
        for status in [500, 503] {
            #expect(
                OutboxSender.verdict(status: status, problem: nil)
                    == .retry("\(status) ", retryAfter: nil, conflict: false, everyLane: true))
        }
        // A conflict that names an item (sent before with other content): that item, for good.
        #expect(
            OutboxSender.verdict(status: 409, problem: problem(409, type: "https://x/conflict", field: "reports[2].id"))
                == .refused("409 d", items: [2]))
        #expect(
            OutboxSender.verdict(status: 409, problem: problem(409, type: "https://x/conflict"))
                == .retry("409 t", retryAfter: nil, conflict: true))
        #expect(
            OutboxSender.verdict(status: 400, problem: problem(400, field: "reports[3].durationSeconds"))
                == .refused("400 d", items: [3]))
        #expect(OutboxSender.verdict(status: 403, problem: problem(403)) == .refused("403 d", items: []))
        #expect(OutboxSender.verdict(status: 422, problem: nil) == .refused("422 refused", items: []))
    }

    /// Lanes: a held lane never holds another; within a lane, order; a request for time waits
    /// for the child's use queued before it.
    @Test func aHeldLaneHoldsBackNothingElse() {
        func entry(_ seq: Int64, _ item: OutboxItem) -> OutboxEntry {
            OutboxEntry(seq: seq, key: "k\(seq)", item: item, queuedAt: Date())
        }
        let ask = OutboxItem.timeRequest(childID: "child", appToken: "game", minutes: 10, note: nil)
        let waiting = [
            entry(1, ask), entry(2, ask), entry(3, Self.usage(0)), entry(4, Self.usage(1)),
            entry(5, .save(.init(language: "en", title: "T"))),
        ]
        let none: [String: (until: Date, reason: String)] = [:]
        #expect(OutboxSender.nextBatch(waiting, held: none, limit: 500)?.map(\.seq) == [1])
        let asksHeld = ["time-request:child": (Date.distantFuture, "429")]
        #expect(OutboxSender.nextBatch(waiting, held: asksHeld, limit: 500)?.map(\.seq) == [3, 4])
        let both = asksHeld.merging(["usage:child": (Date.distantFuture, "408")]) { a, _ in a }
        #expect(OutboxSender.nextBatch(waiting, held: both, limit: 500)?.map(\.seq) == [5])
        // A request queued after use waits for that use, even while the use's lane is held.
        let afterUse = [entry(1, Self.usage(0)), entry(2, ask)]
        #expect(OutboxSender.nextBatch(afterUse, held: none, limit: 500)?.map(\.seq) == [1])
        #expect(OutboxSender.nextBatch(afterUse, held: ["usage:child": (Date.distantFuture, "429")], limit: 500) == nil)
    }

    /// A damaged or hostile line is reported with its line number, never a crash.
    @Test func aHostileSequenceNumberIsReportedNotACrash() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let outbox = try Outbox(directory: dir)
            try await outbox.enqueue(Self.usage(0))
        }
        let file = dir.appendingPathComponent("outbox.jsonl")
        var text = try String(contentsOf: file, encoding: .utf8)
        let line = text.replacingOccurrences(of: #""seq":1"#, with: #""seq":9223372036854775807"#)
            .replacingOccurrences(of: #""key":"r0""#, with: #""key":"r9""#)
        text += line
        try text.write(to: file, atomically: true, encoding: .utf8)
        for open in [{ _ = try Outbox.inspect(directory: dir) }, { _ = try Outbox(directory: dir) }] {
            do {
                try open()
                Issue.record("a seq of Int64.max was accepted")
            } catch let error as OutboxError {
                #expect("\(error)".contains("line 2") && "\(error)".contains("9223372036854775807"), "\(error)")
            }
        }
    }

    @Test func backoffGrowsWithJitterAndHonoursRetryAfter() {
        let highest = Backoff(base: 0.5, cap: 8, random: { $0.upperBound })
        #expect((0..<6).map { highest.delay(attempt: $0) } == [0.5, 1, 2, 4, 8, 8])
        let lowest = Backoff(base: 0.5, cap: 8, random: { $0.lowerBound })
        #expect(lowest.delay(attempt: 3) == 0)
        #expect(lowest.delay(attempt: 3, retryAfter: 30) == 30)
        #expect(ResponseHeaders.seconds(retryAfter: "120", now: Date()) == 120)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ResponseHeaders.seconds(retryAfter: "Fri, 15 Jan 2027 08:00:30 GMT", now: now) == 30)
        #expect(ResponseHeaders.seconds(retryAfter: "soon", now: now) == nil)
    }
}
