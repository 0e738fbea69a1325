import Benchmark
import Foundation
import QuestlineCore

/// Micro-benchmarks of the core's hot paths: what every widget refresh, game start and
/// Activity view computes. Run: `QUESTLINE_BENCHMARKS=1 swift package benchmark` (see docs/performance.md).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 20,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    // A year of history: a campaign of 400 days, a reader who read on 330 of the last 365 days
    // (every 12th day missed), 5 freezes.
    let today = LocalDay(iso: "2026-11-22")!
    let campaign = Campaign(
        id: "year", startDay: today.adding(days: -399), endDay: today.adding(days: 30), goalDays: 400,
        claimUntilDay: today.adding(days: 60), removeAfterDay: today.adding(days: 60), freezes: 5)
    let readDays = Set((0..<365).filter { $0 % 12 != 5 }.map { today.adding(days: -$0) })
    let status = ReaderStatus(loggedIn: true, joinDay: today.adding(days: -390), readDays: readDays)
    Benchmark("Widget model, a year of reads and freezes") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ReadingWidget.model(campaign: campaign, status: status, today: today))
        }
    }

    // The day's questions from a real 55-event feed (7 May, current page format).
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/QuestlineCoreTests/Fixtures/onthisday-05-07-trimmed.json")
    let feed = try! OnThisDayFeed.decode(Data(contentsOf: fixture))
    let gameDay = LocalDay(iso: "2026-05-07")!
    Benchmark("Game questions, 55-event feed") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(QuestionBuilder.build(feed, date: gameDay))
        }
    }

    // The Saved module over 5,000 saves (a year and a half of saving), in Berlin.
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let saves = (0..<5_000).map { index in
        SavedEntry(
            articleKey: "en/Article \(index % 4_000)", savedAt: now.addingTimeInterval(-Double(index) * 9_000),
            thumbnailURL: index % 3 == 0 ? "https://upload.wikimedia.org/\(index).jpg" : nil)
    }
    let berlin = TimeZoneID("Europe/Berlin")!.timeZone
    let locale = Locale(identifier: "en_US")
    Benchmark("Saved module, 5,000 saves") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(SavedModule(entries: saves, now: now, timeZone: berlin, locale: locale))
        }
    }

    // Quest progress for a child with 10,000 usage reports (about 27 a day over a year, some
    // overlapping): the timeline, then every goal type's current period and a streak from its start.
    let kid = MemberID(UUID())
    let apps = [
        QuestApp(token: "khan", name: "Khan", icon: "K", role: .learning, pointsPerMinute: 2),
        QuestApp(token: "duo", name: "Duo", icon: "D", role: .learning, pointsPerMinute: 1),
        QuestApp(token: "math", name: "Math", icon: "M", role: .learning, pointsPerMinute: 3),
        QuestApp(token: "game", name: "Game", icon: "G", role: .reward, pointsPerMinute: 0),
    ]
    let tokens = ["khan", "duo", "math", "game"]
    let questNow = Date(timeIntervalSince1970: 1_795_000_000)
    let usage = (0..<10_000).map { index in
        UsageRecord(
            token: tokens[index % 4], start: questNow.addingTimeInterval(-Double(index) * 3_150),
            seconds: 600 + (index % 7) * 300,
            zone: TimeZoneID("Europe/Berlin")!)
    }
    let questToday = LocalDay(questNow, in: berlin)
    let specs = GoalType.allCases.map { goal in
        QuestSpec(
            title: goal.rawValue, goal: goal, target: 30, period: goal == .pointsTarget ? .week : nil,
            dailyMinimumMinutes: 10,
            withinMinutes: 20, learningApps: goal == .specificApps ? ["khan"] : [],
            window: goal == .timeWindow ? DailyWindow(startMinute: 960, endMinute: 1080) : nil,
            startDay: questToday.adding(days: -364), assignee: kid)
    }
    Benchmark("Quest progress, 10,000 usage reports, nine goal types") { benchmark in
        for _ in benchmark.scaledIterations {
            let evaluator = QuestEvaluator(catalog: apps, timeline: UsageTimeline(usage))
            for spec in specs {
                if spec.goal == .streak {
                    blackHole(evaluator.streakRuns(spec, through: questToday))
                } else {
                    blackHole(evaluator.progress(spec, in: spec.period(containing: questToday)!))
                }
            }
        }
    }
}
