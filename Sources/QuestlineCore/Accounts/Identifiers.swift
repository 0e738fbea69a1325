import Foundation

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

public struct RandomIDGenerator: IDGenerator {
    public init() {}
    public func makeUUID() -> UUID { .random() }
}

extension UUID {
    /// A random (version 4) UUID from the standard library's system generator (`getrandom` on
    /// Linux). Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for each
    /// one: three system calls and a path lookup on every request, which all get a request id.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40 // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80 // RFC 9562 variant
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}

extension IDGenerator {
    public func make<Tag>(_: Tag.Type = Tag.self) -> Identifier<Tag> { Identifier(makeUUID()) }
}
