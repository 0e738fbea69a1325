public import Foundation

/// A typed identifier: `Identifier<MemberTag>` and `Identifier<HouseholdTag>` never mix.
/// The raw value is a lowercase UUID string, which is also the wire and storage form.
public struct Identifier<Tag>: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(_ uuid: UUID) { rawValue = uuid.uuidString.lowercased() }

    /// Accepts a UUID in any case; returns nil for anything else.
    public init?(_ text: some StringProtocol) {
        guard let uuid = UUID(uuidString: String(text)) else { return nil }
        self.init(uuid)
    }

    /// Parses an id from a request (a path parameter such as `childId`), or refuses it naming
    /// the parameter: the one path-id parser.
    public static func parse(_ text: some StringProtocol, field: String) throws(DomainError) -> Identifier {
        guard let id = Identifier(text) else { throw .invalid(field: field, Message("input.error.id")) }
        return id
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = Identifier(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected a UUID, got \"\(text)\"")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

public enum MemberTag {}
public enum HouseholdTag {}

public typealias MemberID = Identifier<MemberTag>
public typealias HouseholdID = Identifier<HouseholdTag>

/// Makes new identifiers; injected so tests can make them predictable.
public protocol IDGenerator: Sendable {
    func makeUUID() -> UUID
}

/// Time-ordered ids (UUID version 7) on the injected clock. Rows keyed by them (ledger entries,
/// grants, analytics events, ...) are inserted at the end of their primary-key index instead of
/// on a random page of it, which is what keeps writes fast once those indexes outgrow memory.
/// An id shows when it was made, to the millisecond (docs/decisions.md).
public struct TimeOrderedIDGenerator: IDGenerator {
    let clock: any WallClock
    public init(clock: any WallClock) { self.clock = clock }
    public func makeUUID() -> UUID { .timeOrdered(at: clock.now()) }
}

extension UUID {
    /// A random (version 4) UUID from the standard library's system generator (`getrandom` on
    /// Linux). Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for each
    /// one: three system calls and a path lookup on every request, which all get a request id.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 9562 variant
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }

    /// A version 7 UUID (RFC 9562): the instant's Unix time in milliseconds in the first 48 bits
    /// (0 before 1970), then 74 random bits. Ids made in later milliseconds sort after earlier
    /// ones, as bytes and as lowercase text; ids of one millisecond are in random order.
    public static func timeOrdered(at instant: Date) -> UUID {
        let milliseconds = UInt64(max(0, (instant.timeIntervalSince1970 * 1000).rounded(.down)))
        var uuid = random().uuid
        withUnsafeMutableBytes(of: &uuid) { raw in
            for index in 0..<6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
            raw[6] = (raw[6] & 0x0F) | 0x70  // version 7; random() has set the variant
        }
        return UUID(uuid: uuid)
    }
}

extension IDGenerator {
    public func make<Tag>(_: Tag.Type = Tag.self) -> Identifier<Tag> { Identifier(makeUUID()) }
}
