import QuestlineCore
import SQLKit

/// What a transaction does with its `WriteScope` before COMMIT.
extension WriteScope {
    /// Checks the members and marks the claims: the transaction's last steps before `lastly`.
    func finish(flavor: SQLFlavor, on db: any SQLDatabase) async throws {
        try await checkMembers(flavor: flavor, on: db)
        for claim in claims { try await claim.markApplied(on: db) }
    }

    /// Refused when a member the transaction acts for is gone.
    private func checkMembers(flavor: SQLFlavor, on db: any SQLDatabase) async throws {
        let ids = Array(Set(members.map(\.rawValue))).sorted()
        guard !ids.isEmpty else { return }
        let lock = flavor == .postgres ? " FOR KEY SHARE" : ""
        for id in ids {
            guard
                try await db.raw("SELECT 1 AS one FROM members WHERE id = \(bind: id)\(unsafeRaw: lock)").first() != nil
            else { throw DomainError.unauthenticated(Message("accounts.error.deleted")) }
        }
    }
}

extension IdempotencyClaim {
    /// Marks the claim's key applied, in the transaction of the write it answers; refused
    /// (`IdempotencyClaimLost`) when another request took the key over.
    func markApplied(on db: any SQLDatabase) async throws {
        let marked = try await db.raw(
            """
            UPDATE idempotency_claims SET state = 'applied'
            WHERE scope = \(bind: scope) AND idem_key = \(bind: key) AND claim = \(bind: token)
                AND state IN ('pending', 'applied')
            RETURNING idem_key
            """
        ).first()
        if marked == nil { throw IdempotencyClaimLost() }
    }
}
