public import QuestlineCore
import QuestlineStore

/// Who is asking, as resolved from the session cookie or bearer token.
public struct Identity: Sendable {
    public enum Failure: Sendable, Equatable {
        case invalidToken
        case expired
    }

    public let member: MemberRecord?
    public let tokenHash: String?
    public let failure: Failure?

    public init(member: MemberRecord?, tokenHash: String?, failure: Failure?) {
        self.member = member
        self.tokenHash = tokenHash
        self.failure = failure
    }

    public static let anonymous = Identity(member: nil, tokenHash: nil, failure: nil)

    /// The signed-in member, or a 401 that says why there is none.
    public func requireMember() throws(DomainError) -> MemberRecord {
        if let member { return member }
        switch failure {
        case .expired: throw .unauthenticated(Message("accounts.error.sessionExpired"))
        case .invalidToken:
            throw .unauthenticated(Message("accounts.error.sessionInvalid"))
        case nil: throw .unauthenticated(Message("accounts.error.signInRequired"))
        }
    }
}
