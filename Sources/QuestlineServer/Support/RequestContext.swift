import NIOCore
import HTTPTypes
import Hummingbird
import QuestlineCore
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

    public static let anonymous = Identity(member: nil, tokenHash: nil, failure: nil)

    /// The signed-in member, or a 401 that says why there is none.
    public func requireMember() throws(DomainError) -> MemberRecord {
        if let member { return member }
        switch failure {
        case .expired: throw .unauthenticated("Your session has expired. Please sign in again.")
        case .invalidToken: throw .unauthenticated("This session is not valid (signed out or unknown). Please sign in again.")
        case nil: throw .unauthenticated("Sign in to do this.")
        }
    }

    /// The identity of the request being handled: set by `AuthMiddleware` for the duration of
    /// the request, so handlers generated from the OpenAPI contract (which get no context) see it.
    @TaskLocal public static var current: Identity = .anonymous
}

extension AppRequestContext {
    /// The signed-in member of a web page, or a redirect to the login page that comes back to `next`.
    func requireWebMember(next: String) throws -> MemberRecord {
        guard let member = identity.member else { throw Redirect(to: "/login?next=\(next)") }
        return member
    }
}

/// The per-request context of every route.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: Identity = .anonymous
    public var requestID: String = ""
    /// The client's address (the connection's peer; no proxy headers are trusted).
    public let remoteAddress: SocketAddress?
    /// Large enough for a photo upload; `BodyLimitMiddleware` sets the real limit per route.
    public var maxUploadSize: Int { 6 << 20 }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
