import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

private typealias QuestBoard = Components.Schemas.QuestBoard

/// Milestone chains through the whole service, on SQLite and PostgreSQL: a guardian sets the
/// steps, usage on each step's day drives them, the last step completes the chain once with its
/// bonus and unlock, and the next chain starts from nothing.
@Suite struct MilestoneChainAPITests {
    @Test func usageOnEachStepsDayCompletesTheChainOnce() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            app.clock.set(try Date("2026-05-07T10:00:00Z", strategy: .iso8601))  // Thursday, noon in Berlin
            let created = try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"""
                    {"title":"Ladder","goalType":"milestones","target":2,"steps":[10,20],"startDate":"2026-05-07",
                     "rewardApps":[{"appToken":"game","minutes":15}]}
                    """#, token: f.guardian)
            #expect(created.status == .created, "\(created.text)")
            let body = try created.decode(Components.Schemas.Quest.self)
            #expect(body.challenge.steps == [10, 20] && body.challenge.period == "chain")
            #expect(body.progress.unit == .steps && body.progress.periodEnd == "2026-05-08")
            #expect(body.progress.steps?.map(\.state) == [.today, .upcoming])
            #expect(body.summary == "Learn 10 then 20 minutes on 2 active days in a row, one step a day")

            let first = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([("d1", "khan", "2026-05-07T09:00:00Z", 600)]), token: f.child)
            #expect(first.status == .ok, "\(first.text)")

            app.clock.set(try Date("2026-05-08T10:00:00Z", strategy: .iso8601))
            var board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self)
            var card = try #require(board.quests.first)
            #expect(card.progress.text == "1 / 2 steps" && card.state == .inProgress)
            #expect(card.progress.steps?.map(\.state) == [.met, .today])
            #expect(card.progress.steps?.map(\.day) == ["2026-05-07", "2026-05-08"])

            let second = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([("d2", "khan", "2026-05-08T09:00:00Z", 1200)]), token: f.child)
            #expect(second.status == .ok, "\(second.text)")
            // The same report again (a retry) changes nothing.
            _ = try await app.send(
                .post, "/api/v1/children/\(f.childID)/usage",
                json: QuestAPITests().usage([("d2", "khan", "2026-05-08T09:00:00Z", 1200)]), token: f.child)
            board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(QuestBoard.self)
            card = try #require(board.quests.first)
            #expect(card.state == .completed && card.completions == 1, "\(card)")
            #expect(card.progress.text == "2 / 2 steps")
            #expect(board.balance == 60 + 6)  // 30 minutes of Khan at 2, and 10% of it
            #expect(board.grants.map(\.appToken) == ["game"])

            // The next chain starts the day after the last step, from nothing.
            app.clock.set(try Date("2026-05-09T10:00:00Z", strategy: .iso8601))
            board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.child)
                .decode(QuestBoard.self)
            card = try #require(board.quests.first)
            #expect(card.state == .inProgress && card.progress.text == "0 / 2 steps")
            #expect(card.progress.periodStart == "2026-05-09" && card.completions == 1)
        }
    }

    @Test func badStepsAreNamed() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            for steps in ["[10]", "[10,0]", "[10,20,30,40,50,60,70,80]"] {
                try await app.send(
                    .post, "/api/v1/children/\(f.childID)/quests",
                    json: #"{"title":"Ladder","goalType":"milestones","target":2,"steps":\#(steps)}"#,
                    token: f.guardian
                )
                .expectProblem(.badRequest, field: "steps")
            }
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Ladder","goalType":"milestones","target":3,"steps":[10,20]}"#, token: f.guardian
            )
            .expectProblem(.badRequest, field: "target")
            // The child cannot set quests, chains included.
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"{"title":"Ladder","goalType":"milestones","target":2,"steps":[10,20]}"#, token: f.child
            )
            .expectProblem(.forbidden)
            let board = try await app.send(.get, "/api/v1/children/\(f.childID)/quests", token: f.guardian)
                .decode(QuestBoard.self)
            #expect(board.quests.isEmpty)
        }
    }
}
