import Foundation
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineStore

/// Sessions looked up in the last few seconds, so a device polling its widget does not cost a
/// database round trip per request for authentication.
///
/// Correctness: within this server every change to a member that access depends on (profile,
/// household membership) and every logout drops the member's entries at once. Another server
/// instance (PostgreSQL deployments) sees such a change within `lifetime` seconds: a revoked
/// token keeps working there for at most that long. `lifetime` 0 turns the cache off.
final class SessionCache: Sendable {
    private struct Entry {
        let session: SessionRecord
        let member: MemberRecord
        let fetchedAt: Date
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    let lifetime: TimeInterval
    static let maxEntries = 50_000

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    func lookup(_ tokenHash: String, now: Date) -> (SessionRecord, MemberRecord)? {
        guard lifetime > 0 else { return nil }
        return entries.withLockedValue { table in
            guard let entry = table[tokenHash] else { return nil }
            guard now.timeIntervalSince(entry.fetchedAt) < lifetime, now >= entry.fetchedAt else {
                table[tokenHash] = nil
                return nil
            }
            return (entry.session, entry.member)
        }
    }

    func remember(_ tokenHash: String, session: SessionRecord, member: MemberRecord, now: Date) {
        guard lifetime > 0 else { return }
        entries.withLockedValue { table in
            if table.count >= Self.maxEntries {
                table = table.filter { now.timeIntervalSince($0.value.fetchedAt) < lifetime }
            }
            if table.count >= Self.maxEntries { table.removeAll(keepingCapacity: true) }
            table[tokenHash] = Entry(session: session, member: member, fetchedAt: now)
        }
    }

    func forget(tokenHash: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: tokenHash) }
    }

    /// Drops every cached session of these members (their record changed).
    func forget(members: Set<MemberID>) {
        guard lifetime > 0, !members.isEmpty else { return }
        entries.withLockedValue { table in table = table.filter { !members.contains($0.value.member.id) } }
    }
}
