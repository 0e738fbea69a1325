public import Foundation

/// A validated IANA time zone identifier such as `Europe/Berlin` or `Asia/Kolkata`.
///
/// Accepted: names the platform's time zone database loads under exactly that name, shaped
/// like an IANA `Area/Location` name, plus `UTC`. Refused: offsets like `GMT+5` or `+05:30`
/// and abbreviations like `EST`, because they do not follow a member's DST rules.
/// (Foundation's `knownTimeZoneIdentifiers` is not used: on Linux it is an old list that lacks
/// current names such as `Asia/Kolkata`.)
public struct TimeZoneID: Hashable, Sendable, CustomStringConvertible {
    public let identifier: String
    public let timeZone: TimeZone

    public init?(_ identifier: String) {
        if let known = TimeZoneID.cache.lookup(identifier) {
            self = known
            return
        }
        guard identifier == "UTC" || TimeZoneID.looksLikeIANA(identifier),
            let zone = TimeZone(identifier: identifier), identifier == "UTC" || zone.identifier == identifier
        else { return nil }
        self.identifier = identifier
        self.timeZone = zone
        TimeZoneID.cache.store(self)
    }

    /// Validated zones, so a hot path (every read carries a zone) does not load one again.
    private static let cache = Cache()

    /// `@unchecked Sendable` is safe: `zones` is only touched under `lock`.
    private final class Cache: @unchecked Sendable {
        private let lock = NSLock()
        private var zones: [String: TimeZoneID] = [:]

        func lookup(_ identifier: String) -> TimeZoneID? { lock.withLock { zones[identifier] } }

        func store(_ zone: TimeZoneID) {
            lock.withLock {
                // only valid zones get here; a bound all the same
                if zones.count < 1_000 { zones[zone.identifier] = zone }
            }
        }
    }

    public static let utc = TimeZoneID("UTC")!

    public var description: String { identifier }

    /// `Area/Location` or `Area/Region/Location`: letters, digits, `_`, `-` and `+` (as in
    /// `Etc/GMT+5`), each part starting with a letter, at most 64 characters.
    private static func looksLikeIANA(_ id: String) -> Bool {
        guard id.utf8.count <= 64 else { return false }
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return false }
        return parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
                return false
            }
            return part.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-+".unicodeScalars.contains($0))
            }
        }
    }
}
