import Foundation
import QuestlineCore
import QuestlineStore

/// The child's quest board and the guardian's console, kept between the writes that change them
/// (`KeptAnswers`): read far more often (a device polls, a page reloads) than usage, quests,
/// points, grants or rules are written.
///
/// Every family write announces a household event in its transaction (`LiveAnnouncer`), and
/// each event forgets what it names once committed (`LiveEventLog.watchEvents`): here at once
/// after the commit, on the other instances when they hear it. An event about a child forgets
/// that child's board; one about the whole household (its rules) every board; every event its
/// household's console. Time forgets the rest: a kept answer is used only from when it was
/// computed until when it says it stops being true (`UnlockLedger.trueUntil`, the next local
/// midnight for the console), and only for the child's zone and household it was computed in;
/// the member records it shows are the ones read for the request's access check.
final class KeptFamilyAnswers: Sendable {
    struct Board: Sendable {
        let from: Date
        let until: Date
        let timeZone: String
        let household: HouseholdID?
        let board: QuestBoard
    }

    struct Console: Sendable {
        let from: Date
        let until: Date
        /// Each child's id and zone, in the order the household lists them.
        let children: [Child]
        let summaries: [ChildSummary]
    }

    struct Child: Equatable, Sendable {
        let id: MemberID
        let timeZone: String

        init(_ record: MemberRecord) {
            id = record.id
            timeZone = record.timeZone
        }
    }

    let boards: KeptAnswers<MemberID, Board>
    let consoles: KeptAnswers<HouseholdID, Console>
    private let live: LiveEventLog

    init(capacity: Int, live: LiveEventLog) {
        let boards = KeptAnswers<MemberID, Board>(capacity: capacity)
        let consoles = KeptAnswers<HouseholdID, Console>(capacity: capacity)
        self.boards = boards
        self.consoles = consoles
        self.live = live
        live.watchEvents { events in
            // An id that does not parse (never written so) forgets everything rather than nothing.
            let households = events.compactMap { HouseholdID($0.household) }
            if households.count < events.count { consoles.forgetAll() } else { consoles.forget(households) }
            let children = events.compactMap { $0.childId.flatMap { MemberID($0) } }
            if children.count < events.count { boards.forgetAll() } else { boards.forget(children) }
        }
        live.watchAnswers { change in
            guard change == .everyone else { return }
            boards.forgetAll()
            consoles.forgetAll()
        }
    }

    /// The board kept for `child` if it is still true at `now`, shown with the record just read.
    func board(_ child: MemberRecord, now: Date) -> QuestBoard? {
        guard let kept = boards.answer(child.id), kept.from <= now, now < kept.until,
            kept.timeZone == child.timeZone, kept.household == child.householdID
        else { return nil }
        return kept.board.shown(with: child)
    }

    /// Keeps a board computed at `now` from rows read after `ticket` was taken, until it says
    /// it stops being true.
    func keep(_ board: QuestBoard, from now: Date, ticket: KeptAnswers<MemberID, Board>.Ticket) {
        guard live.mayKeepAnswers else { return }
        boards.keep(
            Board(
                from: now, until: board.trueUntil, timeZone: board.child.timeZone,
                household: board.child.householdID, board: board), for: board.child.id, ticket: ticket)
    }

    /// The console kept for `household` if it is still true at `now` for these children, shown
    /// with the records just read.
    func console(_ household: HouseholdID, children: [MemberRecord], now: Date) -> [ChildSummary]? {
        guard let kept = consoles.answer(household), kept.from <= now, now < kept.until,
            kept.children == children.map(Child.init), kept.summaries.count == children.count
        else { return nil }
        return zip(kept.summaries, children).map { $0.shown(with: $1) }
    }

    /// Keeps a console computed at `now` (true until the first of its children's next midnights).
    func keep(
        _ summaries: [ChildSummary], of household: HouseholdID, children: [MemberRecord], now: Date,
        ticket: KeptAnswers<HouseholdID, Console>.Ticket
    ) {
        guard live.mayKeepAnswers, let until = children.map({ LocalDay.nextMidnight(after: now, in: $0.zone) }).min()
        else { return }
        consoles.keep(
            Console(from: now, until: until, children: children.map(Child.init), summaries: summaries),
            for: household, ticket: ticket)
    }
}

extension QuestBoard {
    /// The same board showing `child` as just read (its name may have changed; nothing the board
    /// computes from it has, `KeptFamilyAnswers.board` checks).
    func shown(with child: MemberRecord) -> QuestBoard {
        QuestBoard(
            child: child, quests: quests, balance: balance, stats: stats, badges: badges, grants: grants, apps: apps,
            rules: rules, policy: policy, restriction: restriction, blockedToday: blockedToday, trueUntil: trueUntil)
    }
}

extension ChildSummary {
    func shown(with child: MemberRecord) -> ChildSummary {
        ChildSummary(child: child, balance: balance, quests: quests, done: done, streak: streak, apps: apps)
    }
}
