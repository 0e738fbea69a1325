import HTTPTypes
import Hummingbird
import NIOCore
import QuestlineCore
import QuestlineFeatures

/// Per-address and per-member request limits: login attempts per client address, and writes
/// (POST, PUT, PATCH, DELETE) per member and per address. Over the limit: 429 with
/// `Retry-After`. Runs after authentication, so a member's writes are counted as theirs on
/// every device. The client's address is the peer's, or what a trusted proxy forwarded.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let limiter: RateLimiter
    let limits: RateLimits
    let clients: ClientAddressRule

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard [.post, .put, .patch, .delete].contains(request.method) else { return try await next(request, context) }
        let address = clients.client(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor])
        if RoutePolicy.of(request, context).limitsLogins,
            let wait = try await limiter.take("login|" + address, limit: limits.loginsPerAddress)
        {
            throw DomainError.tooManyRequests(
                retryAfter: wait,
                "Too many sign-in attempts from this address. Try again in \(AccountsFeature.wait(wait)).")
        }
        if let member = context.identity.member,
            let wait = try await limiter.take("write|" + member.id.rawValue, limit: limits.writesPerMember)
        {
            throw DomainError.tooManyRequests(
                retryAfter: wait, "Too many changes in a short time. Try again in \(AccountsFeature.wait(wait)).")
        }
        if let wait = try await limiter.take("write-address|" + address, limit: limits.writesPerAddress) {
            throw DomainError.tooManyRequests(
                retryAfter: wait, "Too many requests from this address. Try again in \(AccountsFeature.wait(wait)).")
        }
        return try await next(request, context)
    }
}
