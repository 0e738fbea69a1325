import QuestlineCore
import Testing

/// The one rule for where an outbound request may go (`InternetAddress.isPublic`).
@Suite struct InternetAddressTests {
    static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> InternetAddress {
        InternetAddress(bytes: [a, b, c, d])!
    }

    static func v6(_ groups: [UInt16]) -> InternetAddress {
        InternetAddress(bytes: groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })!
    }

    @Test func inwardIPv4Ranges() {
        let cases: [(InternetAddress, InternetAddress.Inward?)] = [
            (Self.v4(127, 0, 0, 1), .loopback), (Self.v4(127, 255, 1, 2), .loopback),
            (Self.v4(10, 1, 2, 3), .privateNetwork), (Self.v4(172, 16, 0, 1), .privateNetwork),
            (Self.v4(172, 31, 255, 255), .privateNetwork), (Self.v4(192, 168, 1, 1), .privateNetwork),
            (Self.v4(169, 254, 169, 254), .linkLocal), (Self.v4(100, 64, 0, 1), .sharedNetwork),
            (Self.v4(0, 0, 0, 0), .unspecified), (Self.v4(0, 1, 2, 3), .unspecified),
            (Self.v4(224, 0, 0, 1), .multicast), (Self.v4(239, 255, 255, 250), .multicast),
            (Self.v4(255, 255, 255, 255), .broadcast), (Self.v4(240, 0, 0, 1), .reserved),
            (Self.v4(198, 18, 0, 1), .reserved), (Self.v4(192, 0, 2, 1), .documentation),
            // Public: just outside each range.
            (Self.v4(93, 184, 215, 14), nil), (Self.v4(8, 8, 8, 8), nil), (Self.v4(172, 32, 0, 1), nil),
            (Self.v4(172, 15, 255, 255), nil), (Self.v4(100, 128, 0, 1), nil), (Self.v4(192, 169, 0, 1), nil),
            (Self.v4(169, 253, 0, 1), nil), (Self.v4(126, 255, 255, 255), nil), (Self.v4(11, 0, 0, 0), nil),
        ]
        for (address, inward) in cases {
            #expect(address.inward == inward, "\(address)")
            #expect(address.isPublic == (inward == nil))
        }
    }

    @Test func inwardIPv6RangesAndIPv4Inside() {
        let cases: [(InternetAddress, InternetAddress.Inward?)] = [
            (Self.v6([0, 0, 0, 0, 0, 0, 0, 1]), .loopback),  // ::1
            (Self.v6([0, 0, 0, 0, 0, 0, 0, 0]), .unspecified),  // ::
            (Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001]), .loopback),  // ::ffff:127.0.0.1
            (Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0xA9FE, 0xA9FE]), .linkLocal),  // ::ffff:169.254.169.254
            (Self.v6([0, 0, 0, 0, 0, 0, 0x0A00, 0x0001]), .privateNetwork),  // ::10.0.0.1 (IPv4-compatible)
            (Self.v6([0x64, 0xFF9B, 0, 0, 0, 0, 0xC0A8, 0x0101]), .privateNetwork),  // NAT64 of 192.168.1.1
            (Self.v6([0x2002, 0x7F00, 0x0001, 0, 0, 0, 0, 1]), .loopback),  // 6to4 of 127.0.0.1
            (Self.v6([0xFE80, 0, 0, 0, 0, 0, 0, 1]), .linkLocal), (Self.v6([0xFEBF, 0, 0, 0, 0, 0, 0, 1]), .linkLocal),
            (Self.v6([0xFC00, 0, 0, 0, 0, 0, 0, 1]), .uniqueLocal),
            (Self.v6([0xFD12, 0, 0, 0, 0, 0, 0, 1]), .uniqueLocal),
            (Self.v6([0xFF02, 0, 0, 0, 0, 0, 0, 1]), .multicast),
            (Self.v6([0x2001, 0x0DB8, 0, 0, 0, 0, 0, 1]), .documentation),
            // Public.
            (Self.v6([0x2606, 0x2800, 0x0220, 0x0001, 0x0248, 0x1893, 0x25C8, 0x1946]), nil),
            (Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0x5DB8, 0xD70E]), nil),  // ::ffff:93.184.215.14
            (Self.v6([0x2002, 0x5DB8, 0xD70E, 0, 0, 0, 0, 1]), nil),
        ]
        for (address, inward) in cases {
            #expect(address.inward == inward, "\(address)")
        }
        #expect(InternetAddress(bytes: [1, 2, 3]) == nil)
    }
}
