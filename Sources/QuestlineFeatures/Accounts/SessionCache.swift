import Foundation
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineStore

/// Sessions looked up in the last few seconds, so a device polling its widget does not cost a
/// database round trip per request for authentication.
///
/// Correctness: every change to a member that access depends on (profile, role, household
/// membership, deletion) and every logout drops the member's entries at once, on this instance
/// and, through the live-event channel every instance listens to, on the others
/// (`LiveEventLog.announce`); an instance that loses that channel drops everything. `lifetime`
/// bounds what a lost notification could leave (5 s by default); 0 turns the cache off.
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

    /// Drops what a change makes stale.
    func apply(_ change: LiveEventLog.SessionChange) {
        switch change {
        case .member(let id): forget(members: [id])
        case .session(let hash): forget(tokenHash: hash)
        case .everything: forgetAll()
        }
    }

    func forgetAll() {
        entries.withLockedValue { $0.removeAll(keepingCapacity: true) }
    }

    /// Drops every cached session of these members (their record changed).
    func forget(members: Set<MemberID>) {
        guard lifetime > 0, !members.isEmpty else { return }
        entries.withLockedValue { table in table = table.filter { !members.contains($0.value.member.id) } }
    }
}
