import Foundation
import QuestlineCore
import Testing

private func day(_ iso: String) -> LocalDay { LocalDay(iso: iso)! }
private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private func zone(_ id: String) -> TimeZone { TimeZone(identifier: id)! }

private func entries(_ points: [Int]) -> [LeagueRules.Entry] {
    points.enumerated().map { index, points in
        LeagueRules.Entry(
            member: MemberID(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!),
            points: points, joinedAt: at("2026-11-23T08:00:00Z").addingTimeInterval(Double(index)))
    }
}

@Suite struct LeagueTests {
    /// The week closes when the last zone (UTC−12) has finished its Sunday: Kiritimati (UTC+14)
    /// finished 26 hours earlier, Honolulu 2 hours earlier; a Sunday read in Honolulu is in time.
    @Test func theWeekClosesWhenTheLastZoneHasFinishedItsSunday() {
        let monday = day("2026-11-23")
        #expect(LeagueRules.closes(monday) == at("2026-11-30T12:00:00Z"))
        let honoluluSundayNight = at("2026-11-30T09:30:00Z")  // 23:30 on Sunday in Honolulu
        #expect(LeagueRules.week(at: honoluluSundayNight, in: zone("Pacific/Honolulu")) == monday)
        #expect(!LeagueRules.isClosed(monday, at: honoluluSundayNight))
        // The same instant is Monday in Kiritimati: the next week there.
        #expect(LeagueRules.week(at: honoluluSundayNight, in: zone("Pacific/Kiritimati")) == day("2026-11-30"))
        #expect(!LeagueRules.isClosed(monday, at: at("2026-11-30T11:59:59Z")))
        #expect(LeagueRules.isClosed(monday, at: at("2026-11-30T12:00:00Z")))
    }

    /// Berlin's clocks go back on Sunday 25 October 2026: the week still ends at its midnight.
    @Test func aDSTWeekIsTheMembersOwnSevenDays() {
        let berlin = zone("Europe/Berlin")
        #expect(LeagueRules.week(at: at("2026-10-25T22:30:00Z"), in: berlin) == day("2026-10-19"))  // Sun 23:30 CET
        #expect(LeagueRules.week(at: at("2026-10-25T23:00:00Z"), in: berlin) == day("2026-10-26"))  // Mon 00:00
        #expect(day("2027-01-03").monday == day("2026-12-28"))  // across New Year
    }

    @Test func pointsComeFromArticlesAndGames() {
        #expect(LeagueRules.points(articles: 3, games: 2) == 70)
        #expect(LeagueRules.points(articles: -1, games: 0) == 0)
    }

    @Test func childrenNeverJoinPublicDivisions() {
        #expect(!LeagueRules.mayJoinPublic(.child))
        #expect(LeagueRules.mayJoinPublic(.guardian) && LeagueRules.mayJoinPublic(nil))
    }

    @Test func divisionsHoldThirtyAtMostAndDifferByOneAtMost() {
        #expect(LeagueRules.divisions([Int]()).isEmpty)
        #expect(LeagueRules.divisions(Array(1...30)).map(\.count) == [30])
        #expect(LeagueRules.divisions(Array(1...41)).map(\.count) == [21, 20])
        #expect(LeagueRules.divisions(Array(1...61)).map(\.count) == [21, 20, 20])
        #expect(LeagueRules.divisions(Array(1...61)).flatMap { $0 } == Array(1...61), "in the order they joined")
    }

    /// Joining counts for the divisions from the next week that begins anywhere (UTC+14).
    @Test func aMemberWhoJoinsMidWeekPlaysInADivisionFromTheNextWeek() {
        let monday = day("2026-11-23")  // begins in Kiritimati at 2026-11-22T10:00Z
        #expect(LeagueRules.playsInDivision(joinedAt: at("2026-11-22T09:59:59Z"), week: monday))
        #expect(!LeagueRules.playsInDivision(joinedAt: at("2026-11-22T10:00:00Z"), week: monday))
        #expect(LeagueRules.playsInDivision(joinedAt: at("2026-11-25T10:00:00Z"), week: day("2026-11-30")))
    }

    @Test func equalPointsShareARankAndTheEarlierJoinerIsListedFirst() {
        let ranked = LeagueRules.ranked(entries([50, 80, 50, 0]))
        #expect(ranked.map(\.entry.points) == [80, 50, 50, 0])
        #expect(ranked.map(\.rank) == [1, 2, 2, 4])
        #expect(ranked[1].entry.joinedAt < ranked[2].entry.joinedAt)
    }

    @Test func theTopFifthRisesAndTheBottomFifthFalls() {
        // Thirty members: six up, six down, eighteen stay.
        let full = LeagueRules.close(entries(Array(1...30).map { $0 * 10 }), tier: .gold)
        #expect(full.filter { $0.movement == .up }.count == 6 && full.filter { $0.movement == .down }.count == 6)
        #expect(full.first?.tier == .sapphire && full.last?.tier == .silver && full[10].tier == .gold)
        // Fewer than five: nobody moves.
        #expect(LeagueRules.close(entries([10, 20, 30, 40]), tier: .gold).allSatisfy { $0.movement == .stay })
        // Nobody rises with no points; the top tier cannot rise nor the bottom fall.
        #expect(
            LeagueRules.close(entries([0, 0, 0, 0, 0]), tier: .silver).map(\.movement) == [
                .stay, .stay, .stay, .stay, .down,
            ])
        #expect(LeagueRules.close(entries([50, 40, 30, 20, 10]), tier: .diamond).first?.movement == .stay)
        #expect(LeagueRules.close(entries([50, 40, 30, 20, 10]), tier: .bronze).last?.movement == .stay)
        // A household board or friend group has no tiers.
        #expect(LeagueRules.close(entries([50, 40, 30, 20, 10]), tier: nil).allSatisfy { $0.movement == .stay })
    }

    @Test func friendCodesAreEightUnambiguousCharacters() {
        let code = FriendCode.make([0, 1, 2, 3, 4, 5, 6, 29])
        #expect(code == "ABCDEFG8")
        #expect(FriendCode.shown(code) == "ABCD-EFG8")
        #expect(FriendCode.normalized("abcd-efg8") == code)
        #expect(FriendCode.normalized("ABCD-EFG0") == nil)  // no zero
        #expect(FriendCode.normalized("ABC") == nil)
    }
}
