import Foundation

/// A validated IANA time zone identifier such as `Europe/Berlin` or `Asia/Kolkata`.
///
/// Only names from the IANA database are accepted (plus `UTC`); offsets like `GMT+5` or
/// abbreviations like `EST` are refused, because they do not follow a member's DST rules.
public struct TimeZoneID: Hashable, Sendable, CustomStringConvertible {
    public let identifier: String
    public let timeZone: TimeZone

    public init?(_ identifier: String) {
        guard identifier.count <= 64, TimeZoneID.known.contains(identifier),
              let zone = TimeZone(identifier: identifier)
        else { return nil }
        self.identifier = identifier
        self.timeZone = zone
    }

    public static let utc = TimeZoneID("UTC")!

    public var description: String { identifier }

    private static let known: Set<String> = {
        var names = Set(TimeZone.knownTimeZoneIdentifiers)
        names.insert("UTC")
        return names
    }()
}
