import Foundation
import QuestlineCore
import QuestlineTestSupport
import Testing

private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
private func days(_ isos: String...) -> Set<LocalDay> { Set(isos.map(day)) }
private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

/// The family streak (#39): the days everyone in it met, judged by who was in it each day.
@Suite struct FamilyStreakTests {
    let mum = MemberID(UUID())
    let kid = MemberID(UUID())
    let span = [FamilyStreak.Span(since: day("2026-11-01"), until: nil)]

    func member(_ id: MemberID, _ met: Set<LocalDay>, spans: [FamilyStreak.Span]? = nil, today: String = "2026-11-20")
        -> FamilyStreak.Member
    {
        FamilyStreak.Member(
            id: id, kind: id == kid ? .learner : .reader, spans: spans ?? span, met: met, today: day(today))
    }

    @Test func aDayCountsWhenEveryoneInTheStreakMetItAndTodayCountsOnceMet() {
        let both = days("2026-11-17", "2026-11-18", "2026-11-19")
        var board = FamilyStreak.board(
            [member(mum, both.union(days("2026-11-20"))), member(kid, both)], fallbackToday: day("2026-11-20"))
        // Today is still running: the run up to yesterday stands, and today waits on the child.
        #expect(board.current == 3 && !board.todayMet && board.waitingOn == [kid])
        #expect(board.days.last == .init(day: day("2026-11-20"), state: .today))
        #expect(board.days.count == FamilyStreak.shownDays && board.days.first?.day == day("2026-11-07"))
        board = FamilyStreak.board(
            [member(mum, both.union(days("2026-11-20"))), member(kid, both.union(days("2026-11-20")))],
            fallbackToday: day("2026-11-20"))
        #expect(board.current == 4 && board.todayMet && board.waitingOn.isEmpty)
        // One member missing a day breaks it for everyone.
        board = FamilyStreak.board(
            [member(mum, both), member(kid, days("2026-11-17", "2026-11-19"))], fallbackToday: day("2026-11-20"))
        #expect(board.current == 1)
        #expect(board.days.first { $0.day == day("2026-11-18") }?.state == .missed)
    }

    @Test func aDayIsJudgedByWhoWasInItThenAndLeavingRescuesNothing() {
        // The child joined on the 19th: the days before count the guardian alone.
        let kidSpans = [FamilyStreak.Span(since: day("2026-11-19"), until: nil)]
        var board = FamilyStreak.board(
            [
                member(mum, days("2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19")),
                member(kid, days("2026-11-19"), spans: kidSpans),
            ], fallbackToday: day("2026-11-20"))
        #expect(board.current == 4)
        // The child missed the 18th while in it; leaving on the 20th counts from the 21st, so the
        // 18th stays missed.
        let left = FamilyStreak.leave(span, today: day("2026-11-20"))
        #expect(left == [FamilyStreak.Span(since: day("2026-11-01"), until: day("2026-11-21"))])
        board = FamilyStreak.board(
            [
                member(mum, days("2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20")),
                member(kid, days("2026-11-17", "2026-11-19", "2026-11-20"), spans: left),
            ], fallbackToday: day("2026-11-20"))
        #expect(board.current == 2)
        // Nobody in the streak: no day counts, and the board says so.
        board = FamilyStreak.board([member(mum, days("2026-11-20"), spans: [])], fallbackToday: day("2026-11-20"))
        #expect(board.current == 0 && board.days.allSatisfy { $0.state == .none })
    }

    @Test func joiningStartsTodayRejoiningTheSameDayGoesOnAndJoiningTwiceChangesNothing() {
        let today = day("2026-11-20")
        let joined = FamilyStreak.join([], today: today)
        #expect(joined == [FamilyStreak.Span(since: today, until: nil)])
        #expect(FamilyStreak.join(joined, today: today.adding(days: 3)) == joined)
        let left = FamilyStreak.leave(joined, today: today)
        #expect(left == [FamilyStreak.Span(since: today, until: today.adding(days: 1))])
        #expect(FamilyStreak.join(left, today: today) == joined)
        // Back a week later: a new span, the days between do not count them.
        let back = FamilyStreak.join(left, today: today.adding(days: 7))
        #expect(back.count == 2 && back[1].since == today.adding(days: 7))
        #expect(
            FamilyStreak.Member(id: mum, kind: .reader, spans: back, met: [], today: today).isIn(
                on: today.adding(days: 3)) == false)
    }

    @Test func theFamilysTodayIsTheEarliestOfItsMembersSoAFamilyAcrossZonesCountsADayOnceAllReachedIt() {
        // 23:30 UTC on Monday 23 November: Tokyo is already on Tuesday, Honolulu still on Monday.
        let now = at("2026-11-23T23:30:00Z")
        let tokyo = LocalDay(now, in: TimeZone(identifier: "Asia/Tokyo")!)
        let honolulu = LocalDay(now, in: TimeZone(identifier: "Pacific/Honolulu")!)
        #expect(tokyo == day("2026-11-24") && honolulu == day("2026-11-23"))
        let members = [
            member(mum, days("2026-11-22", "2026-11-23", "2026-11-24"), today: tokyo.iso),
            member(kid, days("2026-11-22", "2026-11-23"), today: honolulu.iso),
        ]
        let board = FamilyStreak.board(members, fallbackToday: tokyo)
        #expect(board.today == honolulu && board.todayMet && board.current == 2)
    }

    @Test func aTravellersDaysAreTheLocalDaysTheyMetThemOnAndDSTDaysAreOneDayEach() {
        // Berlin springs forward on 29 March 2026: the 23-hour day is one day of the streak.
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let dst = LocalDay(at("2026-03-29T21:30:00Z"), in: berlin)
        #expect(dst == day("2026-03-29"))
        let since = [FamilyStreak.Span(since: day("2026-03-01"), until: nil)]
        let board = FamilyStreak.board(
            [
                member(mum, days("2026-03-28", "2026-03-29", "2026-03-30"), spans: since, today: "2026-03-30"),
                // The child flew to New York on the 29th: its day there is the 29th too.
                member(
                    kid,
                    [
                        day("2026-03-28"),
                        LocalDay(at("2026-03-30T02:00:00Z"), in: TimeZone(identifier: "America/New_York")!),
                        day("2026-03-30"),
                    ],
                    spans: since, today: "2026-03-30"),
            ], fallbackToday: day("2026-03-30"))
        #expect(board.current == 3)
    }

    /// A late report (a child's learning day arriving after the day) fills the day as if it had
    /// come in time: the board depends on the days met, not on the order they arrived in.
    @Test func lateFactsCountAsIfOnTimeWhateverTheOrder() {
        var random = SeededGenerator(seed: 39)
        let today = day("2026-11-20")
        for _ in 0..<100 {
            let mumDays = (0..<20).map { today.adding(days: -$0) }
            let kidDays = (0..<20).filter { _ in Int.random(in: 0..<10, using: &random) > 0 }.map {
                today.adding(days: -$0)
            }
            let expected = FamilyStreak.board(
                [member(mum, Set(mumDays)), member(kid, Set(kidDays))], fallbackToday: today)
            guard !kidDays.isEmpty else { continue }
            var seen: Set<LocalDay> = []
            var last: FamilyStreak.Board?
            for arrival in kidDays.shuffled(using: &random) {
                seen.insert(arrival)
                last = FamilyStreak.board([member(mum, Set(mumDays)), member(kid, seen)], fallbackToday: today)
                #expect(last!.current <= expected.current)
            }
            #expect(last == expected)
        }
    }
}
