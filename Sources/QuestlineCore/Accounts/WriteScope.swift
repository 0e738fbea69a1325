/// Who a write acts for and which requests it answers, passed by its caller into every store
/// write (the store's transaction takes one and reads it from nowhere else).
///
/// - The members it acts for must still exist when the transaction commits: each is read, and
///   on PostgreSQL held (`FOR KEY SHARE`), just before COMMIT, so that a deletion waits for the
///   write or the write fails. A session used on another instance at the moment of a deletion
///   can therefore never leave rows naming a deleted member.
/// - The idempotency claims of the requests it serves are marked `applied` in the same
///   transaction (see `IdempotencyClaim`), so a retry finds the write and its key together, or
///   neither.
///
/// A request's own writes run in its scope (the server builds it from the signed-in member and
/// the request's claim); the server's own bookkeeping (idempotency records, rate limits, purges),
/// the CLI and background services write as `.system`, which checks and marks nothing.
public struct WriteScope: Sendable, Equatable {
    public let members: [MemberID]
    public let claims: [IdempotencyClaim]

    public init(member: MemberID?, claim: IdempotencyClaim?) {
        members = member.map { [$0] } ?? []
        claims = claim.map { [$0] } ?? []
    }

    private init(members: [MemberID], claims: [IdempotencyClaim]) {
        self.members = members
        self.claims = claims
    }

    /// A write no request asks for: the server's own bookkeeping, an operator's command, a
    /// background service.
    public static let system = WriteScope(members: [], claims: [])

    /// A write acting for `member` outside any request (an operator's import for a member).
    public static func member(_ member: MemberID) -> WriteScope { WriteScope(member: member, claim: nil) }

    /// The same claims, acting for no one: the deletion of the acting member itself, whose
    /// check would find them gone.
    public var withoutMembers: WriteScope { WriteScope(members: [], claims: claims) }

    /// One transaction serving several requests: all their members and claims.
    public static func joined(_ scopes: [WriteScope]) -> WriteScope {
        WriteScope(members: scopes.flatMap(\.members), claims: scopes.flatMap(\.claims))
    }
}

/// The idempotency key a request runs under (its claim on the key, taken before the write
/// runs), carried in the request's `WriteScope`: every write transaction the request commits
/// marks the key `applied` in that same transaction, so that a crash between a write's commit
/// and its stored response never lets a retry run the write again. The mark is a
/// compare-and-swap on the claim's token: a request whose claim was taken over (it ran past the
/// claim's lifetime) cannot commit.
public struct IdempotencyClaim: Sendable, Equatable {
    public let scope: String
    public let key: String
    /// Unique to this claim of the key.
    public let token: String

    public init(scope: String, key: String, token: String) {
        self.scope = scope
        self.key = key
        self.token = token
    }
}
