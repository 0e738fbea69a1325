import AsyncHTTPClient
import Crypto
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
public import QuestlineCore
public import QuestlineStore
public import ServiceLifecycle

/// Webhooks: administrators register endpoints; every event of the outbox they subscribe to is
/// POSTed to them, signed, and retried with exponential backoff for 24 hours.
public struct WebhooksFeature: Sendable {
    private let store: Store
    let clock: any WallClock
    let ids: any IDGenerator
    /// Where an endpoint may point (`https`, the public internet).
    let destination: WebhookDestination
    /// Seals signing secrets at rest.
    let secrets: SecretBox
    static let secretPurpose = "webhook-secret"

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        destination = configuration.webhookDestination
        secrets = configuration.secrets
    }

    /// Seals every stored signing secret under the current key: plain ones (stored before
    /// secrets were sealed) and those sealed by an older key. Returns how many were sealed now,
    /// and how many no configured key opens (their endpoints cannot sign until re-created).
    @discardableResult
    public func resealSecrets(includingOlderKeys: Bool = true) async throws -> (resealed: Int, unreadable: Int) {
        var resealed = 0
        var unreadable = 0
        for (id, stored) in try await store.outbox.endpointSecrets() {
            if secrets.isSealedByCurrentKey(stored) { continue }
            let plain: String
            if SecretBox.isSealed(stored) {
                guard includingOlderKeys else { continue }
                guard let opened = secrets.open(stored, purpose: Self.secretPurpose) else {
                    unreadable += 1
                    continue
                }
                plain = opened
            } else {
                plain = stored
            }
            try await store.outbox.setEndpointSecret(
                id, secret: try secrets.seal(plain, purpose: Self.secretPurpose), scope: .system)
            resealed += 1
        }
        return (resealed, unreadable)
    }

    private func requireAdmin(_ actor: MemberRecord) throws {
        try AccessPolicy.check(actor.actor, .administer)
    }

    /// Registers an endpoint; returns it with its signing secret, which is shown only now.
    public func create(url: String, events: [String], description: String?, as actor: MemberRecord, scope: WriteScope)
        async throws -> (
            WebhookEndpoint, secret: String
        )
    {
        try requireAdmin(actor)
        var v = FieldValidation()
        var address: String?
        do { address = try await destination.checkRegistration(url) } catch let error as DomainError {
            if case .invalid(let issues) = error { for issue in issues { v.add(field: issue.field, issue.message) } }
        }
        let types = v.check { () throws(DomainError) -> [OutboxEventType] in
            guard !events.isEmpty, events.count <= OutboxEventType.allCases.count else {
                throw .invalid(
                    field: "events",
                    Message("webhooks.error.eventCount", ["count": .number(OutboxEventType.allCases.count)]))
            }
            var types: [OutboxEventType] = []
            for (index, name) in events.enumerated() {
                guard let type = OutboxEventType(rawValue: name) else {
                    throw .invalid(
                        field: "events[\(index)]",
                        Message(
                            "webhooks.error.eventType",
                            ["types": .list(OutboxEventType.allCases.map { .text($0.rawValue) })]))
                }
                if !types.contains(type) { types.append(type) }
            }
            return types
        }
        let text = v.check { () throws(DomainError) -> String in
            let text = (description ?? "").trimmed()
            guard text.count <= 200 else {
                throw .invalid(field: "description", Message("input.error.tooLong", ["count": .number(200)]))
            }
            return text
        }
        let (url, events, about) = try v.finish(address, types, text)
        guard try await store.outbox.endpoints().count < 50 else {
            throw DomainError.conflict(
                field: nil, message: Message("webhooks.error.tooManyEndpoints", ["count": .number(50)]))
        }
        let endpoint = WebhookEndpoint(
            id: ids.makeUUID().uuidString.lowercased(), url: url, events: events, description: about,
            createdAt: clock.now())
        let secret = "whsec_" + Secret.makeToken()
        // Stored sealed: a copy of the database does not sign deliveries.
        try await store.outbox.createEndpoint(
            endpoint, secret: try secrets.seal(secret, purpose: Self.secretPurpose), scope: scope)
        return (endpoint, secret)
    }

    public func endpoints(as actor: MemberRecord) async throws -> [WebhookEndpoint] {
        try requireAdmin(actor)
        return try await store.outbox.endpoints()
    }

    public func delete(_ id: String, as actor: MemberRecord, scope: WriteScope) async throws {
        try requireAdmin(actor)
        guard try await store.outbox.deleteEndpoint(id, scope: scope) else {
            throw DomainError.notFound(Message("webhooks.error.noSuchEndpoint"))
        }
    }

    public func deliveries(_ endpoint: String, as actor: MemberRecord, limit: Int, offset: Int) async throws
        -> [WebhookDelivery]
    {
        try requireAdmin(actor)
        guard try await store.outbox.endpoints().contains(where: { $0.id == endpoint }) else {
            throw DomainError.notFound(Message("webhooks.error.noSuchEndpoint"))
        }
        return try await store.outbox.deliveries(endpoint: endpoint, limit: limit, offset: offset)
    }

    public func replay(_ delivery: String, as actor: MemberRecord, scope: WriteScope) async throws -> WebhookDelivery {
        try requireAdmin(actor)
        guard let replayed = try await store.outbox.replay(delivery, now: clock.now(), scope: scope) else {
            throw DomainError.notFound(Message("webhooks.error.noSuchDelivery"))
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
///
/// Each delivery resolves the endpoint's host itself and checks every address against
/// `WebhookDestination` before connecting, then connects to the address it checked (the name
/// stays the TLS server name and `Host`), so a name that resolves inward now, or answers
/// differently a moment later, is never reached. Redirects are not followed. The log records a
/// class of failure (`WebhookFailure`), not the raw error.
public struct WebhookSender: Service {
    let store: Store
    let clock: any WallClock
    let retryBase: TimeInterval
    let destination: WebhookDestination
    let secrets: SecretBox
    let logger: Logger
    static let lease: TimeInterval = 60
    static let giveUpAfter: TimeInterval = 24 * 3600

    public init(
        store: Store, configuration: FeatureConfiguration, logger: Logger = Logger(label: "questline.webhooks")
    ) {
        self.store = store
        clock = configuration.clock
        retryBase = configuration.webhookRetrySeconds
        destination = configuration.webhookDestination
        secrets = configuration.secrets
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
        let due = try await store.outbox.claimDue(now: clock.now(), lease: Self.lease, limit: 20, scope: .system)
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
        let (status, failure) = await post(delivery, now: clock.now())
        let delivered = failure == nil
        let retry =
            delivered ? nil : retryAt(attempts: delivery.attempts, createdAt: delivery.createdAt, now: clock.now())
        do {
            try await store.outbox.attempted(
                delivery.id, status: status, error: failure?.rawValue, delivered: delivered, retryAt: retry,
                now: clock.now(), scope: .system)
        } catch {
            logger.warning(
                "Webhook outcome not recorded; the lease expires and it is sent again",
                metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
        }
    }

    /// Posts one delivery to the address its host resolves to now, if that is allowed: the
    /// receiver's status, and the class of failure (nil when delivered).
    private func post(_ delivery: DueDelivery, now: Date) async -> (status: Int?, failure: WebhookFailure?) {
        guard let url = URL(string: delivery.url) else { return (nil, .blocked) }
        // A secret stored before sealing is used as it is until the start-up pass seals it.
        let secret =
            SecretBox.isSealed(delivery.secret)
            ? secrets.open(delivery.secret, purpose: WebhooksFeature.secretPurpose) : delivery.secret
        guard let secret else { return (nil, .secret) }
        let host: String
        let address: InternetAddress?
        switch await destination.target(for: url) {
        case .refused(let why): return (nil, why)
        case .connect(let name, let checked): (host, address) = (name, checked)
        }
        var request = HTTPClientRequest(url: delivery.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Questline-Webhooks/1.0")
        request.headers.add(
            name: "Questline-Signature",
            value: WebhooksFeature.signature(
                secret: secret, timestamp: Int(now.timeIntervalSince1970), body: delivery.body))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: Self.configuration(host: host, address: address))
        defer { Task { try? await client.shutdown() } }
        do {
            let response = try await client.execute(request, timeout: .seconds(10), logger: logger)
            _ = try? await response.body.collect(upTo: 64 << 10)
            return (Int(response.status.code), WebhookFailure.status(Int(response.status.code)))
        } catch {
            return (nil, Self.classify(error))
        }
    }

    /// A client for one delivery: no redirects, bounded waits, and the host pinned to the address
    /// that was checked (a name is not resolved again by the client).
    static func configuration(host: String, address: InternetAddress?) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(10)))
        let bare = WebhookDestination.unbracketed(host)
        if let address, (try? SocketAddress(ipAddress: bare, port: 0)) == nil {
            configuration.dnsOverride = [host: address.description]
        }
        return configuration
    }

    /// The class of a failed request (never its text: it can name internal hosts and ports).
    static func classify(_ error: any Error) -> WebhookFailure {
        if let client = error as? HTTPClientError {
            if [.connectTimeout, .readTimeout, .deadlineExceeded].contains(client) { return .timeout }
            if client == .remoteConnectionClosed { return .refused }
        }
        if let io = error as? IOError, [ECONNREFUSED, ECONNRESET].contains(io.errnoCode) { return .refused }
        if let connection = error as? NIOConnectionError {
            let errors = connection.connectionErrors.map(\.error)
            if errors.contains(where: { ($0 as? IOError).map { $0.errnoCode == ECONNREFUSED } ?? false }) {
                return .refused
            }
            if connection.dnsAAAAError != nil || connection.dnsAError != nil { return .dns }
            return .connection
        }
        let name = String(reflecting: type(of: error))
        if name.contains("SSL") || name.contains("TLS") { return .tls }
        return .connection
    }
}
