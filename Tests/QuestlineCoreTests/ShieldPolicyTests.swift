import Foundation
import QuestlineCore
import QuestlineL10n
import Testing

/// The shield policy a child's device enforces, table-tested in Berlin (DST on 29 March and
/// 25 October 2026): grants, overlapping grants, downtime, reward days, midnight.
@Suite struct ShieldPolicyTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    func at(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    func grant(
        _ id: String, _ token: String = "game", minutes: Int, from start: String, until end: String,
        left: Int? = nil
    ) -> GrantBalance {
        GrantBalance(
            grant: UnlockGrant(
                id: id, token: token, minutes: minutes, startsAt: at(start), expiresAt: at(end), questID: nil),
            secondsLeft: left ?? minutes * 60)
    }

    func policy(_ balances: [GrantBalance], rules: ShieldRules = .open, now: String, apps: [String] = ["game"])
        -> ShieldPolicy
    {
        ShieldPolicy.compute(rewardApps: apps, balances: balances, rules: rules, now: at(now), zone: berlin)
    }

    struct Case: CustomTestStringConvertible {
        let name: String
        let balances: [GrantBalance]
        let rules: ShieldRules
        let now: String
        let reason: ShieldPolicy.Reason
        let until: String?
        let minutes: Int
        let next: String?
        var testDescription: String { name }
    }

    static let downtime = ShieldRules(downtime: LocalHours(start: 21, end: 7))
    static let weekdaysOnly = ShieldRules(rewardDays: Set(1...5))
    // 7 May 2026 is a Thursday; Berlin is UTC+2 in summer, UTC+1 in winter.
    static var cases: [Case] {
        let t = ShieldPolicyTests()
        let day = t.grant("a", minutes: 20, from: "2026-05-07T08:00:00Z", until: "2026-05-07T22:00:00Z")
        return [
            Case(
                name: "no grant", balances: [], rules: .open, now: "2026-05-07T10:00:00Z", reason: .noGrant,
                until: nil, minutes: 0, next: nil),
            Case(
                name: "a grant until local midnight", balances: [day], rules: .open, now: "2026-05-07T10:00:00Z",
                reason: .unlocked, until: "2026-05-07T22:00:00Z", minutes: 20, next: "2026-05-07T22:00:00Z"),
            Case(
                name: "overlapping grants add their minutes left",
                balances: [
                    t.grant("a", minutes: 20, from: "2026-05-07T07:00:00Z", until: "2026-05-07T22:00:00Z", left: 300),
                    t.grant("b", minutes: 30, from: "2026-05-07T09:00:00Z", until: "2026-05-07T22:00:00Z"),
                ], rules: .open, now: "2026-05-07T10:00:00Z", reason: .unlocked, until: "2026-05-07T22:00:00Z",
                minutes: 35, next: "2026-05-07T22:00:00Z"),
            Case(
                name: "a used-up grant shields",
                balances: [
                    t.grant("a", minutes: 20, from: "2026-05-07T07:00:00Z", until: "2026-05-07T22:00:00Z", left: 0)
                ], rules: .open, now: "2026-05-07T10:00:00Z", reason: .noGrant, until: nil, minutes: 0, next: nil),
            Case(
                name: "a grant that starts later",
                balances: [
                    t.grant("a", minutes: 20, from: "2026-05-07T15:00:00Z", until: "2026-05-07T22:00:00Z")
                ], rules: .open, now: "2026-05-07T10:00:00Z", reason: .noGrant, until: nil, minutes: 0,
                next: "2026-05-07T15:00:00Z"),
            Case(
                name: "before downtime: unlocked until it starts", balances: [day], rules: downtime,
                now: "2026-05-07T18:00:00Z", reason: .unlocked, until: "2026-05-07T19:00:00Z", minutes: 20,
                next: "2026-05-07T19:00:00Z"),
            Case(
                name: "in downtime: shielded; the grant's expiry is the next change", balances: [day],
                rules: downtime, now: "2026-05-07T19:30:00Z", reason: .downtime, until: nil, minutes: 0,
                next: "2026-05-07T22:00:00Z"),
            Case(
                name: "in downtime without grants: its end is the next change", balances: [], rules: downtime,
                now: "2026-05-07T23:30:00Z", reason: .noGrant, until: nil, minutes: 0, next: "2026-05-08T05:00:00Z"),
            Case(
                name: "a day without rewards",
                balances: [
                    t.grant("s", minutes: 20, from: "2026-05-09T08:00:00Z", until: "2026-05-09T22:00:00Z")
                ], rules: weekdaysOnly, now: "2026-05-09T10:00:00Z", reason: .notToday, until: nil, minutes: 0,
                next: "2026-05-09T22:00:00Z"),
            Case(
                name: "one second before midnight", balances: [day], rules: .open, now: "2026-05-07T21:59:59Z",
                reason: .unlocked, until: "2026-05-07T22:00:00Z", minutes: 20, next: "2026-05-07T22:00:00Z"),
            Case(
                name: "at midnight the day's grant is over", balances: [day], rules: .open,
                now: "2026-05-07T22:00:00Z", reason: .noGrant, until: nil, minutes: 0, next: nil),
            // 29 March: 02:00 becomes 03:00. Downtime 1 to 3 ends at 03:00 CEST (01:00Z).
            Case(
                name: "spring forward: downtime ends after the gap",
                balances: [
                    t.grant("d", minutes: 20, from: "2026-03-28T23:00:00Z", until: "2026-03-29T22:00:00Z")
                ], rules: ShieldRules(downtime: LocalHours(start: 1, end: 3)), now: "2026-03-29T00:30:00Z",
                reason: .downtime, until: nil, minutes: 0, next: "2026-03-29T01:00:00Z"),
            Case(
                name: "spring forward: a grant until local midnight is 22 hours after the previous one",
                balances: [
                    t.grant("d", minutes: 20, from: "2026-03-28T23:00:00Z", until: "2026-03-29T22:00:00Z")
                ], rules: .open, now: "2026-03-29T10:00:00Z", reason: .unlocked, until: "2026-03-29T22:00:00Z",
                minutes: 20, next: "2026-03-29T22:00:00Z"),
            // 25 October: 03:00 becomes 02:00 again. Downtime from 2 starts at the first 02:00 (00:00Z).
            Case(
                name: "fall back: downtime starts at the first 02:00",
                balances: [
                    t.grant("f", minutes: 20, from: "2026-10-24T22:00:00Z", until: "2026-10-25T23:00:00Z")
                ], rules: ShieldRules(downtime: LocalHours(start: 2, end: 6)), now: "2026-10-24T23:30:00Z",
                reason: .unlocked, until: "2026-10-25T00:00:00Z", minutes: 20, next: "2026-10-25T00:00:00Z"),
        ]
    }

    @Test(arguments: cases) func thePolicy(_ row: Case) {
        let result = policy(row.balances, rules: row.rules, now: row.now)
        let app = result.apps.first!
        #expect(app.reason == row.reason)
        #expect(app.blocked == (row.reason != .unlocked))
        #expect(app.unlockedUntil == row.until.map(at))
        #expect(app.minutesLeft == row.minutes)
        #expect(result.nextChange == row.next.map(at))
    }

    @Test func onlyRewardAppsAndEachByItsOwnGrants() {
        let result = policy(
            [
                grant("g", "game", minutes: 10, from: "2026-05-07T08:00:00Z", until: "2026-05-07T22:00:00Z"),
                grant("v", "video", minutes: 5, from: "2026-05-07T08:00:00Z", until: "2026-05-07T22:00:00Z"),
                grant("x", "khan", minutes: 5, from: "2026-05-07T08:00:00Z", until: "2026-05-07T22:00:00Z"),
            ], now: "2026-05-07T10:00:00Z", apps: ["video", "game", "music"])
        #expect(result.apps.map(\.token) == ["game", "music", "video"])
        #expect(result.apps.map(\.minutesLeft) == [10, 0, 5])
        #expect(result.apps.map(\.reason) == [.unlocked, .noGrant, .unlocked])
    }

    @Test func rulesAreCheckedNamingTheField() throws {
        #expect(throws: DomainError.invalid(field: "rewardDays", Message("quests.error.weekdaysRange"))) {
            try ShieldRules.validated(rewardDays: [0], downtimeStart: nil, downtimeEnd: nil)
        }
        #expect(Localizer.english(Message("quests.error.weekdaysRange")) == "Weekdays are 1 (Monday) to 7 (Sunday).")
        let halfDowntime = #expect(throws: DomainError.self) {
            try ShieldRules.validated(rewardDays: [1], downtimeStart: 21, downtimeEnd: nil)
        }
        guard case .invalid(let issues)? = halfDowntime else { return }
        #expect(issues.map(\.field) == ["downtime"])
        #expect(issues.map { Localizer.english($0.message) } == ["Give both the start and the end, or neither."])
        #expect(
            try ShieldRules.validated(rewardDays: [1, 2], downtimeStart: 21, downtimeEnd: 7)
                == ShieldRules(rewardDays: [1, 2], downtime: LocalHours(start: 21, end: 7)))
    }
}

/// A guardian's week: rows bucketed into the child's local days, across a DST change.
@Suite struct WeeklyReportTests {
    @Test func rowsFallIntoTheChildsLocalDays() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        func at(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }
        // The week of Monday 23 March; Sunday the 29th is the day clocks go forward.
        let report = WeeklyReport(
            week: try #require(LocalDay(iso: "2026-03-26")), zone: berlin,
            learning: [
                try #require(LocalDay(iso: "2026-03-23")): 30, try #require(LocalDay(iso: "2026-03-29")): 12,
                try #require(LocalDay(iso: "2026-03-22")): 99,  // the week before: not in it
            ],
            completions: [
                try at("2026-03-28T23:30:00Z"),  // 00:30 on the 29th in Berlin
                try at("2026-03-29T21:59:00Z"),  // 23:59 CEST on the 29th
                try at("2026-03-29T22:00:00Z"),  // the 30th: not in the week
            ],
            ledger: [
                (at: try at("2026-03-23T10:00:00Z"), points: 60), (at: try at("2026-03-23T11:00:00Z"), points: -25),
                (at: try at("2026-03-22T22:59:00Z"), points: 5),  // 23:59 on the 22nd: not in it
            ])
        #expect(report.days.map(\.day.iso) == (23...29).map { "2026-03-\($0)" })
        #expect(report.days.map(\.learningMinutes) == [30, 0, 0, 0, 0, 0, 12])
        #expect(report.days.map(\.questsCompleted) == [0, 0, 0, 0, 0, 0, 2])
        #expect(report.days.first?.pointsEarned == 60 && report.days.first?.pointsSpent == 25)
        #expect(report.learningMinutes == 42 && report.pointsEarned == 60 && report.pointsSpent == 25)
    }
}

/// `RewardUse`: reported use of reward apps charged to grants minute for minute, and use while
/// blocked found; `ShieldRules.restriction`, the one answer to "are reward apps shielded now
/// whatever the grants?".
@Suite struct RewardUseTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    let zoneID = TimeZoneID("Europe/Berlin")!
    func at(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    func use(_ end: String, minutes: Int, token: String = "game") -> UsageRecord {
        UsageRecord(token: token, start: at(end) - Double(minutes * 60), seconds: minutes * 60, zone: zoneID)
    }

    /// 30 minutes redeemed at 12:00 Berlin; use reported as it happens.
    var grant: UnlockGrant {
        UnlockGrant(
            id: "g", token: "game", minutes: 30, startsAt: at("2026-05-07T10:00:00Z"),
            expiresAt: at("2026-05-07T22:00:00Z"), questID: nil)
    }

    @Test func reportedUseIsChargedMinuteForMinute() {
        // The device stand-in reports "10 minutes, ending now" seconds after the unlock, then 5
        // more: the grant loses 10 and then 5 (before, it lost the seconds since the unlock).
        var reports = [use("2026-05-07T10:00:05Z", minutes: 10)]
        var account = RewardUse.account(
            grants: [grant], reports: reports, rewardApps: ["game"], rules: .open, zone: berlin)
        #expect(account.balances.map(\.minutesLeft) == [20] && account.blocked.isEmpty)
        reports.append(use("2026-05-07T10:00:10Z", minutes: 5))
        account = RewardUse.account(grants: [grant], reports: reports, rewardApps: ["game"], rules: .open, zone: berlin)
        #expect(account.balances.map(\.minutesLeft) == [15] && account.blocked.isEmpty)
        // Over the grant: what it cannot pay is blocked use (no grant); the same in any order.
        reports.append(use("2026-05-07T11:00:00Z", minutes: 20))
        for order in [reports, reports.reversed(), [reports[2], reports[0], reports[1]]] {
            let over = RewardUse.account(
                grants: [grant], reports: order, rewardApps: ["game"], rules: .open, zone: berlin)
            #expect(over.balances.map(\.secondsLeft) == [0])
            #expect(
                over.blocked == [
                    BlockedUse(token: "game", at: at("2026-05-07T11:00:00Z"), seconds: 300, reason: .noGrant)
                ])
        }
        // Learning apps are never blocked use; other reward apps without a grant are.
        let other = RewardUse.account(
            grants: [grant],
            reports: [
                use("2026-05-07T10:30:00Z", minutes: 5, token: "khan"),
                use("2026-05-07T10:30:00Z", minutes: 5, token: "tube"),
            ],
            rewardApps: ["game", "tube"], rules: .open, zone: berlin)
        #expect(other.blocked.map(\.token) == ["tube"] && other.balances.map(\.minutesLeft) == [30])
    }

    @Test func useInDowntimeOrOnADayOffIsBlockedAndNotCharged() {
        let rules = ShieldRules(rewardDays: Set(1...5), downtime: LocalHours(start: 21, end: 7))
        // 21:30 Berlin, Thursday 7 May: downtime.
        let night = RewardUse.account(
            grants: [grant], reports: [use("2026-05-07T19:30:00Z", minutes: 10)], rewardApps: ["game"], rules: rules,
            zone: berlin)
        #expect(night.balances.map(\.minutesLeft) == [30])
        #expect(night.blocked.map(\.reason) == [.downtime] && night.blocked.map(\.minutes) == [10])
        // Saturday 9 May: not a reward day.
        let saturday = UnlockGrant(
            id: "s", token: "game", minutes: 30, startsAt: at("2026-05-09T08:00:00Z"),
            expiresAt: at("2026-05-09T22:00:00Z"), questID: nil)
        let weekend = RewardUse.account(
            grants: [saturday], reports: [use("2026-05-09T09:00:00Z", minutes: 10)], rewardApps: ["game"],
            rules: rules, zone: berlin)
        #expect(weekend.blocked.map(\.reason) == [.notToday] && weekend.balances.map(\.minutesLeft) == [30])
    }

    @Test func restrictionsAndWhenTheyEnd() {
        let rules = ShieldRules(rewardDays: Set(1...5), downtime: LocalHours(start: 21, end: 7))
        #expect(rules.restriction(at: at("2026-05-07T10:00:00Z"), zone: berlin) == nil)
        #expect(rules.restriction(at: at("2026-05-07T21:30:00Z"), zone: berlin) == .downtime)  // 23:30
        #expect(rules.restrictionEnds(after: at("2026-05-07T21:30:00Z"), zone: berlin) == at("2026-05-08T05:00:00Z"))
        // Friday 23:30: downtime, then Saturday and Sunday off, then Monday's downtime to 07:00.
        #expect(rules.restriction(at: at("2026-05-09T10:00:00Z"), zone: berlin) == .notToday)
        #expect(rules.restrictionEnds(after: at("2026-05-08T21:30:00Z"), zone: berlin) == at("2026-05-11T05:00:00Z"))
        #expect(rules.restrictionEnds(after: at("2026-05-07T10:00:00Z"), zone: berlin) == nil)
        #expect(ShieldRules(rewardDays: []).restrictionEnds(after: at("2026-05-07T10:00:00Z"), zone: berlin) == nil)
        // The DST night (29 March 2026, Berlin): downtime 1 to 3 ends at the first instant after the gap.
        let short = ShieldRules(downtime: LocalHours(start: 1, end: 3))
        #expect(short.restriction(at: at("2026-03-29T00:30:00Z"), zone: berlin) == .downtime)  // 01:30
        #expect(short.restrictionEnds(after: at("2026-03-29T00:30:00Z"), zone: berlin) == at("2026-03-29T01:00:00Z"))
    }
}
