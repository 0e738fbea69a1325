public import Foundation
internal import OpenAPIRuntime
internal import QuestlineAPI
internal import QuestlineClient

/// Sends what waits in an `Outbox`, lane by lane, batch by batch, and records each entry as
/// sent or dropped.
///
/// **Lanes** (`OutboxItem.lane`): a child's use, reads, reading time, saves, a child's requests
/// for time. Within a lane items go in the order they were queued; a lane the server holds back
/// (429, 408, a 409 while another try runs) waits for its own backoff while the other lanes go
/// on, so one refused request never holds back a device's other work. A request for time waits
/// for the child's use queued before it (`OutboxItem.after`).
///
/// What an answer means:
/// - 2xx, and 409 `idempotency-applied` (the server applied it before, the answer was lost):
///   sent.
/// - 401: the session ended; nothing more is sent until the member signs in again.
/// - 408, 409 (another try of the same key still running), 429: the lane waits and is tried
///   again with exponential backoff and jitter, never sooner than the server's `Retry-After`.
///   A 409 that names no item and keeps coming back after `maxConflicts` tries is dropped (a
///   conflict that does not clear is not a busy server).
/// - 5xx, or no answer (offline, server down): every lane waits (the server, not one request,
///   is the problem), with backoff.
/// - any other 4xx, and a 409 that names an item (`reports[3].id`: sent before with other
///   content): the server refuses it for good, so it is dropped with the problem's words as the
///   reason, never retried. When the problem names items of a batch, only those are dropped and
///   the rest is sent again.
public actor OutboxSender {
    /// What one pass over the queue ended with.
    public enum Pass: Sendable, Equatable {
        /// Nothing waits.
        case drained
        /// Something waits: try again in `seconds` (the reason is the last failure).
        case wait(seconds: Double, reason: String)
        /// The server no longer knows this device's session: sign in again.
        case signedOut
    }

    public let outbox: Outbox
    public let session: QuestlineSession
    /// The most items a request carries (the API takes 500; fewer keeps each request short on a
    /// slow network).
    public static let maxBatch = 500
    public let batchLimit: Int
    public var maxConflicts = 20
    private let backoff: Backoff
    private let log: @Sendable (String) -> Void
    private let clock: @Sendable () -> Date
    /// Failures in a row with no answer or a server error (every lane waits).
    private var failures = 0
    /// Per lane: failures in a row, and until when it waits, and why.
    private var laneFailures: [String: Int] = [:]
    private var heldUntil: [String: (until: Date, reason: String)] = [:]
    private var conflicts: [String: Int] = [:]

    public init(
        outbox: Outbox, session: QuestlineSession, backoff: Backoff = Backoff(), batchLimit: Int = maxBatch,
        clock: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.batchLimit = min(max(batchLimit, 1), Self.maxBatch)
        self.outbox = outbox
        self.session = session
        self.backoff = backoff
        self.clock = clock
        self.log = log
    }

    /// Sends what waits until the queue is empty, or until every lane with something waiting
    /// must wait (then says how long), or the session ends.
    public func sendPass() async -> Pass {
        while true {
            let waiting = await outbox.waiting()
            guard !waiting.isEmpty else { return .drained }
            let now = clock()
            guard
                let batch = Self.nextBatch(waiting, held: heldUntil.filter { $0.value.until > now }, limit: batchLimit)
            else {
                let held = heldUntil.filter { $0.value.until > now }.min { $0.value.until < $1.value.until }
                return .wait(
                    seconds: max(held.map { $0.value.until.timeIntervalSince(now) } ?? 0.05, 0.05),
                    reason: held?.value.reason ?? "waiting")
            }
            guard await session.isSignedIn else { return .signedOut }
            let lane = batch[0].item.lane
            let verdict = await send(batch)
            do {
                switch verdict {
                case .sent:
                    try await outbox.markSent(batch.map(\.seq))
                    failures = 0
                    laneFailures[lane] = nil
                    heldUntil[lane] = nil
                case .signedOut:
                    try? await session.signedOut()
                    return .signedOut
                case .refused(let reason, let items):
                    let dropped =
                        items.isEmpty ? batch : items.compactMap { batch.indices.contains($0) ? batch[$0] : nil }
                    try await outbox.markDropped(dropped.map(\.seq), reason: reason)
                    for entry in dropped { log("dropped \(entry.item.kind) \(entry.key): \(reason)") }
                case .retry(let reason, let retryAfter, let conflict, let everyLane):
                    if everyLane {
                        let seconds = backoff.delay(attempt: failures, retryAfter: retryAfter)
                        failures += 1
                        return .wait(seconds: seconds, reason: reason)
                    }
                    let key = batch[0].key
                    if conflict {
                        conflicts[key, default: 0] += 1
                        if conflicts[key, default: 0] >= maxConflicts {
                            let reason = "still conflicting after \(maxConflicts) tries: \(reason)"
                            try await outbox.markDropped(batch.map(\.seq), reason: reason)
                            log("dropped \(batch.count) \(batch[0].item.kind): \(reason)")
                            conflicts[key] = nil
                            continue
                        }
                    }
                    let attempt = laneFailures[lane, default: 0]
                    laneFailures[lane] = attempt + 1
                    let seconds = backoff.delay(attempt: attempt, retryAfter: retryAfter)
                    heldUntil[lane] = (now.addingTimeInterval(max(seconds, 0.001)), reason)
                    log("\(batch[0].item.kind) waits \(String(format: "%.1f", seconds)) s: \(reason)")
                }
            } catch {
                failures += 1
                return .wait(seconds: backoff.delay(attempt: failures), reason: "the outbox: \(error)")
            }
        }
    }

    /// The first waiting entry whose lane is not held (nor waiting for an earlier entry of a
    /// lane it comes after), with the entries of its lane that go in the same request. Within a
    /// lane only its oldest entry may go first.
    static func nextBatch(_ waiting: [OutboxEntry], held: [String: (until: Date, reason: String)], limit: Int)
        -> [OutboxEntry]?
    {
        var passed: Set<String> = []
        var firstOfLane: [String: Int64] = [:]
        for entry in waiting where firstOfLane[entry.item.lane] == nil { firstOfLane[entry.item.lane] = entry.seq }
        for entry in waiting {
            let lane = entry.item.lane
            guard !passed.contains(lane) else { continue }
            passed.insert(lane)
            if held[lane] != nil { continue }
            if let before = entry.item.after, let first = firstOfLane[before], first < entry.seq { continue }
            guard let group = entry.item.batch else { return [entry] }
            return Array(waiting.lazy.filter { $0.item.batch == group }.prefix(limit))
        }
        return nil
    }

    // MARK: - One request

    enum Verdict: Equatable {
        case sent
        case signedOut
        /// Refused for good; `items` are the batch's indices the problem names (empty: all).
        case refused(String, items: [Int])
        /// Try again later: this lane only, or every lane (`everyLane`: the server failed or
        /// gave no answer).
        case retry(String, retryAfter: Double?, conflict: Bool, everyLane: Bool = false)
    }

    private func send(_ batch: [OutboxEntry]) async -> Verdict {
        let client = session.client
        do {
            let (verdict, retryAfter) = try await ResponseHeaders.recording { () async throws -> Verdict in
                switch batch[0].item {
                case .usage(let child, _):
                    let reports = batch.compactMap { entry -> Components.Schemas.UsageReport? in
                        if case .usage(_, let report) = entry.item { return report }
                        return nil
                    }
                    return Self.verdict(
                        try await client.reportUsage(
                            path: .init(childId: child), headers: .init(Idempotency_hyphen_Key: Self.batchKey(batch)),
                            body: .json(.init(reports: reports))))
                case .read:
                    let reads = batch.compactMap { entry -> Components.Schemas.ReadInput? in
                        if case .read(let read) = entry.item { return read }
                        return nil
                    }
                    return Self.verdict(
                        try await client.recordReads(
                            headers: .init(Idempotency_hyphen_Key: Self.batchKey(batch)),
                            body: .json(.init(reads: reads))
                        ))
                case .readingTime:
                    let intervals = batch.compactMap {
                        entry -> Operations.recordReadingTime.Input.Body.jsonPayload.intervalsPayloadPayload? in
                        guard case .readingTime(let id, let start, let end, let zone, let article) = entry.item else {
                            return nil
                        }
                        return .init(eventId: id, start: start, end: end, timeZone: zone, articleId: article)
                    }
                    return Self.verdict(
                        try await client.recordReadingTime(
                            headers: .init(Idempotency_hyphen_Key: Self.batchKey(batch)),
                            body: .json(.init(intervals: intervals))))
                case .save(let save):
                    return Self.verdict(
                        try await client.saveArticle(
                            headers: .init(Idempotency_hyphen_Key: batch[0].key), body: .json(save)))
                case .timeRequest(let child, let app, let minutes, let note):
                    return Self.verdict(
                        try await client.askForTime(
                            path: .init(childId: child), headers: .init(Idempotency_hyphen_Key: batch[0].key),
                            body: .json(.init(appToken: app, minutes: minutes, note: note))))
                }
            }
            if case .retry(let reason, _, let conflict, let everyLane) = verdict {
                return .retry(reason, retryAfter: retryAfter, conflict: conflict, everyLane: everyLane)
            }
            return verdict
        } catch {
            return .retry("no answer: \(Self.short(error))", retryAfter: nil, conflict: false, everyLane: true)
        }
    }

    /// A batch's Idempotency-Key: a digest of its items' own keys and of what they say, so the
    /// same items give the same key (and the same body) on every try, and an item queued again
    /// under its key with other contents never reuses a batch key whose first body was different
    /// (the server would refuse the whole batch with 422); the server's per-item ids then refuse
    /// that item alone (409) and take the rest.
    static func batchKey(_ batch: [OutboxEntry]) -> String {
        let contents = batch.map { entry in
            (try? Outbox.encoder.encode(entry.item)).map { String(decoding: $0, as: UTF8.self) } ?? entry.key
        }
        return "batch-\(batch.count)-" + StableDigest.fnv1a(batch.map(\.key).joined(separator: "\u{1f}"))
            + StableDigest.fnv1a(contents.joined(separator: "\u{1f}"))
    }

    static func short(_ error: any Error) -> String {
        if let client = error as? ClientError {
            return String(describing: client.underlyingError).prefix(200).description
        }
        return String(describing: error).prefix(200).description
    }

    /// What a refusal means, from its status and problem (the one place the rules above live).
    static func verdict(status: Int, problem: Components.Schemas.Problem?) -> Verdict {
        let type = problem?._type ?? ""
        let fields = ([problem?.field] + (problem?.errors ?? []).map(\.field)).compactMap { $0 }
        let items = Array(Set(fields.compactMap(itemIndex))).sorted()
        let refusal = "\(status) \(problem?.detail ?? problem?.title ?? "refused")"
        switch status {
        case 200..<300: return .sent
        case 401: return .signedOut
        case 409 where type.hasSuffix("idempotency-applied"): return .sent
        // An item sent before with other content (another device's copy): that item, for good.
        case 409 where !type.hasSuffix("idempotency-in-progress") && !items.isEmpty:
            return .refused(refusal, items: items)
        case 408, 409, 429:
            return .retry("\(status) \(problem?.title ?? "")", retryAfter: nil, conflict: status == 409)
        case 500...:
            return .retry("\(status) \(problem?.title ?? "")", retryAfter: nil, conflict: false, everyLane: true)
        default:
            return .refused(refusal, items: items)
        }
    }

    /// The batch index a field names: `reports[3].durationSeconds` → 3.
    static func itemIndex(_ field: String) -> Int? {
        guard let open = field.firstIndex(of: "["), let close = field[open...].firstIndex(of: "]") else { return nil }
        return Int(field[field.index(after: open)..<close])
    }

    private static func refused(_ status: Int, _ response: Components.Responses.Problem) -> Verdict {
        verdict(status: status, problem: try? response.body.application_problem_plus_json)
    }

    private static func undocumented(_ status: Int) -> Verdict { verdict(status: status, problem: nil) }

    static func verdict(_ output: Operations.reportUsage.Output) -> Verdict {
        switch output {
        case .ok: .sent
        case .badRequest(let r): refused(400, r)
        case .unauthorized(let r): refused(401, r)
        case .forbidden(let r): refused(403, r)
        case .notFound(let r): refused(404, r)
        case .conflict(let r): refused(409, r)
        case .contentTooLarge(let r): refused(413, r)
        case .unprocessableContent(let r): refused(422, r)
        case .undocumented(let status, _): undocumented(status)
        }
    }

    static func verdict(_ output: Operations.recordReads.Output) -> Verdict {
        switch output {
        case .ok: .sent
        case .badRequest(let r): refused(400, r)
        case .unauthorized(let r): refused(401, r)
        case .conflict(let r): refused(409, r)
        case .contentTooLarge(let r): refused(413, r)
        case .unprocessableContent(let r): refused(422, r)
        case .undocumented(let status, _): undocumented(status)
        }
    }

    static func verdict(_ output: Operations.recordReadingTime.Output) -> Verdict {
        switch output {
        case .ok: .sent
        case .badRequest(let r): refused(400, r)
        case .unauthorized(let r): refused(401, r)
        case .conflict(let r): refused(409, r)
        case .contentTooLarge(let r): refused(413, r)
        case .unprocessableContent(let r): refused(422, r)
        case .undocumented(let status, _): undocumented(status)
        }
    }

    static func verdict(_ output: Operations.saveArticle.Output) -> Verdict {
        switch output {
        case .ok: .sent
        case .badRequest(let r): refused(400, r)
        case .unauthorized(let r): refused(401, r)
        case .conflict(let r): refused(409, r)
        case .contentTooLarge(let r): refused(413, r)
        case .unprocessableContent(let r): refused(422, r)
        case .undocumented(let status, _): undocumented(status)
        }
    }

    static func verdict(_ output: Operations.askForTime.Output) -> Verdict {
        switch output {
        case .created: .sent
        case .badRequest(let r): refused(400, r)
        case .unauthorized(let r): refused(401, r)
        case .forbidden(let r): refused(403, r)
        case .notFound(let r): refused(404, r)
        case .conflict(let r): refused(409, r)
        case .unprocessableContent(let r): refused(422, r)
        case .tooManyRequests(let r): refused(429, r)
        case .undocumented(let status, _): undocumented(status)
        }
    }
}
