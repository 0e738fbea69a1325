public import Foundation
import Logging
public import QuestlineCore
public import QuestlineStore

/// Weekly leagues: opt-in; adults in public divisions of their tier, everyone on their
/// household's board and in the friend groups their guardians joined by code. Points come from
/// reads and daily games; the week closes when the last zone has finished its Sunday
/// (`LeagueRules`), once, on whichever instance's pass gets there first.
public struct LeaguesFeature: Sendable {
    let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    /// Draws a friend group's code (the core has no randomness of its own).
    let codeIndexes: @Sendable () -> [Int]
    /// Wrong codes typed, per member and per household (`RateLimits.friendCodes`).
    let codeGuard: AttemptGuard
    let logger = Logger(label: "questline.leagues")

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        codeGuard = AttemptGuard(
            store: store.limits, clock: configuration.clock, policy: configuration.rateLimits.friendCodes)
        codeIndexes = { (0..<FriendCode.length).map { _ in Int.random(in: 0..<FriendCode.alphabet.count) } }
    }

    /// One board as a member sees it: display names and points only.
    public struct Board: Sendable {
        public struct Row: Sendable {
            public let member: MemberID
            public let name: String
            public let points: Int
            public let rank: Int
            public let isMe: Bool
            /// Where the row would move if the week closed now (divisions only).
            public let movement: LeagueRules.Movement
        }

        public let kind: LeagueBoardKind
        /// The board's key in results: `division`, `household`, `friends:<group id>`.
        public let key: String
        public let title: Message
        public let tier: LeagueTier?
        public let rows: [Row]
    }

    public struct View: Sendable {
        public let me: MemberRecord
        public let joined: Bool
        public let tier: LeagueTier
        public let week: LocalDay
        public let closesAt: Date
        /// A joined adult not in a division yet this week (joined after it began).
        public let divisionFromNextWeek: Bool
        /// When the division shown is drawn, while it is not yet: the week has begun for the
        /// member before the last zone finished the week before, whose close draws it.
        public let divisionDrawAt: Date?
        public let boards: [Board]
        public let last: (week: LocalDay, results: [LeagueResultRow])?
        public let friendGroups: [FriendGroup]
        public let householdNames: [HouseholdID: String]
        /// A guardian: creates, joins and leaves friend groups for the household.
        public let managesGroups: Bool
        /// A guardian's children and whether each plays (the guardian takes them in and out).
        public let children: [(child: MemberRecord, joined: Bool)]
    }

    public func league(as actor: MemberRecord) async throws -> View {
        let now = clock.now()
        let week = LeagueRules.week(at: now, in: actor.zone)
        return try await store.leagues.read { q in
            let player = try await q.player(actor.id)
            var groups: [FriendGroup] = []
            if let household = actor.householdID { groups = try await q.friendGroups(of: household) }
            var boards: [Board] = []
            var inDivision = false
            var provisional = false
            if let player, player.joined {
                if LeagueRules.mayJoinPublic(actor.role) {
                    if try await q.isDrawn(week) {
                        // Drawn when the week before closed: who plays with whom stays all week.
                        if let place = try await q.drawnPlace(actor.id, week: week) {
                            inDivision = true
                            boards.append(
                                board(
                                    .division, key: "division",
                                    title: Message("leagues.board.division", ["tier": .message(place.tier.title)]),
                                    tier: place.tier,
                                    try await q.players(week: week, division: place), me: actor.id))
                        }
                    } else if LeagueRules.playsInDivision(joinedAt: player.joinedAt, week: week) {
                        // Not drawn yet (the week has begun here before the last zone finished
                        // the week before): the division as it would be drawn now.
                        let tierPlayers = Self.inDivisions(
                            try await q.players(week: week, tier: player.tier), week: week)
                        if let division = LeagueRules.divisions(tierPlayers).first(where: {
                            $0.contains { $0.member == actor.id }
                        }) {
                            inDivision = true
                            provisional = true
                            boards.append(
                                board(
                                    .division, key: "division",
                                    title: Message("leagues.board.division", ["tier": .message(player.tier.title)]),
                                    tier: player.tier, division, me: actor.id))
                        }
                    }
                }
                if let household = actor.householdID {
                    let members = try await q.players(week: week, households: [household])
                    boards.append(
                        board(
                            .household, key: "household", title: Message("leagues.board.household"), tier: nil,
                            members, me: actor.id))
                }
                for group in groups {
                    let members = try await q.players(week: week, households: group.households)
                    boards.append(
                        board(
                            .friends, key: "friends:\(group.id)", title: .plain(group.name), tier: nil, members,
                            me: actor.id)
                    )
                }
            }
            var names: [HouseholdID: String] = [:]
            for household in Set(groups.flatMap(\.households)) {
                names[household] = try await store.accounts.household(household)?.name
            }
            let manages = actor.householdID.map { AccessPolicy.allows(actor.actor, .manageHousehold($0)) } ?? false
            var children: [(child: MemberRecord, joined: Bool)] = []
            if manages, let household = actor.householdID {
                for child in try await store.accounts.household(household)?.members.filter({ $0.role == .child }) ?? []
                {
                    children.append((child, try await q.player(child.id)?.joined ?? false))
                }
            }
            return View(
                me: actor, joined: player?.joined ?? false, tier: player?.tier ?? .bronze, week: week,
                closesAt: LeagueRules.closes(week),
                divisionFromNextWeek: (player?.joined ?? false) && LeagueRules.mayJoinPublic(actor.role) && !inDivision,
                divisionDrawAt: provisional ? LeagueRules.closes(week.adding(days: -7)) : nil,
                boards: boards, last: try await q.lastResults(actor.id), friendGroups: groups, householdNames: names,
                managesGroups: manages, children: children)
        }
    }

    /// A week's public divisions with their players: as drawn (those who still play), else split
    /// from `players` by their tiers now.
    private func divisions(of week: LocalDay, players: [LeaguePlayer], _ q: LeagueQueries) async throws -> [(
        LeagueTier, [LeaguePlayer]
    )] {
        let drawn = try await q.drawn(week)
        if drawn.isEmpty {
            return LeagueTier.allCases.flatMap { tier in
                LeagueRules.divisions(Self.inDivisions(players.filter { $0.tier == tier }, week: week)).map {
                    (tier, $0)
                }
            }
        }
        var placed: [LeagueQueries.DrawnPlace: [LeaguePlayer]] = [:]
        for player in players {
            if let place = drawn[player.member] { placed[place, default: []].append(player) }
        }
        return placed.sorted { ($0.key.tier, $0.key.division) < ($1.key.tier, $1.key.division) }.map {
            ($0.key.tier, $0.value)
        }
    }

    /// The players of a week's public divisions: adults who joined before it began anywhere.
    static func inDivisions(_ players: [LeaguePlayer], week: LocalDay) -> [LeaguePlayer] {
        players.filter {
            LeagueRules.mayJoinPublic($0.role) && LeagueRules.playsInDivision(joinedAt: $0.joinedAt, week: week)
        }
    }

    private func board(
        _ kind: LeagueBoardKind, key: String, title: Message, tier: LeagueTier?, _ players: [LeaguePlayer], me: MemberID
    ) -> Board {
        let entries = players.map { LeagueRules.Entry(member: $0.member, points: $0.points, joinedAt: $0.joinedAt) }
        let names = Dictionary(players.map { ($0.member, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let results = LeagueRules.close(entries, tier: tier)
        return Board(
            kind: kind, key: key, title: title, tier: tier,
            rows: results.map {
                Board.Row(
                    member: $0.member, name: names[$0.member] ?? "", points: $0.points, rank: $0.rank,
                    isMe: $0.member == me, movement: $0.movement)
            })
    }

    /// Joins (playing from now: the household board and friend groups at once, a public
    /// division from the next week) or leaves. A guardian may do it for a child of theirs.
    public func setJoined(_ joined: Bool, member memberID: MemberID? = nil, as actor: MemberRecord, scope: WriteScope)
        async throws
    {
        var member = actor
        if let memberID, memberID != actor.id {
            guard let target = try await store.accounts.member(memberID) else {
                throw DomainError.notFound(Message("accounts.error.noSuchMember"))
            }
            try AccessPolicy.check(actor.actor, .updateMember(target.scope))
            member = target
        }
        let now = clock.now()
        try await store.leagues.write(scope) { q in try await q.setPlayer(member.id, joined: joined, now: now) }
    }

    // MARK: Friend groups

    /// A guardian starts a friend group for the household; the answer carries the code to
    /// give another household's guardian.
    public func createFriendGroup(name raw: String, as actor: MemberRecord, scope: WriteScope) async throws
        -> FriendGroup
    {
        let household = try guardianHousehold(of: actor)
        let name = raw.trimmed()
        guard (1...40).contains(name.count) else {
            throw DomainError.invalid(field: "name", Message("leagues.error.groupName", ["max": .number(40)]))
        }
        guard try await store.leagues.read({ try await $0.friendGroups(of: household) }).count < Self.maxGroups else {
            throw DomainError.conflict(
                field: nil, message: Message("leagues.error.tooManyGroups", ["count": .number(Self.maxGroups)]))
        }
        let now = clock.now()
        for _ in 0..<5 {
            let code = FriendCode.make(codeIndexes())
            let id = ids.makeUUID().uuidString.lowercased()
            if try await store.leagues.write(
                scope,
                {
                    try await $0.createFriendGroup(id: id, code: code, name: name, household: household, now: now)
                })
            {
                return FriendGroup(id: id, code: code, name: name, households: [household])
            }
        }
        throw DomainError.unavailable(Message("leagues.error.noFreeCode"))
    }

    /// A guardian joins the household to a friend group with the code another guardian gave.
    /// Wrong codes are counted against the guardian and the household: after a few, joining is
    /// locked for a while (the answer says until when), and each refusal is logged.
    public func joinFriendGroup(code typed: String, as actor: MemberRecord, scope: WriteScope) async throws
        -> FriendGroup
    {
        let household = try guardianHousehold(of: actor)
        let subjects: [AttemptSubject] = [.friendCodeMember(actor.id), .friendCodeHousehold(household)]
        if let until = try await codeGuard.lockedUntil(subjects) {
            let now = clock.now()
            logger.notice(
                "friend-group join refused: locked",
                metadata: ["member_id": "\(actor.id.rawValue)", "household_id": "\(household.rawValue)"])
            throw DomainError.tooManyRequests(
                retryAfter: max(1, Int(until.timeIntervalSince(now).rounded(.up))),
                Message("leagues.error.codesLocked", ["until": .message(.until(until, now: now, in: actor.zoneID))]))
        }
        guard let code = FriendCode.normalized(typed) else {
            throw DomainError.invalid(field: "code", Message("leagues.error.codeShape"))
        }
        let now = clock.now()
        let joined = try await store.leagues.write(scope) { q -> FriendGroup? in
            guard let group = try await q.group(code: code) else { return nil }
            guard group.households < Self.maxHouseholds else {
                throw DomainError.conflict(
                    field: "code", message: Message("leagues.error.groupFull", ["count": .number(Self.maxHouseholds)]))
            }
            try await q.join(group: group.id, household: household, now: now)
            guard let joined = try await q.friendGroups(of: household).first(where: { $0.id == group.id }) else {
                throw DomainError.notFound(Message("leagues.error.noSuchGroup"))
            }
            return joined
        }
        guard let joined else {
            try await codeGuard.failed(subjects)
            logger.notice(
                "friend-group join refused: no group has this code",
                metadata: ["member_id": "\(actor.id.rawValue)", "household_id": "\(household.rawValue)"])
            throw DomainError.invalid(field: "code", Message("leagues.error.unknownCode"))
        }
        return joined
    }

    public func leaveFriendGroup(_ id: String, as actor: MemberRecord, scope: WriteScope) async throws {
        let household = try guardianHousehold(of: actor)
        guard try await store.leagues.write(scope, { try await $0.leave(group: id, household: household) }) else {
            throw DomainError.notFound(Message("leagues.error.notInGroup"))
        }
    }

    public static let maxGroups = 10
    public static let maxHouseholds = 10

    private func guardianHousehold(of actor: MemberRecord) throws -> HouseholdID {
        guard let household = actor.householdID else {
            throw DomainError.notFound(Message("leagues.error.noHousehold"))
        }
        try AccessPolicy.check(actor.actor, .manageHousehold(household))
        return household
    }

    // MARK: The close

    /// Closes the weeks whose close has passed (the latest two, so a pass missed for a week is
    /// made up), once each whatever the number of instances: results frozen, tiers moved, one
    /// `league.closed` event per player. Returns the weeks it closed.
    @discardableResult
    public func closeDueWeeks() async throws -> [LocalDay] {
        let now = clock.now()
        let latest = LocalDay(now, in: Anywhere.lastZone).monday.adding(days: -7)
        var closed: [LocalDay] = []
        for week in [latest.adding(days: -7), latest] where LeagueRules.isClosed(week, at: now) {
            if try await close(week, now: now) { closed.append(week) }
        }
        return closed
    }

    private func close(_ week: LocalDay, now: Date) async throws -> Bool {
        try await store.leagues.write(.system) { q in
            guard try await q.claimClose(week, now: now) else { return false }
            // Who had joined by the close played that week (on their household's board at once).
            let players = try await q.players(week: week).filter { $0.joinedAt < LeagueRules.closes(week) }
            var results: [(board: String, result: LeagueRules.Result, tiered: Bool)] = []
            // Public divisions: as drawn for the week (its players who still play), or, for a
            // week never drawn, split now.
            for (tier, division) in try await divisions(of: week, players: players, q) {
                let entries = division.map {
                    LeagueRules.Entry(member: $0.member, points: $0.points, joinedAt: $0.joinedAt)
                }
                results += LeagueRules.close(entries, tier: tier).map { ("division", $0, true) }
            }
            // Household boards.
            for (_, members) in Dictionary(grouping: players.filter { $0.householdID != nil }, by: { $0.householdID! })
            {
                let entries = members.map {
                    LeagueRules.Entry(member: $0.member, points: $0.points, joinedAt: $0.joinedAt)
                }
                results += LeagueRules.close(entries, tier: nil).map { ("household", $0, false) }
            }
            try await q.recordResults(week, results, now: now)
            // The next week's divisions, with the tiers this close gave.
            let next = week.adding(days: 7)
            let nextPlayers = Self.inDivisions(try await q.players(week: next), week: next)
            try await q.draw(
                next,
                LeagueTier.allCases.map { tier in
                    (tier, LeagueRules.divisions(nextPlayers.filter { $0.tier == tier }).map { $0.map(\.member) })
                })
            for (member, rows) in Dictionary(grouping: results, by: { $0.result.member }) {
                try await q.recordClosed(
                    OutboxData.LeagueClosed(
                        memberId: member.rawValue, week: week.iso,
                        boards: rows.map {
                            .init(
                                board: $0.board, rank: $0.result.rank, points: $0.result.points,
                                movement: $0.result.movement.rawValue, tier: $0.tiered ? $0.result.tier.name : nil)
                        }), member: member, id: ids.makeUUID().uuidString.lowercased(), now: now)
            }
            return true
        }
    }
}
