import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IP address range in CIDR notation (`10.0.0.0/8`, `::1/128`; a bare address is one host):
/// the proxies whose `X-Forwarded-For` is believed.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let network: [UInt8]
    let prefix: Int
    public let description: String

    /// Parses `text`; nil when it is not an IPv4 or IPv6 address with an optional prefix length.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.bytes(String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
            self.prefix = prefix
        } else {
            prefix = bits
        }
        network = bytes
        description = text
    }

    /// The address's bytes (4 for IPv4, 16 for IPv6), or nil when `text` is not an address.
    public static func bytes(_ text: String) -> [UInt8]? {
        if text.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        var left = prefix
        for (a, n) in zip(address, network) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a & mask != n & mask { return false }
            left -= 8
        }
        return true
    }
}

/// Who the client is: the connection's peer, or, when the peer is a trusted proxy, the address
/// that proxy saw (the right-most `X-Forwarded-For` entry that is not itself a trusted proxy).
/// Entries a client wrote itself sit to the left of what trusted proxies appended, so they are
/// never believed.
public struct ClientAddressRule: Sendable {
    public let trusted: [AddressRange]

    public init(trusted: [AddressRange]) { self.trusted = trusted }

    func isTrusted(_ address: String) -> Bool {
        guard let bytes = AddressRange.bytes(address) else { return false }
        return trusted.contains { $0.contains(bytes) }
    }

    public func client(peer: String?, forwardedFor: [String]) -> String {
        guard let peer else { return "unknown" }
        guard !trusted.isEmpty, isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard AddressRange.bytes(hop) != nil else { break }  // not an address: stop believing
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }
}
