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
    public func makeUUID() -> UUID { UUID() }
}

extension IDGenerator {
    public func make<Tag>(_: Tag.Type = Tag.self) -> Identifier<Tag> { Identifier(makeUUID()) }
}
