/// A page of a long list (`limit` and `offset` in a query), checked against the contract's
/// bounds: a value outside them is refused naming the parameter, never clamped in silence.
public struct Paging: Hashable, Sendable {
    public static let maxLimit = 200
    /// Far past any list a member has; bounds the arithmetic done with an offset.
    public static let maxOffset = 1_000_000

    public let limit: Int
    public let offset: Int

    public init(limit: Int?, offset: Int?, defaultLimit: Int = 50) throws(DomainError) {
        var validation = FieldValidation()
        let limit = limit ?? defaultLimit
        let offset = offset ?? 0
        if !(1...Self.maxLimit).contains(limit) {
            validation.add(field: "limit", Message("input.error.limit", ["max": .text(String(Self.maxLimit))]))
        }
        if !(0...Self.maxOffset).contains(offset) {
            validation.add(field: "offset", Message("input.error.offset", ["max": .text(String(Self.maxOffset))]))
        }
        try validation.finish()
        self.limit = limit
        self.offset = offset
    }
}
