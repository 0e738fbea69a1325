public import Foundation

/// A league's tier: everyone starts in bronze; the top fifth of a division moves up at the
/// week's close, the bottom fifth down.
public enum LeagueTier: Int, Sendable, CaseIterable, Codable, Comparable {
    case bronze = 1
    case silver, gold, sapphire, ruby, diamond

    public static func < (a: LeagueTier, b: LeagueTier) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .bronze: "Bronze"
        case .silver: "Silver"
        case .gold: "Gold"
        case .sapphire: "Sapphire"
        case .ruby: "Ruby"
        case .diamond: "Diamond"
        }
    }

    /// The tier's name in the reader's language ("Bronze"); `name` stays English for webhooks.
    public var title: Message { Message("leagues.tier.\(self)") }

    public var up: LeagueTier { LeagueTier(rawValue: rawValue + 1) ?? self }
    public var down: LeagueTier { LeagueTier(rawValue: rawValue - 1) ?? self }
}

/// Where a member plays a league week. Adults play in public divisions of their tier; a child
/// never meets a stranger: only their household's board and friend groups a guardian joined by
/// code (`LeagueRules.mayJoinPublic`).
public enum LeagueBoardKind: String, Sendable, Codable {
    case division, household, friends
}

/// The rules of weekly leagues: the week, its fair close, the points, the divisions and
/// who moves tier. Pure; the store keeps entries and closed results, the features apply these.
public enum LeagueRules {
    /// Members in one public division at the most.
    public static let divisionSize = 30
    /// Points for an article read: each article counts once a local day, however often it was
    /// opened that day (`points(articles:games:)`).
    public static let pointsPerArticle = 10
    /// Points for a game of "Which came first?" finished.
    public static let pointsPerGame = 20

    /// The week a member plays at `now`: the Monday of their local day.
    public static func week(at now: Date, in zone: TimeZone) -> LocalDay { LocalDay(now, in: zone).monday }

    /// The fair close of the week that starts on `monday`: when the last time zone has finished
    /// its Sunday, so every member has all of their Sunday to play. Monday 12:00 UTC.
    public static func closes(_ monday: LocalDay) -> Date { monday.adding(days: 7).start(in: Anywhere.lastZone) }

    /// Whether the week of `monday` is closed at `now`.
    public static func isClosed(_ monday: LocalDay, at now: Date) -> Bool { now >= closes(monday) }

    /// A week's points from what the member did in it (their own local days). `articles` is the
    /// number of different articles read on each day of the week, summed over its days (the
    /// same article read twice in one day counts once; read again the next day, once more);
    /// `games` the daily games finished. The store counts exactly these (`LeagueQueries.players`).
    public static func points(articles: Int, games: Int) -> Int {
        max(0, articles) * pointsPerArticle + max(0, games) * pointsPerGame
    }

    /// Children play on their household's board and in friend groups only.
    public static func mayJoinPublic(_ role: HouseholdRole?) -> Bool { role != .child }

    /// Whether a member who joined at `joinedAt` plays in the public divisions of the week of
    /// `monday`: only if they joined before that week began anywhere, so that a division's
    /// members stay the same all week (a member who joins mid-week plays from the next).
    public static func playsInDivision(joinedAt: Date, week monday: LocalDay) -> Bool {
        joinedAt < monday.start(in: Anywhere.firstZone)
    }

    /// The public divisions of one tier for a week: its players in the order they joined, in
    /// as few divisions of at most `divisionSize` as hold them, of sizes that differ by one at
    /// the most (41 players: 21 and 20, not 30 and 11). Deterministic, so every instance and
    /// every read agree without storing the split.
    public static func divisions<T>(_ players: [T]) -> [[T]] {
        guard !players.isEmpty else { return [] }
        let count = (players.count + divisionSize - 1) / divisionSize
        let base = players.count / count
        let larger = players.count % count
        var result: [[T]] = []
        var start = 0
        for index in 0..<count {
            let size = base + (index < larger ? 1 : 0)
            result.append(Array(players[start..<(start + size)]))
            start += size
        }
        return result
    }

    /// A member's standing in a board.
    public struct Entry: Sendable, Equatable {
        public let member: MemberID
        public let points: Int
        /// When they joined the week: of equal points, the earlier ranks first.
        public let joinedAt: Date

        public init(member: MemberID, points: Int, joinedAt: Date) {
            self.member = member
            self.points = points
            self.joinedAt = joinedAt
        }
    }

    public enum Movement: String, Sendable, Codable {
        case up, down, stay
    }

    /// A member's result at the close.
    public struct Result: Sendable, Equatable {
        public let member: MemberID
        /// 1 for the first; members with equal points share a rank.
        public let rank: Int
        public let points: Int
        public let movement: Movement
        public let tier: LeagueTier
    }

    /// The board in order: points, then who joined first, then id (a stable order).
    public static func ranked(_ entries: [Entry]) -> [(entry: Entry, rank: Int)] {
        let sorted = entries.sorted {
            ($1.points, $0.joinedAt, $0.member.rawValue) < ($0.points, $1.joinedAt, $1.member.rawValue)
        }
        var ranks: [(entry: Entry, rank: Int)] = []
        for (index, entry) in sorted.enumerated() {
            let rank = index > 0 && sorted[index - 1].points == entry.points ? ranks[index - 1].rank : index + 1
            ranks.append((entry, rank))
        }
        return ranks
    }

    /// A division's close: the top fifth (rounded down) with points moves up, the bottom fifth
    /// down; a division of fewer than five moves nobody; the top tier cannot rise nor the bottom
    /// fall. Household boards and friend groups have no tiers (`tier` nil: everyone stays).
    public static func close(_ entries: [Entry], tier: LeagueTier?) -> [Result] {
        let ranked = ranked(entries)
        let fifth = entries.count / 5
        return ranked.enumerated().map { index, item in
            var movement = Movement.stay
            if let tier {
                if index < fifth, item.entry.points > 0, tier != .diamond {
                    movement = .up
                } else if index >= entries.count - fifth, tier != .bronze {
                    movement = .down
                }
            }
            let after = tier.map { movement == .up ? $0.up : movement == .down ? $0.down : $0 } ?? .bronze
            return Result(
                member: item.entry.member, rank: item.rank, points: item.entry.points, movement: movement, tier: after)
        }
    }
}

/// A friend group's join code: eight letters and digits without look-alikes (no 0/O, 1/I/L),
/// shown in two groups of four. Guardians pass it between themselves; no child types it.
public enum FriendCode {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 8

    /// A code from eight random indexes (the caller's randomness: the core has none).
    public static func make(_ indexes: [Int]) -> String {
        String(indexes.prefix(length).map { alphabet[abs($0) % alphabet.count] })
    }

    /// A typed code as stored: upper case, spaces and dashes dropped; nil if it cannot be one.
    public static func normalized(_ typed: String) -> String? {
        let code = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }

    /// "ABCD-EFGH".
    public static func shown(_ code: String) -> String { "\(code.prefix(4))-\(code.dropFirst(4))" }
}
