import Foundation
import QuestlineCore
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

private let t0 = Date(timeIntervalSince1970: 1_778_400_000)  // 2026-05-10

private func child(_ store: Store) async throws -> (MemberID, HouseholdID) {
    let guardian = MemberID(UUID())
    let kid = MemberID(UUID())
    let household = HouseholdID(UUID())
    _ = try await store.accounts.createMember(
        NewMember(
            id: guardian, email: "\(guardian.rawValue)@example.com", username: nil, passwordHash: "h",
            displayName: "G", timeZone: TimeZoneID("UTC")!), now: t0, scope: .system)
    _ = try await store.accounts.createHousehold(
        id: household, name: "Home", guardian: guardian, now: t0, scope: .system)
    _ = try await store.accounts.createChild(
        NewMember(
            id: kid, email: nil, username: "k\(kid.rawValue.prefix(8))", passwordHash: "h",
            displayName: "K", timeZone: TimeZoneID("UTC")!), household: household, now: t0, scope: .system)
    return (kid, household)
}

/// Records usage of the learning app "khan" (1 point a minute) and settles it as the quests
/// feature does: plan from what is stored (core), apply the plan (store), in one transaction.
private func settle(
    _ store: Store, _ kid: MemberID, usage: [(id: String, start: Date, seconds: Int)], now: Date
) async throws -> SettlementPlan {
    try await store.quests.write(.system) { q in
        if try await q.apps(kid).isEmpty {
            try await q.putApp(
                kid, QuestApp(token: "khan", name: "Khan", icon: "📘", role: .learning, pointsPerMinute: 1), now: t0)
        }
        let reports = usage.map {
            StoredUsageReport(
                id: $0.id,
                record: UsageRecord(token: "khan", start: $0.start, seconds: $0.seconds, zone: TimeZoneID("UTC")!))
        }
        let (new, _) = try await q.insertReports(kid, reports, now: now)
        let days = Set(reports.filter { new.contains($0.id) }.map { LocalDay($0.record.start, in: .gmt) })
        try await q.points.lock(kid)
        let quests = try await q.quests(assignee: kid).filter { $0.status == .active }
        let scope = SettlementScope(quests: quests, touching: days, now: now, zone: .gmt)
        var plan = QuestSettlement.plan(
            try await q.settlementInput(kid, zone: .gmt, quests: quests, scope: scope, now: now))
        if plan.changesTotals {
            plan = QuestSettlement.withTotals(
                plan, try await q.settlementTotals(kid, for: plan, today: scope.today), today: scope.today)
        }
        try await q.apply(plan, child: kid, now: now) { UUID().uuidString.lowercased() }
        return plan
    }
}

@Suite struct QuestStoreTests {
    @Test(arguments: TestDatabase.available)
    func concurrentSpendsNeverOverdrawAndTheLedgerAddsUp(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let (kid, _) = try await child(store)
            _ = try await store.quests.write(.system) {
                try await $0.points.append(
                    kid, kind: .adjust, points: 250, reason: "start", id: UUID().uuidString, now: t0)
            }
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        do {
                            _ = try await store.quests.write(.system) {
                                try await $0.points.append(
                                    kid, kind: .redeem, points: -25, reason: "spend", id: UUID().uuidString, now: t0)
                            }
                            return true
                        } catch { return false }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 10)
            let (balance, earned) = try await store.quests.read { try await $0.points.balance(kid) }
            #expect(balance == 0 && earned == 0)
            #expect(try await store.quests.read { try await $0.points.sum(kid) } == 0)
            let entries = try await store.quests.read { try await $0.points.entries(kid, limit: 200, offset: 0) }
            #expect(entries.count == 11 && entries.allSatisfy { $0.balanceAfter >= 0 })
            #expect(entries.map(\.balanceAfter) == [0, 25, 50, 75, 100, 125, 150, 175, 200, 225, 250])
        }
    }

    @Test(arguments: TestDatabase.available)
    func reportsAreStoredOnceAndAReusedIdWithOtherContentIsReported(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let (kid, _) = try await child(store)
            let berlin = TimeZoneID("Europe/Berlin")!
            let a = StoredUsageReport(
                id: "a", record: UsageRecord(token: "khan", start: t0, seconds: 600, zone: berlin))
            let b = StoredUsageReport(
                id: "b", record: UsageRecord(token: "khan", start: t0 + 3600, seconds: 60, zone: berlin))
            let first = try await store.quests.write(.system) { try await $0.insertReports(kid, [a, b], now: t0) }
            #expect(first.new == ["a", "b"] && first.conflicting.isEmpty)
            let changed = StoredUsageReport(
                id: "b", record: UsageRecord(token: "khan", start: t0, seconds: 61, zone: berlin))
            let again = try await store.quests.write(.system) {
                try await $0.insertReports(kid, [a, changed], now: t0)
            }
            #expect(again.new.isEmpty && again.conflicting == ["b"])
            let stored = try await store.quests.read { try await $0.reports(kid, from: t0, to: t0 + 3601) }
            #expect(stored == [a.record, b.record])
        }
    }

    /// Reports read back exactly as written, whatever the token holds, in order of start, within
    /// the window (its start included, its end not).
    @Test(arguments: TestDatabase.available)
    func reportsReadBackExactlyWhateverTheTokenHolds(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let (kid, _) = try await child(store)
            let records = [
                UsageRecord(token: "com.example|odd||token|", start: t0, seconds: 1, zone: TimeZoneID("Asia/Kolkata")!),
                UsageRecord(token: "khan", start: t0 + 0.25, seconds: 43_200, zone: TimeZoneID("America/St_Johns")!),
                UsageRecord(token: "é 名|", start: t0 + 7200, seconds: 59, zone: .utc),
            ]
            let reports = records.enumerated().map { StoredUsageReport(id: "r\($0.offset)", record: $0.element) }
            _ = try await store.quests.write(.system) { try await $0.insertReports(kid, reports.reversed(), now: t0) }
            let all = try await store.quests.read { try await $0.reports(kid, from: t0, to: t0 + 7201) }
            #expect(all == records)
            let window = try await store.quests.read { try await $0.reports(kid, from: t0 + 1, to: t0 + 7200) }
            #expect(window.isEmpty)  // the end is excluded, the start included
        }
    }

    @Test(arguments: TestDatabase.available)
    func challengesRoundTripAndSettlingTwiceCompletesAndAwardsOnce(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let (kid, household) = try await child(store)
            let spec = QuestSpec(
                title: "After school", description: "Math", goal: .timeWindow, target: 30, learningApps: ["khan"],
                rewardApps: [RewardUnlock(token: "game", minutes: 15)], bonusPercent: 15, weekdays: [1, 3, 5],
                window: DailyWindow(startMinute: 960, endMinute: 1080), startDay: LocalDay(iso: "2026-05-10")!,
                endDay: LocalDay(iso: "2026-06-01")!, assignee: kid)
            let quest = Quest(
                id: QuestID(UUID()), householdID: household, spec: spec, status: .active, createdBy: kid, createdAt: t0)
            try await store.quests.write(.system) { try await $0.insertQuest(quest) }
            #expect(try await store.quests.read { try await $0.quest(quest.id) } == quest)
            // Monday 2026-05-11, 16:00 to 16:40 UTC: 40 minutes in the window.
            let monday = Date(timeIntervalSince1970: 1_778_515_200)
            let first = try await settle(store, kid, usage: [("a", monday, 40 * 60)], now: monday + 3_600)
            #expect(first.completions.map(\.periodKey) == ["2026-05-11"])
            #expect(first.grants.map(\.token) == ["game"])
            #expect(first.badges.contains("first-quest"))
            let again = try await settle(store, kid, usage: [("a", monday, 40 * 60)], now: monday + 3_700)
            #expect(again.writesNothing, "settling again changes nothing")
            #expect(again.stats == nil, "and reads no totals")
            let (balance, sum) = try await store.quests.read { q in
                (try await q.points.balance(kid).balance, try await q.points.sum(kid))
            }
            #expect(balance == sum && balance == first.credits.reduce(0) { $0 + $1.points })
            #expect(try await store.quests.read { try await $0.badges(kid) }.map(\.id).contains("first-quest"))
            #expect(try await store.quests.read { try await $0.grants(kid, unexpiredAt: monday + 3_600) }.count == 1)
            #expect(try await store.quests.write(.system) { try await $0.deleteQuest(quest.id, now: t0) })
            #expect(try await store.quests.read { try await $0.quest(quest.id) } == nil)
            #expect(
                try await store.quests.read {
                    try await $0.learningSummary(kid, today: LocalDay(t0, in: .gmt)).completions
                } == 1)  // what was completed stays
        }
    }

    @Test(arguments: TestDatabase.available)
    func completionsAreCountedOnTheChallengeAndLookedUpByPeriod(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let (kid, household) = try await child(store)
            let spec = QuestSpec(
                title: "Daily", goal: .dailyMinutes, target: 10, startDay: LocalDay(iso: "2026-05-10")!, assignee: kid)
            let quest = Quest(
                id: QuestID(UUID()), householdID: household, spec: spec, status: .active, createdBy: kid, createdAt: t0)
            try await store.quests.write(.system) { try await $0.insertQuest(quest) }
            let days = [0, 1, 1, 3].map { t0 + Double($0) * 86_400 + 3_600 }
            for (index, start) in days.enumerated() {
                _ = try await settle(store, kid, usage: [("r\(index)", start, 12 * 60)], now: t0 + 4 * 86_400)
            }
            #expect(try await store.quests.read { try await $0.quest(quest.id) }?.completions == 3)
            #expect(try await store.quests.read { try await $0.quests(assignee: kid) }.map(\.completions) == [3])
            let asked: [(quest: QuestID, periodKey: String)] = [
                (quest.id, "2026-05-11"), (quest.id, "2026-05-12"),
            ]
            #expect(
                try await store.quests.read { try await $0.completedPeriods(asked) } == [
                    CompletedPeriod(quest: quest.id, periodKey: "2026-05-11")
                ])
            #expect(
                try await store.quests.read { try await $0.learningSummary(kid, today: LocalDay(iso: "2026-05-13")!) }
                    .completions == 3)
        }
    }

    /// Learning days arrive in any order (late reports fill gaps); the runs kept in the store
    /// give the same best and current streaks as the whole list of days.
    @Test(arguments: TestDatabase.available)
    func learningRunsMatchTheStreaksOfTheWholeHistoryInAnyOrder(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            var rng = SeededGenerator(seed: 401)
            let start = LocalDay(iso: "2026-03-01")!
            for round in 0..<4 {
                let (kid, _) = try await child(store)
                let days = (0..<40).filter { _ in rng.next() % 3 != 0 }.map { start.adding(days: $0) }
                var arriving = days + days.prefix(5)  // some days settled twice
                arriving.shuffle(using: &rng)
                let now = start.adding(days: 41).start(in: .gmt)
                for (index, day) in arriving.enumerated() {
                    _ = try await settle(
                        store, kid, usage: [("d\(day.iso)-\(index)", day.start(in: .gmt) + 600, 120)], now: now)
                }
                for offset in [-1, 0, 10, 25, 39, 40, 41, 45] {
                    let today = start.adding(days: offset)
                    let expected = DayRun.runs(of: days)  // the whole history at once
                    let summary = try await store.quests.read { try await $0.learningSummary(kid, today: today) }
                    #expect(
                        summary.bestStreak == expected.map(\.length).max() ?? 0,
                        "round \(round), days \(arriving.map(\.iso))")
                    #expect(
                        DayRun.current(latest: summary.latestRun, today: today)
                            == DayRun.current(in: expected, today: today),
                        "round \(round), today \(today.iso), days \(arriving.map(\.iso))")
                }
            }
        }
    }

    /// Migration 401 builds the summaries from what earlier versions stored.
    @Test(arguments: TestDatabase.available)
    func theSummaryMigrationBackfillsTotalsRunsAndCounts(_ db: TestDatabase) async throws {
        try await db.withStore(migrate: false) { store in
            try await Migrator(Migrations.all.filter { $0.version < 401 }).migrate(store.database, now: t0)
            let (kid, household) = try await child(store)
            let spec = QuestSpec(
                title: "Daily", goal: .dailyMinutes, target: 10, startDay: LocalDay(iso: "2026-05-01")!, assignee: kid)
            let quest = Quest(
                id: QuestID(UUID()), householdID: household, spec: spec, status: .active, createdBy: kid, createdAt: t0)
            let days = ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-05", "2026-05-06", "2026-05-09"].map {
                LocalDay(iso: $0)!
            }
            try await store.quests.write(.system) { try await $0.insertQuest(quest) }
            try await store.database.withConnection { db in
                let earnings = days.enumerated().map { ($1, 10 + $0) } + [(LocalDay(iso: "2026-05-04")!, 0)]
                for (day, minutes) in earnings {
                    try await db.raw(
                        """
                        INSERT INTO quest_earnings (child_id, token, local_day, minutes, points)
                        VALUES (\(bind: kid.rawValue), 'khan', \(bind: day.iso), \(bind: minutes), 10)
                        """
                    ).run()
                }
                for key in ["2026-05-01", "2026-05-02"] {
                    try await db.raw(
                        """
                        INSERT INTO quest_completions (challenge_id, period_key, child_id, value, bonus, completed_at)
                        VALUES (\(bind: quest.id.rawValue), \(bind: key), \(bind: kid.rawValue), 10, 1, 0)
                        """
                    ).run()
                }
            }
            try await Migrator().migrate(store.database, now: t0)
            let summary = try await store.quests.read {
                try await $0.learningSummary(kid, today: LocalDay(iso: "2026-05-07")!)
            }
            #expect(
                summary
                    == LearningSummary(
                        learningMinutes: 75, completions: 2, bestStreak: 3,
                        latestRun: DayRun(first: LocalDay(iso: "2026-05-05")!, last: LocalDay(iso: "2026-05-06")!)))
            #expect(try await store.quests.read { try await $0.quest(quest.id) }?.completions == 2)
        }
    }
}

@Suite struct StoryStoreTests {
    @Test(arguments: TestDatabase.available)
    func contentAndBinaryAssetsAreReplacedAsAWhole(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            #expect(try await store.stories.content() == nil)
            var content = StoryContent.empty
            content.states = [StoryState(code: "CA", name: "California")]
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x10]
            try await store.stories.replaceContent(
                content,
                assets: [
                    StoryAsset(path: "a/b.png", contentType: "image/png", bytes: png),
                    StoryAsset(path: "old.svg", contentType: "image/svg+xml", bytes: Array("<svg/>".utf8)),
                ],
                now: t0)
            #expect(try await store.stories.content()?.content == content)
            #expect(try await store.stories.asset("a/b.png")?.bytes == png)
            content.states.append(StoryState(code: "TX", name: "Texas"))
            try await store.stories.replaceContent(
                content, assets: [StoryAsset(path: "a/b.png", contentType: "image/png", bytes: [1, 2, 3])], now: t0)
            #expect(try await store.stories.content()?.content.states.count == 2)
            #expect(try await store.stories.asset("old.svg") == nil)
            #expect(try await store.stories.asset("a/b.png")?.bytes == [1, 2, 3])
            #expect(try await store.stories.assetCount() == 1)
        }
    }
}
