public import Foundation
import NIOCore
import NIOPosix
public import QuestlineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Turns a host name into addresses: the system's resolver (`getaddrinfo`, which also reads every
/// spelling of a number: `127.1`, `2130706433`, `0x7f000001`) on NIO's thread pool. A seam so a
/// test can play a name whose answer changes between registration and delivery.
public protocol HostResolving: Sendable {
    /// The addresses of `host`; empty when the name does not resolve.
    func addresses(of host: String) async throws -> [InternetAddress]
}

public struct SystemResolver: HostResolving {
    public init() {}

    public func addresses(of host: String) async throws -> [InternetAddress] {
        try await NIOThreadPool.singleton.runIfActive { Self.lookUp(host) }
    }

    static func lookUp(_ host: String) -> [InternetAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [InternetAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        let raw = v4.pointee.sin_addr.s_addr  // network order in memory
                        found.append(InternetAddress(bytes: withUnsafeBytes(of: raw) { Array($0) })!)
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        found.append(InternetAddress(bytes: withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) })!)
                    }
                default: break
                }
            }
            cursor = info.pointee.ai_next
        }
        var seen = Set<InternetAddress>()
        return found.filter { seen.insert($0).inserted }
    }
}

/// Where a webhook may be sent: the one rule, asked when an endpoint is registered and again
/// before every delivery (after resolving the name, so a name that later resolves inward is
/// refused). `https` only, to an address on the public internet (`InternetAddress.isPublic`), in
/// every spelling of it; `allowPrivate` (`--webhook-allow-private`, for development and the test
/// suite) also allows plain `http` and inward addresses.
public struct WebhookDestination: Sendable {
    public let allowPrivate: Bool
    let resolver: any HostResolving

    public init(allowPrivate: Bool, resolver: any HostResolving = SystemResolver()) {
        self.allowPrivate = allowPrivate
        self.resolver = resolver
    }

    /// A URL an administrator registers, or a 400 naming `url`. A name that does not resolve now
    /// is accepted (DNS may be down); every delivery checks again.
    public func checkRegistration(_ raw: String) async throws -> String {
        let text = raw.trimmed()
        guard text.count <= 2_000, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty
        else { throw DomainError.invalid(field: "url", Message("webhooks.error.urlShape", ["count": .number(2_000)])) }
        guard scheme == "https" || (scheme == "http" && allowPrivate) else {
            throw DomainError.invalid(field: "url", Message("webhooks.error.httpsOnly"))
        }
        guard url.user == nil, url.password == nil else {
            throw DomainError.invalid(field: "url", Message("webhooks.error.credentials"))
        }
        if !allowPrivate, let inward = try await inwardAddress(of: host) {
            // One sentence per kind of range (`webhooks.error.inward.private`, …).
            throw DomainError.invalid(
                field: "url", Message("webhooks.error.inward.\(inward.rawValue)", ["host": .text(host)]))
        }
        return text
    }

    /// Where to connect for a delivery: the address to use for the URL's host (checked now), or
    /// why not.
    public enum Target: Sendable, Equatable {
        /// Connect to `address` for `host` (the name stays the TLS server name and `Host`).
        case connect(host: String, address: InternetAddress?)
        case refused(WebhookFailure)
    }

    public func target(for url: URL) async -> Target {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            scheme == "https" || (scheme == "http" && allowPrivate)
        else { return .refused(.blocked) }
        guard let addresses = try? await resolver.addresses(of: Self.unbracketed(host)), let first = addresses.first
        else { return .refused(.dns) }
        if !allowPrivate, addresses.contains(where: { !$0.isPublic }) { return .refused(.blocked) }
        return .connect(host: host, address: first)
    }

    /// The first inward address `host` resolves to, if any.
    func inwardAddress(of host: String) async throws -> InternetAddress.Inward? {
        try await resolver.addresses(of: Self.unbracketed(host)).lazy.compactMap(\.inward).first
    }

    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}

/// What a failed delivery records: a class of failure, never the raw error text or the
/// receiver's body (which would let the delivery log scan internal ports).
public enum WebhookFailure: String, Sendable, Equatable {
    /// The host does not resolve.
    case dns
    /// The destination is not allowed (an inward address, or a scheme not allowed).
    case blocked
    case timeout
    /// The connection was refused or reset.
    case refused
    case tls
    /// A redirect, which is not followed.
    case redirect = "http 3xx"
    case clientError = "http 4xx"
    case serverError = "http 5xx"
    /// Anything else on the way.
    case connection
    /// The endpoint's signing secret was sealed by a key this server does not hold.
    case secret

    public static func status(_ code: Int) -> WebhookFailure? {
        switch code {
        case 200..<300: return nil
        case 300..<400: return .redirect
        case 400..<500: return .clientError
        default: return .serverError
        }
    }
}
