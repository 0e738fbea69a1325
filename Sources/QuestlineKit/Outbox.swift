public import Foundation
public import QuestlineAPI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One write the device owes the server. Each carries the key that makes it idempotent, chosen
/// when it is queued and never changed, so however often it is sent it is applied once.
public enum OutboxItem: Sendable, Equatable, Codable {
    /// App use on a child's device (the report's `id` is its key on the server).
    case usage(childID: String, report: Components.Schemas.UsageReport)
    /// An article read (its `eventId` is its key).
    case read(Components.Schemas.ReadInput)
    /// An interval of reading time (its `eventId` is its key), on an article when known.
    case readingTime(eventID: String, start: Date, end: Date, timeZone: String, articleID: String? = nil)
    /// An article saved (sent with the entry's key as its Idempotency-Key).
    case save(Components.Schemas.SaveRequest)
    /// A child's request for more minutes of a reward app (sent with the entry's key).
    case timeRequest(childID: String, appToken: String, minutes: Int, note: String?)

    /// The queue within the outbox this item waits in: items of one lane go in order, one lane
    /// never waits for another that the server holds back (a time request refused with 429 does
    /// not hold a child's use). Use is per child; each kind of reading has its own.
    var lane: String {
        switch self {
        case .usage(let child, _): "usage:\(child)"
        case .read: "reads"
        case .readingTime: "reading-time"
        case .save: "saves"
        case .timeRequest(let child, _, _, _): "time-request:\(child)"
        }
    }

    /// The lane whose earlier items must reach the server first: a child's request for more
    /// time waits for the use queued before it, so the guardian sees the use it asks about.
    var after: String? {
        switch self {
        case .timeRequest(let child, _, _, _): "usage:\(child)"
        default: nil
        }
    }

    /// Which requests can carry this item together with others of the same batch.
    var batch: String? {
        switch self {
        case .usage(let child, _): "usage:\(child)"
        case .read: "reads"
        case .readingTime: "reading-time"
        case .save, .timeRequest: nil
        }
    }

    /// The key the server knows this item by.
    var key: String {
        switch self {
        case .usage(_, let report): report.id
        case .read(let read): read.eventId
        case .readingTime(let id, _, _, _, _): id
        case .save, .timeRequest: ""
        }
    }

    /// What a summary calls it.
    public var kind: String {
        switch self {
        case .usage: "usage"
        case .read: "read"
        case .readingTime: "reading time"
        case .save: "save"
        case .timeRequest: "time request"
        }
    }
}

/// An item waiting in the outbox.
public struct OutboxEntry: Sendable, Equatable, Codable {
    /// Its place in the queue (increasing, never reused).
    public let seq: Int64
    /// Its idempotency key, fixed when it was queued.
    public let key: String
    public let item: OutboxItem
    public let queuedAt: Date
}

/// How many entries were sent or dropped, and why the last ones were dropped.
public struct OutboxTally: Sendable, Equatable, Codable {
    public struct Drop: Sendable, Equatable, Codable {
        public let key: String
        public let kind: String
        public let reason: String
    }

    public var sent: Int = 0
    public var dropped: Int = 0
    /// The most recent drops (at most `OutboxTally.keptDrops`), oldest first.
    public var drops: [Drop] = []

    static let keptDrops = 100

    public init() {}
}

/// Why the outbox refused an item.
public enum OutboxError: Error, Equatable, CustomStringConvertible {
    /// The queue holds its limit: the new item is refused and everything queued is kept.
    case full(pending: Int, limit: Int)
    /// The queue's file could not be written.
    case io(String)

    public var description: String {
        switch self {
        case .full(let pending, let limit):
            "The outbox is full (\(pending) of \(limit) entries waiting): nothing new is queued until it drains."
        case .io(let detail): "The outbox could not be written: \(detail)"
        }
    }
}

/// A durable queue of writes on the device, in one append-only file.
///
/// **File format** (`outbox.jsonl` in the outbox's directory): UTF-8 JSON, one record a line,
/// each line ending in `\n`:
///
/// - `{"add":{"seq":1,"key":"…","item":{…},"queuedAt":"2026-11-25T10:00:00.000Z"}}`: an
///   item queued, with its sequence number and idempotency key.
/// - `{"done":{"seq":1,"sent":true}}`, or `{"done":{"seq":1,"sent":false,"reason":"…"}}`:
///   the item was sent (the server applied it, or had already), or dropped with a reason.
/// - `{"tally":{…}}`: the counts of sent and dropped items before the file was last compacted
///   (only as the first line).
///
/// Each record is appended with one `write` and flushed to disk (`fsync`) before the call
/// returns, so an item the app was told is queued survives the app being killed. A last line
/// without its newline (the app was killed mid-append) is ignored and cut off when the file is
/// next opened. When the done records outnumber the waiting items (and there are at least
/// 256), the file is rewritten with only the tally and the waiting items, to a temporary file
/// that is flushed and then renamed over the old one (atomic: a kill leaves the old file or
/// the new one).
///
/// **Size bound:** at most `limit` waiting items (10,000 by default). When full, `enqueue`
/// throws `OutboxError.full`: the new item is refused and the app decides (show "storage full",
/// or try again after the next sync). Queued items are never dropped to make room, because a
/// dropped usage report would change a child's progress.
///
/// An actor: one writer per process. Two processes (an app and its extension) must each use
/// their own directory.
public actor Outbox {
    public let directory: URL
    public let limit: Int
    private let clock: @Sendable () -> Date
    private var pending: [OutboxEntry] = []
    private var keys: Set<String> = []
    private var tally = OutboxTally()
    private var nextSeq: Int64 = 1
    private var doneLines = 0
    private var handle: FileHandle?

    private var file: URL { directory.appendingPathComponent("outbox.jsonl") }
    /// Sequence numbers stay below this (a file's line with a larger one is damaged): far more
    /// than a device ever queues, and room for every increment after it.
    static let maxSeq: Int64 = 1 << 53

    public init(directory: URL, limit: Int = 10_000, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.directory = directory
        self.limit = limit
        self.clock = clock
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.load(
            from: directory.appendingPathComponent("outbox.jsonl"),
            into: &pending, keys: &keys, tally: &tally, nextSeq: &nextSeq, doneLines: &doneLines, repair: true)
    }

    /// Queues `item` and returns its entry once it is on disk. An item whose key is already
    /// waiting is not queued again (its waiting entry is returned).
    @discardableResult
    public func enqueue(_ item: OutboxItem, key: String? = nil) throws -> OutboxEntry {
        let key = key ?? (item.key.isEmpty ? UUID().uuidString.lowercased() : item.key)
        if keys.contains(key), let waiting = pending.first(where: { $0.key == key }) { return waiting }
        guard pending.count < limit else { throw OutboxError.full(pending: pending.count, limit: limit) }
        let entry = OutboxEntry(seq: nextSeq, key: key, item: item, queuedAt: clock())
        try append(Record(add: entry))
        nextSeq += 1
        pending.append(entry)
        keys.insert(key)
        return entry
    }

    /// Queues several items with one write to disk (all or none): what a device does with the
    /// use it saw since it last woke. Items whose key is already waiting are skipped.
    @discardableResult
    public func enqueue(contentsOf items: [(item: OutboxItem, key: String?)]) throws -> [OutboxEntry] {
        var fresh: [OutboxEntry] = []
        var seen = keys
        var seq = nextSeq
        for (item, given) in items {
            let key = given ?? (item.key.isEmpty ? UUID().uuidString.lowercased() : item.key)
            guard seen.insert(key).inserted else { continue }
            fresh.append(OutboxEntry(seq: seq, key: key, item: item, queuedAt: clock()))
            seq += 1
        }
        guard !fresh.isEmpty else { return [] }
        guard pending.count + fresh.count <= limit else { throw OutboxError.full(pending: pending.count, limit: limit) }
        try append(fresh.map { Record(add: $0) })
        nextSeq = seq
        pending += fresh
        keys = seen
        return fresh
    }

    /// What the outbox in `directory` holds, read without changing the file (for a status
    /// command while the device runs).
    public static func inspect(directory: URL) throws -> (waiting: [OutboxEntry], tally: OutboxTally) {
        var pending: [OutboxEntry] = []
        var keys: Set<String> = []
        var tally = OutboxTally()
        var nextSeq: Int64 = 1
        var doneLines = 0
        try load(
            from: directory.appendingPathComponent("outbox.jsonl"), into: &pending, keys: &keys, tally: &tally,
            nextSeq: &nextSeq, doneLines: &doneLines, repair: false)
        return (pending, tally)
    }

    /// The items waiting, oldest first.
    public func waiting() -> [OutboxEntry] { pending }

    public func counts() -> OutboxTally { tally }

    /// Records that the entries `seqs` were sent (applied by the server, now or before).
    public func markSent(_ seqs: [Int64]) throws {
        try finish(seqs.map { Done(seq: $0, sent: true, reason: nil) })
    }

    /// Records that the entries `seqs` were dropped, and why (the server refused them for good).
    public func markDropped(_ seqs: [Int64], reason: String) throws {
        try finish(seqs.map { Done(seq: $0, sent: false, reason: reason) })
    }

    private func finish(_ done: [Done]) throws {
        let known = Set(pending.map(\.seq))
        let done = done.filter { known.contains($0.seq) }
        guard !done.isEmpty else { return }
        try append(done.map { Record(done: $0) })
        let finished = Set(done.map(\.seq))
        for record in done {
            guard let entry = pending.first(where: { $0.seq == record.seq }) else { continue }
            Self.count(record, of: entry, in: &tally)
        }
        pending.removeAll { entry in
            guard finished.contains(entry.seq) else { return false }
            keys.remove(entry.key)
            return true
        }
        doneLines += done.count
        if doneLines >= 256, doneLines > pending.count { try compact() }
    }

    private static func count(_ done: Done, of entry: OutboxEntry, in tally: inout OutboxTally) {
        if done.sent {
            tally.sent += 1
        } else {
            tally.dropped += 1
            tally.drops.append(.init(key: entry.key, kind: entry.item.kind, reason: done.reason ?? "refused"))
            if tally.drops.count > OutboxTally.keptDrops { tally.drops.removeFirst() }
        }
    }

    // MARK: - The file

    private struct Done: Codable {
        let seq: Int64
        let sent: Bool
        let reason: String?
    }

    private struct Record: Codable {
        var add: OutboxEntry?
        var done: Done?
        var tally: OutboxTally?

        init(add: OutboxEntry) { self.add = add }
        init(done: Done) { self.done = done }
        init(tally: OutboxTally) { self.tally = tally }
    }

    /// Dates are written as `Date` keeps them (seconds since 2001-01-01), a number that reads back
    /// as the very same `Date` (seconds since 1970 would not: the shift rounds): an entry sent again after a restart has the body of its first try, to the bit (the
    /// server compares a retried key's body with the first; a date written to the millisecond
    /// could come back a hair earlier and change the body's text).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.timeIntervalSinceReferenceDate)
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Reads the seconds written now, and the ISO 8601 text that outboxes written by earlier
    /// versions hold.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSinceReferenceDate: seconds) }
            let text = try container.decode(String.self)
            guard
                let date = try? Date(
                    text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
            else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text)) }
            return date
        }
        return decoder
    }()

    private func append(_ record: Record) throws { try append([record]) }

    private func append(_ records: [Record]) throws {
        var data = Data()
        do {
            for record in records {
                data.append(try Self.encoder.encode(record))
                data.append(0x0A)
            }
            let handle = try openHandle()
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch let error as OutboxError {
            throw error
        } catch {
            throw OutboxError.io(String(describing: error))
        }
    }

    private func openHandle() throws -> FileHandle {
        if let handle { return handle }
        if !FileManager.default.fileExists(atPath: file.path) {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw OutboxError.io("cannot create \(file.path)")
            }
        }
        let opened = try FileHandle(forWritingTo: file)
        handle = opened
        return opened
    }

    /// Rewrites the file with the tally and the waiting items only.
    private func compact() throws {
        var data = Data()
        do {
            data.append(try Self.encoder.encode(Record(tally: tally)))
            data.append(0x0A)
            for entry in pending {
                data.append(try Self.encoder.encode(Record(add: entry)))
                data.append(0x0A)
            }
            let temporary = directory.appendingPathComponent("outbox.jsonl.tmp")
            _ = FileManager.default.createFile(atPath: temporary.path, contents: nil)
            let writer = try FileHandle(forWritingTo: temporary)
            try writer.write(contentsOf: data)
            try writer.synchronize()
            try writer.close()
            try handle?.close()
            handle = nil
            // rename(2): atomic on one file system (FileManager's replace is not, on Linux).
            guard rename(temporary.path, file.path) == 0 else { throw OutboxError.io("cannot replace \(file.path)") }
            doneLines = 0
        } catch let error as OutboxError {
            throw error
        } catch {
            throw OutboxError.io(String(describing: error))
        }
    }

    private static func load(
        from file: URL, into pending: inout [OutboxEntry], keys: inout Set<String>, tally: inout OutboxTally,
        nextSeq: inout Int64, doneLines: inout Int, repair: Bool
    ) throws {
        guard let data = FileManager.default.contents(atPath: file.path), !data.isEmpty else { return }
        var complete = data
        repairing: if data.last != 0x0A {
            // Killed mid-append: the last line was never acknowledged to anyone. Cut it off so
            // the next append starts on a line of its own.
            let end = data.lastIndex(of: 0x0A).map { $0 + 1 } ?? data.startIndex
            complete = data[data.startIndex..<end]
            guard repair else { break repairing }
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(end - data.startIndex))
            try handle.synchronize()
            try handle.close()
        }
        var bySeq: [Int64: OutboxEntry] = [:]
        var order: [Int64] = []
        for (index, line) in complete.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            let lineNumber = index + 1
            let record: Record
            do { record = try decoder.decode(Record.self, from: Data(line)) } catch {
                throw OutboxError.io(
                    "\(file.lastPathComponent) line \(lineNumber) is not a record; move the file aside to start an empty outbox"
                )
            }
            if let entry = record.add {
                guard (1..<Self.maxSeq).contains(entry.seq) else {
                    throw OutboxError.io(
                        "\(file.lastPathComponent) line \(lineNumber) is damaged: its seq \(entry.seq) is not between 1 and \(Self.maxSeq - 1); move the file aside to start an empty outbox"
                    )
                }
                bySeq[entry.seq] = entry
                order.append(entry.seq)
                nextSeq = max(nextSeq, entry.seq + 1)
            } else if let done = record.done {
                doneLines += 1
                if let entry = bySeq.removeValue(forKey: done.seq) { count(done, of: entry, in: &tally) }
            } else if let saved = record.tally {
                tally = saved
            }
        }
        pending = order.compactMap { bySeq[$0] }
        keys = Set(pending.map(\.key))
    }
}
