import HTTPTypes
import Hummingbird
import NIOCore
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

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
        // Every bucket this request takes, in the order their refusals are reported; one
        // statement takes them all when the limits are shared.
        var buckets: [(key: String, limit: Int)] = []
        var refusals: [String] = []
        if RoutePolicy.of(request, context).limitsLogins {
            buckets.append(("login|" + address, limits.loginsPerAddress))
            refusals.append("problem.detail.tooManyLogins")
        }
        if let member = context.identity.member {
            buckets.append(("write|" + member.id.rawValue, limits.writesPerMember))
            refusals.append("problem.detail.tooManyWrites")
        }
        buckets.append(("write-address|" + address, limits.writesPerAddress))
        refusals.append("problem.detail.tooManyRequests")
        if let refused = try await limiter.take(buckets) {
            throw DomainError.tooManyRequests(
                retryAfter: refused.wait,
                Message(refusals[refused.index], ["wait": .message(AccountsFeature.wait(refused.wait))]))
        }
        return try await next(request, context)
    }
}
