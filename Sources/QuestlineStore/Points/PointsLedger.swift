public import Foundation
public import QuestlineCore
import QuestlineL10n
import SQLKit

public struct LedgerEntry: Sendable, Equatable {
    public let id: String
    public let kind: LedgerKind
    public let points: Int
    public let balanceAfter: Int
    public let reason: String
    public let questID: QuestID?
    public let createdAt: Date
}

/// An entry to append to a member's ledger.
public struct NewLedgerEntry: Sendable, Equatable {
    public let id: String
    public let kind: LedgerKind
    public let points: Int
    public let reason: String
    public let quest: QuestID?
    public let creator: MemberID?

    public init(
        id: String, kind: LedgerKind, points: Int, reason: String, quest: QuestID? = nil,
        by creator: MemberID? = nil
    ) {
        self.id = id
        self.kind = kind
        self.points = points
        self.reason = reason
        self.quest = quest
        self.creator = creator
    }
}

public enum PointsError: Error, Equatable {
    /// The balance would go below zero.
    case insufficientPoints(balance: Int)
}

/// A member's points: one append-only ledger for the whole product (quest earnings and
/// bonuses, redemptions, adjustments, story rewards, daily tasks, card purchases) and the
/// balance kept beside it in the same transaction. Used inside a write transaction.
public struct PointsLedger: Sendable {
    let db: any SQLDatabase
    /// Where `points.changed` goes (the write's announcer); nil inside reads.
    var events: LiveAnnouncer? = nil

    /// Takes the member's balance row lock for the rest of the transaction, so two writers of
    /// the same member run one after the other on PostgreSQL too (SQLite write transactions
    /// are serialized already).
    ///
    /// On PostgreSQL one statement: it creates the row when missing and, either way, writes it,
    /// which takes the row's lock. On SQLite none: the transaction holds the database's only
    /// write lock from its first statement (`BEGIN IMMEDIATE`), and `append` creates the row
    /// itself (a profile of usage reports counted every statement).
    public func lock(_ member: MemberID) async throws {
        if db.dialect.name == "sqlite" { return }
        try await db.raw(
            """
            INSERT INTO points_balances (member_id, balance, earned) VALUES (\(bind: member.rawValue), 0, 0)
            ON CONFLICT (member_id) DO UPDATE SET balance = points_balances.balance
            """
        ).run()
    }

    /// The balance, and the points earned in all (everything credited but adjustments).
    public func balance(_ member: MemberID) async throws -> (balance: Int, earned: Int) {
        guard
            let row = try await db.raw(
                "SELECT balance, earned FROM points_balances WHERE member_id = \(bind: member.rawValue)"
            ).first()
        else {
            return (0, 0)
        }
        return (
            Int(try row.decode(column: "balance", as: Int64.self)),
            Int(try row.decode(column: "earned", as: Int64.self))
        )
    }

    /// Appends one entry and moves the balance with it, atomically: the balance row is updated
    /// only if it stays at or above zero (a conditional UPDATE, which also serializes concurrent
    /// spends on PostgreSQL), otherwise `PointsError.insufficientPoints`.
    @discardableResult
    public func append(
        _ member: MemberID, kind: LedgerKind, points: Int, reason: String, quest: QuestID? = nil,
        by creator: MemberID? = nil, id: String, now: Date
    ) async throws -> Int {
        try await append(
            member,
            [NewLedgerEntry(id: id, kind: kind, points: points, reason: reason, quest: quest, by: creator)],
            now: now)
    }

    /// Appends entries in order, with one write of the balance row and one insert: the balance
    /// must stay at or above zero after the last of them (each entry's `balance_after` is its
    /// running total). The balance row keeps the ledger's last sequence number (`ledger_seq`),
    /// so the write that moves the balance also reserves the entries' numbers.
    @discardableResult
    public func append(_ member: MemberID, _ entries: [NewLedgerEntry], now: Date) async throws -> Int {
        if entries.isEmpty { return try await balance(member).balance }
        let total = entries.reduce(0) { $0 + $1.points }
        let earned = entries.reduce(0) { $0 + (($1.points > 0 && $1.kind != .adjust) ? $1.points : 0) }
        let count = Int64(entries.count)
        // A credit creates the row when missing (it cannot go below zero); a spend needs a row
        // whose balance covers it, and updates only such a row.
        let moved =
            total >= 0
            ? SQLQueryString(
                """
                INSERT INTO points_balances (member_id, balance, earned, ledger_seq)
                VALUES (\(bind: member.rawValue), \(bind: Int64(total)), \(bind: Int64(earned)), \(bind: count))
                ON CONFLICT (member_id) DO UPDATE SET balance = points_balances.balance + excluded.balance,
                    earned = points_balances.earned + excluded.earned,
                    ledger_seq = points_balances.ledger_seq + excluded.ledger_seq
                RETURNING balance, ledger_seq
                """)
            : SQLQueryString(
                """
                UPDATE points_balances SET balance = balance + \(bind: Int64(total)), earned = earned + \(bind: Int64(earned)),
                    ledger_seq = ledger_seq + \(bind: count)
                WHERE member_id = \(bind: member.rawValue) AND balance + \(bind: Int64(total)) >= 0
                RETURNING balance, ledger_seq
                """)
        guard let row = try await db.raw(moved).first() else {
            throw PointsError.insufficientPoints(balance: try await balance(member).balance)
        }
        let balance = Int(try row.decode(column: "balance", as: Int64.self))
        let next = try row.decode(column: "ledger_seq", as: Int64.self) - count + 1
        var running = balance - total
        var rows: [any SQLExpression] = []
        for (offset, entry) in entries.enumerated() {
            running += entry.points
            rows.append(
                SQLGroupExpression([
                    SQLBind(entry.id), SQLBind(member.rawValue), SQLBind(entry.kind.rawValue),
                    SQLBind(Int64(entry.points)), SQLBind(Int64(running)), SQLBind(entry.reason),
                    SQLBind(entry.quest?.rawValue), SQLBind(entry.creator?.rawValue), SQLBind(now.storedMillis),
                    SQLBind(next + Int64(offset)),
                ]))
        }
        try await db.raw(
            """
            INSERT INTO points_ledger (id, member_id, kind, points, balance_after, reason, challenge_id, created_by, created_at, seq)
            VALUES \(SQLList(rows))
            """
        ).run()
        try await events?.record(
            .pointsChanged, member: member,
            data: OutboxData.PointsChanged(
                memberId: member.rawValue, delta: total, balance: balance,
                // A webhook's receiver reads the reason in English (payloads are for machines and
                // their operators), not as the message the row keeps.
                entries: entries.map {
                    .init(
                        kind: $0.kind.rawValue, points: $0.points, reason: Localizer.english(Message(stored: $0.reason))
                    )
                }),
            now: now)
        return balance
    }

    /// The newest entries first.
    public func entries(_ member: MemberID, limit: Int, offset: Int) async throws -> [LedgerEntry] {
        try await db.raw(
            """
            SELECT id, kind, points, balance_after, reason, challenge_id, created_at FROM points_ledger WHERE member_id = \(bind: member.rawValue)
            ORDER BY seq DESC LIMIT \(bind: limit) OFFSET \(bind: offset)
            """
        ).all(decoding: LedgerRow.self, keyDecodingStrategy: .convertFromSnakeCase).map(\.entry)
    }

    /// The ledger's sum, to check against the balance (integrity checks).
    public func sum(_ member: MemberID) async throws -> Int {
        Int(
            try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(points), 0) AS BIGINT) AS total FROM points_ledger WHERE member_id = \(bind: member.rawValue)
                """
            ).first().orNoRow("SUM points_ledger").decode(column: "total", as: Int64.self))
    }
}

/// A ledger row as stored (columns in snake case).
private struct LedgerRow: Decodable {
    let id: String
    let kind: String
    let points: Int64
    let balanceAfter: Int64
    let reason: String
    let challengeId: String?
    let createdAt: Int64

    var entry: LedgerEntry {
        LedgerEntry(
            id: id, kind: LedgerKind(rawValue: kind) ?? .adjust, points: Int(points), balanceAfter: Int(balanceAfter),
            reason: reason, questID: challengeId.flatMap { QuestID($0) }, createdAt: Date(storedMillis: createdAt))
    }
}
