public import AsyncHTTPClient
import Crypto
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import QuestlineCore
public import QuestlineStore
public import ServiceLifecycle

/// Webhooks: administrators register endpoints; every event of the outbox they subscribe to is
/// POSTed to them, signed, and retried with exponential backoff for 24 hours.
public struct WebhooksFeature: Sendable {
    private let store: Store
    let clock: any WallClock
    let ids: any IDGenerator

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
    }

    private func requireAdmin(_ actor: MemberRecord) throws {
        try AccessPolicy.check(actor.actor, .administer)
    }

    /// Registers an endpoint; returns it with its signing secret, which is shown only now.
    public func create(url: String, events: [String], description: String?, as actor: MemberRecord) async throws -> (
        WebhookEndpoint, secret: String
    ) {
        try requireAdmin(actor)
        var v = FieldValidation()
        let address = v.check { () throws(DomainError) -> String in
            let trimmed = url.trimmed()
            guard trimmed.count <= 2_000, let parsed = URL(string: trimmed),
                ["http", "https"].contains(parsed.scheme ?? ""),
                parsed.host?.isEmpty == false
            else { throw .invalid(field: "url", "Use an http or https URL of at most 2000 characters.") }
            return trimmed
        }
        let types = v.check { () throws(DomainError) -> [OutboxEventType] in
            guard !events.isEmpty, events.count <= OutboxEventType.allCases.count else {
                throw .invalid(field: "events", "Name 1 to \(OutboxEventType.allCases.count) event types.")
            }
            var types: [OutboxEventType] = []
            for (index, name) in events.enumerated() {
                guard let type = OutboxEventType(rawValue: name) else {
                    throw .invalid(
                        field: "events[\(index)]",
                        "Use one of \(OutboxEventType.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                if !types.contains(type) { types.append(type) }
            }
            return types
        }
        let text = v.check { () throws(DomainError) -> String in
            let text = (description ?? "").trimmed()
            guard text.count <= 200 else { throw .invalid(field: "description", "Use at most 200 characters.") }
            return text
        }
        try v.finish()
        guard try await store.outbox.endpoints().count < 50 else {
            throw DomainError.conflict(field: nil, message: "At most 50 endpoints; remove one first.")
        }
        let endpoint = WebhookEndpoint(
            id: ids.makeUUID().uuidString.lowercased(), url: address!, events: types!, description: text!,
            createdAt: clock.now())
        let secret = "whsec_" + Secret.makeToken()
        try await store.outbox.createEndpoint(endpoint, secret: secret)
        return (endpoint, secret)
    }

    public func endpoints(as actor: MemberRecord) async throws -> [WebhookEndpoint] {
        try requireAdmin(actor)
        return try await store.outbox.endpoints()
    }

    public func delete(_ id: String, as actor: MemberRecord) async throws {
        try requireAdmin(actor)
        guard try await store.outbox.deleteEndpoint(id) else { throw DomainError.notFound("No such webhook endpoint.") }
    }

    public func deliveries(_ endpoint: String, as actor: MemberRecord, limit: Int, offset: Int) async throws
        -> [WebhookDelivery]
    {
        try requireAdmin(actor)
        guard try await store.outbox.endpoints().contains(where: { $0.id == endpoint }) else {
            throw DomainError.notFound("No such webhook endpoint.")
        }
        return try await store.outbox.deliveries(endpoint: endpoint, limit: limit, offset: offset)
    }

    public func replay(_ delivery: String, as actor: MemberRecord) async throws -> WebhookDelivery {
        try requireAdmin(actor)
        guard let replayed = try await store.outbox.replay(delivery, now: clock.now()) else {
            throw DomainError.notFound("No such delivery.")
        }
        return replayed
    }

    /// `Questline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
    public static func signature(secret: String, timestamp: Int, body: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(timestamp),v1=\(Secret.hex(mac))"
    }
}

/// Sends due deliveries, on every instance: each pass takes up to 20 with a one-minute lease
/// (no other instance takes them meanwhile), POSTs them concurrently, and records each outcome.
/// A failure (no answer, or a status other than 2xx) is retried after `retryBase` × 2^attempts
/// (at most an hour apart), until 24 hours after the event; then the delivery is `failed`, and
/// an administrator can replay it.
public struct WebhookSender: Service {
    let store: Store
    let clock: any WallClock
    let retryBase: TimeInterval
    let httpClient: HTTPClient
    let logger: Logger
    static let lease: TimeInterval = 60
    static let giveUpAfter: TimeInterval = 24 * 3600

    public init(
        store: Store, configuration: FeatureConfiguration, httpClient: HTTPClient = .shared,
        logger: Logger = Logger(label: "questline.webhooks")
    ) {
        self.store = store
        clock = configuration.clock
        retryBase = configuration.webhookRetrySeconds
        self.httpClient = httpClient
        self.logger = logger
    }

    public func run() async throws {
        while Task.serviceGoesOn {
            var sent = 0
            do { sent = try await pass() } catch {
                logger.warning("Webhook pass failed", metadata: ["error": "\(error)"])
            }
            if sent == 0 { try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(500)) } }
        }
    }

    /// One pass: returns how many deliveries it attempted.
    @discardableResult
    public func pass() async throws -> Int {
        let due = try await store.outbox.claimDue(now: clock.now(), lease: Self.lease, limit: 20)
        await withTaskGroup(of: Void.self) { group in
            for delivery in due { group.addTask { await send(delivery) } }
        }
        return due.count
    }

    func retryAt(attempts: Int, createdAt: Date, now: Date) -> Date? {
        let delay = min(3_600, retryBase * pow(2, Double(min(attempts, 20))))
        let next = now.addingTimeInterval(delay)
        return next.timeIntervalSince(createdAt) > Self.giveUpAfter ? nil : next
    }

    private func send(_ delivery: DueDelivery) async {
        let now = clock.now()
        var request = HTTPClientRequest(url: delivery.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Questline-Webhooks/1.0")
        request.headers.add(
            name: "Questline-Signature",
            value: WebhooksFeature.signature(
                secret: delivery.secret, timestamp: Int(now.timeIntervalSince1970), body: delivery.body))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        var status: Int?
        var failure: String?
        do {
            let response = try await httpClient.execute(request, timeout: .seconds(10), logger: logger)
            status = Int(response.status.code)
            _ = try? await response.body.collect(upTo: 64 << 10)
        } catch {
            failure = "\(error)"
        }
        let delivered = status.map { (200..<300).contains($0) } ?? false
        let retry =
            delivered ? nil : retryAt(attempts: delivery.attempts, createdAt: delivery.createdAt, now: clock.now())
        do {
            try await store.outbox.attempted(
                delivery.id, status: status, error: failure ?? (delivered ? nil : "HTTP \(status ?? 0)"),
                delivered: delivered, retryAt: retry, now: clock.now())
        } catch {
            logger.warning(
                "Webhook outcome not recorded; the lease expires and it is sent again",
                metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
        }
    }
}
