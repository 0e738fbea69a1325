/// An IPv4 or IPv6 address as bytes, and the one rule for whether an outbound request may go
/// to it: only to the public internet. Loopback, private, shared (carrier-grade NAT), link-local,
/// unique-local, multicast, unspecified, broadcast, reserved and documentation ranges are
/// inward; an IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`,
/// IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by the IPv4
/// address it carries. Callers resolve a name (every spelling of a number included) with the
/// system's resolver and ask here about each address it gives.
public struct InternetAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Why an address is not on the public internet, or nil when it is.
    public enum Inward: String, Sendable {
        case loopback
        case privateNetwork = "private"
        case sharedNetwork = "shared"
        case linkLocal = "link-local"
        case uniqueLocal = "unique-local"
        case multicast, unspecified, broadcast, reserved, documentation
    }

    /// Nil for a public address; else the kind of inward range it is in.
    public var inward: Inward? {
        bytes.count == 4 ? Self.inward(v4: bytes) : Self.inward(v6: bytes)
    }

    public var isPublic: Bool { inward == nil }

    static func inward(v4 b: [UInt8]) -> Inward? {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return .unspecified  // "this network", 0.0.0.0 included
        case (10, _, _): return .privateNetwork
        case (100, 64...127, _): return .sharedNetwork
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (172, 16...31, _): return .privateNetwork
        case (192, 0, 0): return .reserved  // IETF protocol assignments
        case (192, 0, 2), (198, 51, 100), (203, 0, 113): return .documentation
        case (192, 88, 99): return .reserved  // the retired 6to4 relay anycast
        case (192, 168, _): return .privateNetwork
        case (198, 18...19, _): return .reserved  // benchmarking
        case (224...239, _, _): return .multicast
        case (255, 255, 255) where b[3] == 255: return .broadcast
        case (240...255, _, _): return .reserved
        default: return nil
        }
    }

    static func inward(v6 b: [UInt8]) -> Inward? {
        let zeros10 = b[0..<10].allSatisfy { $0 == 0 }
        if zeros10, b[10] == 0xFF, b[11] == 0xFF { return inward(v4: Array(b[12..<16])) }  // IPv4-mapped
        if zeros10, b[10] == 0, b[11] == 0 {
            if b[12..<15].allSatisfy({ $0 == 0 }) {
                if b[15] == 0 { return .unspecified }
                if b[15] == 1 { return .loopback }
            }
            return inward(v4: Array(b[12..<16]))  // IPv4-compatible (deprecated)
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 }) {
            return inward(v4: Array(b[12..<16]))  // NAT64 well-known prefix
        }
        if b[0] == 0x20, b[1] == 0x02 { return inward(v4: Array(b[2..<6])) }  // 6to4
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return .privateNetwork }  // fec0::/10, site-local (deprecated)
        if b[0] & 0xFE == 0xFC { return .uniqueLocal }  // fc00::/7
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return .documentation }  // 2001:db8::/32
        if b[0] == 0x01, b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // 100::/64, discard-only
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x00, b[3] < 0x02 { return .reserved }  // 2001::/23, IETF (Teredo…)
        return nil
    }

    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
