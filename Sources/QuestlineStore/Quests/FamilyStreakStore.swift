public import Foundation
public import QuestlineCore
import SQLKit

/// Who is in a household's family streak, and when (`FamilyStreak.Span`s as JSON, one row a
/// member).
enum FamilyStreakSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "family_streak_members", column: "member_id", export: (.quests, "familyStreak"))
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 880, name: "family_streak",
            [
                """
                CREATE TABLE family_streak_members (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    spans TEXT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX family_streak_members_by_household ON family_streak_members (household_id)",
            ])
    ]
}

/// What the family streak is judged on: each member's spans, and the days they met.
public struct FamilyStreakFacts: Sendable, Equatable {
    public var spans: [MemberID: [FamilyStreak.Span]] = [:]
    /// Days with a read (readers) or within a learning run (children), from the day asked.
    public var reads: [MemberID: Set<LocalDay>] = [:]
    public var learning: [MemberID: Set<LocalDay>] = [:]
}

extension QuestQueries {
    /// The household's family streak facts from `from` on, in one statement: the spans, and for
    /// the members who have any, their reading days and their learning runs reaching `from`.
    public func familyStreakFacts(_ household: HouseholdID, from: LocalDay) async throws -> FamilyStreakFacts {
        let inIt: SQLQueryString =
            "SELECT member_id FROM family_streak_members WHERE household_id = \(bind: household.rawValue)"
        let rows = try await db.raw(
            """
            SELECT 'span' AS kind, member_id AS member, spans AS a, '' AS b FROM family_streak_members
            WHERE household_id = \(bind: household.rawValue)
            UNION ALL
            SELECT 'read' AS kind, owner AS member, local_day AS a, '' AS b FROM reading_days
            WHERE owner IN (\(inIt)) AND local_day >= \(bind: from.iso) AND reads > 0
            UNION ALL
            SELECT 'run' AS kind, child_id AS member, first_day AS a, last_day AS b FROM quest_learning_runs
            WHERE child_id IN (\(inIt)) AND last_day >= \(bind: from.iso)
            """
        ).all()
        var facts = FamilyStreakFacts()
        let decoder = JSONDecoder()
        for row in rows {
            let member = try MemberID.parse(try row.decode(column: "member", as: String.self), field: "member")
            let a = try row.decode(column: "a", as: String.self)
            switch try row.decode(column: "kind", as: String.self) {
            case "span":
                facts.spans[member] = try decoder.decode([FamilyStreak.Span].self, from: Data(a.utf8))
            case "read":
                if let day = LocalDay(iso: a) { facts.reads[member, default: []].insert(day) }
            default:
                guard let first = LocalDay(iso: a),
                    let last = LocalDay(iso: try row.decode(column: "b", as: String.self))
                else { continue }
                let run = DayRun(first: max(first, from), last: max(last, from))
                facts.learning[member, default: []].formUnion(run.days)
            }
        }
        return facts
    }

    /// Holds the member's row of the family streak (PostgreSQL) while it changes; SQLite's
    /// write transactions are serialized already.
    public func familyStreakSpans(_ member: MemberID, forUpdate: Bool) async throws -> [FamilyStreak.Span] {
        let lock = forUpdate && db.dialect.name != "sqlite" ? " FOR UPDATE" : ""
        guard
            let body = try await db.raw(
                "SELECT spans FROM family_streak_members WHERE member_id = \(bind: member.rawValue)\(unsafeRaw: lock)"
            ).first()?.decode(column: "spans", as: String.self)
        else { return [] }
        return try JSONDecoder().decode([FamilyStreak.Span].self, from: Data(body.utf8))
    }

    public func setFamilyStreakSpans(
        _ member: MemberID, household: HouseholdID, _ spans: [FamilyStreak.Span], now: Date
    ) async throws {
        let body = String(decoding: try JSONEncoder().encode(spans), as: UTF8.self)
        try await db.raw(
            """
            INSERT INTO family_streak_members (member_id, household_id, spans, updated_at)
            VALUES (\(bind: member.rawValue), \(bind: household.rawValue), \(bind: body), \(bind: now.storedMillis))
            ON CONFLICT (member_id) DO UPDATE SET household_id = excluded.household_id, spans = excluded.spans,
                updated_at = excluded.updated_at
            """
        ).run()
    }
}
