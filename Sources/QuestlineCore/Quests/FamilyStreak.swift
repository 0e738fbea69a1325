/// A household's shared streak: the days on which every member who had joined it met
/// their own day. A reader meets a day by reading an article; a child by learning (a day of the
/// child's learning streak, as the quest board counts it). Days are each member's local days.
///
/// Joining counts from the member's today; leaving counts from their tomorrow, so that nobody
/// rescues a day already missed by leaving it. Each member's time in the streak is kept as
/// spans, and a past day is judged by who was in it then. Personal rest days and pauses of the
/// reading streak do not carry the family's: the family streak counts the days everyone met.
public enum FamilyStreak {
    /// How far back the streak is counted: a year and a month.
    public static let horizon = 400
    /// Days the board shows, ending with the family's today.
    public static let shownDays = 14

    /// What a member needs to meet a day.
    public enum Kind: String, Sendable, Equatable {
        /// A read (guardians and every member outside the quests).
        case reader
        /// A learning day (children).
        case learner
    }

    /// A member's time in the streak: from `since` (inclusive) to `until` (exclusive; nil while
    /// they are in).
    public struct Span: Sendable, Equatable, Codable {
        public let since: LocalDay
        public let until: LocalDay?

        public init(since: LocalDay, until: LocalDay?) {
            self.since = since
            self.until = until
        }

        public func contains(_ day: LocalDay) -> Bool { since <= day && (until.map { day < $0 } ?? true) }
    }

    /// A member as the streak sees them: their spans, the days they met, and their today.
    public struct Member: Sendable, Equatable {
        public let id: MemberID
        public let kind: Kind
        public let spans: [Span]
        public let met: Set<LocalDay>
        public let today: LocalDay

        public init(id: MemberID, kind: Kind, spans: [Span], met: Set<LocalDay>, today: LocalDay) {
            self.id = id
            self.kind = kind
            self.spans = spans
            self.met = met
            self.today = today
        }

        public func isIn(on day: LocalDay) -> Bool { spans.contains { $0.contains(day) } }
        /// Whether the member is in the streak now (on their today).
        public var isIn: Bool { isIn(on: today) }
    }

    /// One shown day.
    public struct Day: Sendable, Equatable {
        public enum State: String, Sendable {
            /// Everyone in the streak that day met it.
            case met
            /// Someone in it did not.
            case missed
            /// Nobody was in it.
            case none
            /// The family's today, not met yet.
            case today
        }

        public let day: LocalDay
        public let state: State

        public init(day: LocalDay, state: State) {
            self.day = day
            self.state = state
        }
    }

    /// What the boards show.
    public struct Board: Sendable, Equatable {
        /// Days in a row, up to today (today counts once met; until then the run up to
        /// yesterday stands).
        public let current: Int
        /// The family's today: the earliest of its members' todays, so that the day only
        /// counts once everyone has reached it.
        public let today: LocalDay
        public let todayMet: Bool
        /// Members in the streak who have not met today yet, in the order given.
        public let waitingOn: [MemberID]
        /// The last `shownDays` days, oldest first.
        public let days: [Day]
    }

    /// The earliest day the streak needs facts from, given the family's today.
    public static func factsFrom(today: LocalDay) -> LocalDay { today.adding(days: -horizon) }

    /// The family's today: the earliest of the members' todays (`fallback` with none in it).
    public static func today(of members: [Member], fallback: LocalDay) -> LocalDay {
        members.filter(\.isIn).map(\.today).min() ?? members.map(\.today).min() ?? fallback
    }

    /// Whether `day` is met: someone was in the streak that day, and everyone in it met it.
    public static func isMet(_ day: LocalDay, _ members: [Member]) -> Bool {
        let inIt = members.filter { $0.isIn(on: day) }
        return !inIt.isEmpty && inIt.allSatisfy { $0.met.contains(day) }
    }

    public static func board(_ members: [Member], fallbackToday: LocalDay) -> Board {
        let today = today(of: members, fallback: fallbackToday)
        let todayMet = isMet(today, members)
        var current = 0
        var day = todayMet ? today : today.adding(days: -1)
        let earliest = factsFrom(today: today)
        while day >= earliest, isMet(day, members) {
            current += 1
            day = day.adding(days: -1)
        }
        let days = (0..<shownDays).reversed().map { back -> Day in
            let day = today.adding(days: -back)
            let inIt = members.contains { $0.isIn(on: day) }
            let state: Day.State =
                !inIt ? .none : isMet(day, members) ? .met : day == today ? .today : .missed
            return Day(day: day, state: state)
        }
        return Board(
            current: current, today: today, todayMet: todayMet,
            waitingOn: members.filter { $0.isIn(on: today) && !$0.met.contains(today) }.map(\.id), days: days)
    }

    /// The spans after the member joins today. Joining while in changes nothing.
    public static func join(_ spans: [Span], today: LocalDay) -> [Span] {
        if spans.contains(where: { $0.contains(today) && $0.until == nil }) { return spans }
        // Left today (counting until tomorrow): the span goes on.
        if let last = spans.last, last.until == today.adding(days: 1) {
            return spans.dropLast() + [Span(since: last.since, until: nil)]
        }
        return spans + [Span(since: today, until: nil)]
    }

    /// Leaving: the open span ends after today.
    public static func leave(_ spans: [Span], today: LocalDay) -> [Span] {
        spans.map { $0.until == nil ? Span(since: $0.since, until: max(today.adding(days: 1), $0.since)) : $0 }
    }
}
