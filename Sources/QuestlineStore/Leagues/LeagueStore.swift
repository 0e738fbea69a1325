public import Foundation
public import QuestlineCore
import SQLKit

/// Weekly leagues: who plays and their tier, the weeks closed and their frozen results,
/// friend groups of households. A week's points are read from what members did (reads and
/// daily games), never kept twice; a closed week's results are kept, so nothing that arrives
/// later changes them.
enum LeagueSchema: StoreModule {
    /// The tables that hold a member's rows (`PersonalData`).
    static let personalData: [PersonalData.Holding] = [
        PersonalData.Holding(table: "league_players", column: "member_id", export: (.reading, "league")),
        PersonalData.Holding(table: "league_results", column: "member_id", export: (.reading, "leagueResults")),
    ]

    static let migrations: [Migration] = [
        Migration(
            version: 900, name: "leagues",
            [
                """
                CREATE TABLE league_players (
                    member_id TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
                    tier BIGINT NOT NULL,
                    joined BIGINT NOT NULL,
                    joined_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX league_players_by_tier ON league_players (joined, tier, joined_at)",
                """
                CREATE TABLE league_weeks (
                    week TEXT PRIMARY KEY,
                    closed_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE league_results (
                    week TEXT NOT NULL,
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    board TEXT NOT NULL,
                    rank BIGINT NOT NULL,
                    points BIGINT NOT NULL,
                    movement TEXT NOT NULL,
                    tier BIGINT,
                    PRIMARY KEY (week, member_id, board)
                )
                """,
                "CREATE INDEX league_results_by_member ON league_results (member_id, week)",
                """
                CREATE TABLE friend_groups (
                    id TEXT PRIMARY KEY,
                    code TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE friend_group_households (
                    group_id TEXT NOT NULL REFERENCES friend_groups(id) ON DELETE CASCADE,
                    household_id TEXT NOT NULL REFERENCES households(id) ON DELETE CASCADE,
                    joined_at BIGINT NOT NULL,
                    PRIMARY KEY (group_id, household_id)
                )
                """,
                "CREATE INDEX friend_group_households_by_household ON friend_group_households (household_id)",
            ]),
        // A week's public divisions as drawn when the week before closed: who plays with whom
        // cannot change in the week (a member who leaves keeps their place in the split).
        Migration(
            version: 920, name: "league_divisions",
            [
                """
                CREATE TABLE league_divisions (
                    week TEXT NOT NULL,
                    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
                    tier BIGINT NOT NULL,
                    division BIGINT NOT NULL,
                    PRIMARY KEY (week, member_id)
                )
                """,
                "CREATE INDEX league_divisions_by_division ON league_divisions (week, tier, division)",
            ]),
    ]
}

/// A member who plays, with what they did in the week asked.
public struct LeaguePlayer: Sendable, Equatable {
    public let member: MemberID
    public let displayName: String
    public let role: HouseholdRole?
    public let householdID: HouseholdID?
    public let tier: LeagueTier
    public let joinedAt: Date
    public let points: Int
}

/// A friend group as a household sees it.
public struct FriendGroup: Sendable, Equatable {
    public let id: String
    public let code: String
    public let name: String
    public let households: [HouseholdID]

    public init(id: String, code: String, name: String, households: [HouseholdID]) {
        self.id = id
        self.code = code
        self.name = name
        self.households = households
    }
}

/// A member's frozen result of a closed week on one board.
public struct LeagueResultRow: Sendable, Equatable {
    public let board: String
    public let rank: Int
    public let points: Int
    public let movement: LeagueRules.Movement
    public let tier: LeagueTier?
}

public struct LeagueStore: Sendable {
    let database: Database
    let outbox: Outbox

    init(_ database: Database, outbox: Outbox) {
        self.database = database
        self.outbox = outbox
    }

    public func read<T: Sendable>(_ body: (LeagueQueries) async throws -> T) async throws -> T {
        try await database.withConnection { db in try await body(LeagueQueries(db: db, outbox: outbox)) }
    }

    public func write<T: Sendable>(_ scope: WriteScope, _ body: (LeagueQueries) async throws -> T) async throws -> T {
        try await database.transaction(scope) { db in try await body(LeagueQueries(db: db, outbox: outbox)) }
    }
}

public struct LeagueQueries: Sendable {
    let db: any SQLDatabase
    let outbox: Outbox

    /// A member's result of a closed week, for the app team's systems (`league.closed`).
    public func recordClosed(_ data: OutboxData.LeagueClosed, member: MemberID, id: String, now: Date) async throws {
        try await outbox.record(.leagueClosed, member: member, data: data, id: id, now: now, on: db)
    }

    /// The member's place in the leagues: their tier, whether they play, since when.
    public func player(_ member: MemberID) async throws -> (tier: LeagueTier, joined: Bool, joinedAt: Date)? {
        guard
            let row = try await db.raw(
                "SELECT tier, joined, joined_at FROM league_players WHERE member_id = \(bind: member.rawValue)"
            ).first()
        else { return nil }
        return (
            LeagueTier(rawValue: Int(try row.decode(column: "tier", as: Int64.self))) ?? .bronze,
            try row.decode(column: "joined", as: Int64.self) != 0,
            Date(storedMillis: try row.decode(column: "joined_at", as: Int64.self))
        )
    }

    /// Joins (from `now`, keeping a tier earned before) or leaves.
    public func setPlayer(_ member: MemberID, joined: Bool, now: Date) async throws {
        try await db.raw(
            """
            INSERT INTO league_players (member_id, tier, joined, joined_at, updated_at)
            VALUES (\(bind: member.rawValue), \(bind: Int64(LeagueTier.bronze.rawValue)), \(bind: Int64(joined ? 1 : 0)),
                    \(bind: now.storedMillis), \(bind: now.storedMillis))
            ON CONFLICT (member_id) DO UPDATE SET joined = excluded.joined, updated_at = excluded.updated_at,
                joined_at = CASE WHEN league_players.joined = 0 AND excluded.joined = 1
                    THEN excluded.joined_at ELSE league_players.joined_at END
            """
        ).run()
    }

    /// Where a week's public divisions put a member, once drawn: their tier that week and the
    /// division's number. Nil when the week is not drawn or the member is not in its split.
    public struct DrawnPlace: Sendable, Hashable {
        public let tier: LeagueTier
        public let division: Int
    }

    /// Whether the week of `monday` has its divisions drawn.
    public func isDrawn(_ monday: LocalDay) async throws -> Bool {
        try await db.raw("SELECT 1 AS x FROM league_divisions WHERE week = \(bind: monday.iso) LIMIT 1").first() != nil
    }

    /// The drawn places of the week of `monday`, by member.
    public func drawn(_ monday: LocalDay) async throws -> [MemberID: DrawnPlace] {
        var places: [MemberID: DrawnPlace] = [:]
        for row in try await db.raw(
            "SELECT member_id, tier, division FROM league_divisions WHERE week = \(bind: monday.iso)"
        ).all() {
            let member = try MemberID.parse(try row.decode(column: "member_id", as: String.self), field: "member_id")
            places[member] = DrawnPlace(
                tier: LeagueTier(rawValue: Int(try row.decode(column: "tier", as: Int64.self))) ?? .bronze,
                division: Int(try row.decode(column: "division", as: Int64.self)))
        }
        return places
    }

    /// The member's drawn place in the week of `monday`, if the week is drawn and they are in it.
    public func drawnPlace(_ member: MemberID, week monday: LocalDay) async throws -> DrawnPlace? {
        guard
            let row = try await db.raw(
                """
                SELECT tier, division FROM league_divisions
                WHERE week = \(bind: monday.iso) AND member_id = \(bind: member.rawValue)
                """
            ).first()
        else { return nil }
        return DrawnPlace(
            tier: LeagueTier(rawValue: Int(try row.decode(column: "tier", as: Int64.self))) ?? .bronze,
            division: Int(try row.decode(column: "division", as: Int64.self)))
    }

    /// Records the divisions of the week of `monday` (each tier's, in order), unless the week is
    /// drawn already. One statement per 500 members.
    public func draw(_ monday: LocalDay, _ divisions: [(tier: LeagueTier, members: [[MemberID]])]) async throws {
        guard try await !isDrawn(monday) else { return }
        let rows = divisions.flatMap { tier in
            tier.members.enumerated().flatMap { index, members in
                members.map {
                    SQLGroupExpression([
                        SQLBind(monday.iso), SQLBind($0.rawValue), SQLBind(Int64(tier.tier.rawValue)),
                        SQLBind(Int64(index)),
                    ])
                }
            }
        }
        for start in stride(from: 0, to: rows.count, by: 500) {
            try await db.raw(
                """
                INSERT INTO league_divisions (week, member_id, tier, division)
                VALUES \(SQLList(Array(rows[start..<min(start + 500, rows.count)])))
                ON CONFLICT (week, member_id) DO NOTHING
                """
            ).run()
        }
    }

    /// The players of the week of `monday` with their points, in one statement: everyone who
    /// plays (`households` nil), or the members of these households; of one tier, or all. Points
    /// as `LeagueRules.points` defines them: the different articles read on each of the week's
    /// local days, and the daily games finished.
    /// `division`: the players of one drawn division of the week (who still play).
    public func players(
        week monday: LocalDay, households: [HouseholdID]? = nil, tier: LeagueTier? = nil,
        division: DrawnPlace? = nil
    )
        async throws -> [LeaguePlayer]
    {
        let first = monday.iso
        let last = monday.adding(days: 6).iso
        // The instants in which some zone was on one of the week's days (the index on read_at).
        let from = monday.start(in: Anywhere.firstZone).storedMillis
        let until = monday.adding(days: 7).start(in: Anywhere.lastZone).storedMillis
        var filter: SQLQueryString = ""
        if let households {
            guard !households.isEmpty else { return [] }
            let list = SQLList(households.map { SQLBind($0.rawValue) })
            filter = " AND hm.household_id IN (\(list))"
        }
        if let tier { filter = filter + " AND p.tier = \(bind: Int64(tier.rawValue))" }
        if let division {
            filter =
                filter
                    + """
                     AND p.member_id IN (SELECT member_id FROM league_divisions WHERE week = \(bind: first)
                        AND tier = \(bind: Int64(division.tier.rawValue)) AND division = \(bind: Int64(division.division)))
                    """
        }
        let rows = try await db.raw(
            """
            SELECT p.member_id, p.tier, p.joined_at, m.display_name, hm.role, hm.household_id,
                (SELECT COUNT(DISTINCT e.local_day || '|' || e.article_id) FROM reading_events e
                    WHERE e.owner = p.member_id AND e.read_at >= \(bind: from) AND e.read_at < \(bind: until)
                    AND e.local_day >= \(bind: first) AND e.local_day <= \(bind: last)) AS articles,
                (SELECT COUNT(*) FROM game_sessions g WHERE g.member_id = p.member_id AND g.from_archive = 0
                    AND g.completed_at IS NOT NULL AND g.game_date >= \(bind: first) AND g.game_date <= \(bind: last)) AS games
            FROM league_players p JOIN members m ON m.id = p.member_id
            LEFT JOIN household_members hm ON hm.member_id = p.member_id
            WHERE p.joined = 1\(filter)
            ORDER BY p.joined_at, p.member_id
            """
        ).all()
        return try rows.map { row in
            LeaguePlayer(
                member: try MemberID.parse(try row.decode(column: "member_id", as: String.self), field: "member_id"),
                displayName: try row.decode(column: "display_name", as: String.self),
                role: try row.decode(column: "role", as: String?.self).flatMap(HouseholdRole.init(rawValue:)),
                householdID: try row.decode(column: "household_id", as: String?.self).flatMap { HouseholdID($0) },
                tier: LeagueTier(rawValue: Int(try row.decode(column: "tier", as: Int64.self))) ?? .bronze,
                joinedAt: Date(storedMillis: try row.decode(column: "joined_at", as: Int64.self)),
                points: LeagueRules.points(
                    articles: Int(try row.decode(column: "articles", as: Int64.self)),
                    games: Int(try row.decode(column: "games", as: Int64.self))))
        }
    }

    /// Claims the close of a week: true for the one transaction (of any instance) that
    /// recorded it first.
    public func claimClose(_ monday: LocalDay, now: Date) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO league_weeks (week, closed_at) VALUES (\(bind: monday.iso), \(bind: now.storedMillis))
            ON CONFLICT (week) DO NOTHING RETURNING week
            """
        ).first() != nil
    }

    /// Writes a closed week's results (one statement per 500 rows) and the tiers they moved to
    /// (one statement per player who moves).
    public func recordResults(
        _ monday: LocalDay, _ results: [(board: String, result: LeagueRules.Result, tiered: Bool)], now: Date
    ) async throws {
        guard !results.isEmpty else { return }
        for chunk in stride(from: 0, to: results.count, by: 500).map({
            Array(results[$0..<min($0 + 500, results.count)])
        }) {
            let rows = chunk.map {
                SQLGroupExpression([
                    SQLBind(monday.iso), SQLBind($0.result.member.rawValue), SQLBind($0.board),
                    SQLBind(Int64($0.result.rank)),
                    SQLBind(Int64($0.result.points)), SQLBind($0.result.movement.rawValue),
                    SQLBind($0.tiered ? Int64($0.result.tier.rawValue) : nil),
                ])
            }
            try await db.raw(
                """
                INSERT INTO league_results (week, member_id, board, rank, points, movement, tier) VALUES \(SQLList(rows))
                ON CONFLICT (week, member_id, board) DO NOTHING
                """
            ).run()
        }
        for moved in results where moved.tiered && moved.result.movement != .stay {
            try await db.raw(
                """
                UPDATE league_players SET tier = \(bind: Int64(moved.result.tier.rawValue)), updated_at = \(bind: now.storedMillis)
                WHERE member_id = \(bind: moved.result.member.rawValue)
                """
            ).run()
        }
    }

    /// The member's results of the latest closed week they played in.
    public func lastResults(_ member: MemberID) async throws -> (week: LocalDay, results: [LeagueResultRow])? {
        let rows = try await db.raw(
            """
            SELECT week, board, rank, points, movement, tier FROM league_results
            WHERE member_id = \(bind: member.rawValue)
                AND week = (SELECT MAX(week) FROM league_results WHERE member_id = \(bind: member.rawValue))
            ORDER BY board
            """
        ).all()
        guard let first = rows.first, let week = LocalDay(iso: try first.decode(column: "week", as: String.self)) else {
            return nil
        }
        return (
            week,
            try rows.map { row in
                LeagueResultRow(
                    board: try row.decode(column: "board", as: String.self),
                    rank: Int(try row.decode(column: "rank", as: Int64.self)),
                    points: Int(try row.decode(column: "points", as: Int64.self)),
                    movement: LeagueRules.Movement(rawValue: try row.decode(column: "movement", as: String.self))
                        ?? .stay,
                    tier: try row.decode(column: "tier", as: Int64?.self).flatMap { LeagueTier(rawValue: Int($0)) })
            }
        )
    }

    // MARK: Friend groups

    public func friendGroups(of household: HouseholdID) async throws -> [FriendGroup] {
        let rows = try await db.raw(
            """
            SELECT g.id, g.code, g.name, h.household_id FROM friend_groups g
            JOIN friend_group_households h ON h.group_id = g.id
            WHERE g.id IN (SELECT group_id FROM friend_group_households WHERE household_id = \(bind: household.rawValue))
            ORDER BY g.created_at, g.id, h.joined_at, h.household_id
            """
        ).all()
        var groups: [FriendGroup] = []
        for row in rows {
            let id = try row.decode(column: "id", as: String.self)
            let member = HouseholdID(try row.decode(column: "household_id", as: String.self))
            if let index = groups.firstIndex(where: { $0.id == id }) {
                let group = groups[index]
                groups[index] = FriendGroup(
                    id: id, code: group.code, name: group.name,
                    households: group.households + (member.map { [$0] } ?? []))
            } else {
                groups.append(
                    FriendGroup(
                        id: id, code: try row.decode(column: "code", as: String.self),
                        name: try row.decode(column: "name", as: String.self), households: member.map { [$0] } ?? []))
            }
        }
        return groups
    }

    /// Creates a group with its first household; false when the code is taken (make another).
    public func createFriendGroup(id: String, code: String, name: String, household: HouseholdID, now: Date)
        async throws -> Bool
    {
        guard
            try await db.raw(
                """
                INSERT INTO friend_groups (id, code, name, created_at)
                VALUES (\(bind: id), \(bind: code), \(bind: name), \(bind: now.storedMillis))
                ON CONFLICT (code) DO NOTHING RETURNING id
                """
            ).first() != nil
        else { return false }
        try await join(group: id, household: household, now: now)
        return true
    }

    public func group(code: String) async throws -> (id: String, households: Int)? {
        guard
            let row = try await db.raw(
                """
                SELECT g.id, (SELECT COUNT(*) FROM friend_group_households h WHERE h.group_id = g.id) AS n
                FROM friend_groups g WHERE g.code = \(bind: code)
                """
            ).first()
        else { return nil }
        return (try row.decode(column: "id", as: String.self), Int(try row.decode(column: "n", as: Int64.self)))
    }

    public func join(group: String, household: HouseholdID, now: Date) async throws {
        try await db.raw(
            """
            INSERT INTO friend_group_households (group_id, household_id, joined_at)
            VALUES (\(bind: group), \(bind: household.rawValue), \(bind: now.storedMillis))
            ON CONFLICT (group_id, household_id) DO NOTHING
            """
        ).run()
    }

    /// The household leaves; a group left without households goes.
    public func leave(group: String, household: HouseholdID) async throws -> Bool {
        let left =
            try await db.raw(
                """
                DELETE FROM friend_group_households WHERE group_id = \(bind: group) AND household_id = \(bind: household.rawValue)
                RETURNING group_id
                """
            ).first() != nil
        try await db.raw(
            """
            DELETE FROM friend_groups WHERE id = \(bind: group)
                AND NOT EXISTS (SELECT 1 FROM friend_group_households WHERE group_id = \(bind: group))
            """
        ).run()
        return left
    }
}
