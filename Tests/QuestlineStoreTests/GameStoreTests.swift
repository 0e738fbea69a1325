import Foundation
import QuestlineCore
import QuestlineStore
import QuestlineTestSupport
import Testing

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)
private let day = LocalDay(iso: "2026-05-07")!

private func member(_ store: Store, _ email: String) async throws -> MemberID {
    let id = MemberID(UUID())
    _ = try await store.accounts.createMember(
        NewMember(
            id: id, email: email, username: nil, passwordHash: "h", displayName: "M",
            timeZone: TimeZoneID("UTC")!), now: t0, scope: .system)
    return id
}

private let questions: [GameQuestion] = {
    let feed = OnThisDayFeed(events: [
        .init(text: "A.", year: 1500), .init(text: "B.", year: 1600), .init(text: "C.", year: 1700),
    ])
    guard case .questions(let questions) = QuestionBuilder.build(feed, date: day) else { fatalError() }
    return questions
}()

@Suite struct GameStoreTests {
    @Test(arguments: TestDatabase.available)
    func feedsAreCachedPerLanguageAndDayAndReplaced(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            #expect(try await store.game.feed(language: "en", month: 5, day: 7) == nil)
            let feed = OnThisDayFeed(events: [
                .init(text: "A.", year: 1500, pages: [.init(title: "A", thumbnail: .init(source: "https://img/a.jpg"))])
            ])
            try await store.game.saveFeed(feed, language: "en", month: 5, day: 7, source: "live", now: t0)
            let cached = try await store.game.feed(language: "en", month: 5, day: 7)
            #expect(cached?.feed == feed)
            #expect(cached?.source == "live")
            #expect(try await store.game.feed(language: "de", month: 5, day: 7) == nil)
            try await store.game.saveFeed(
                OnThisDayFeed(events: []), language: "en", month: 5, day: 7, source: "import", now: t0 + 10)
            #expect(try await store.game.feed(language: "en", month: 5, day: 7)?.source == "import")
            #expect(try await store.game.feed(language: "en", month: 5, day: 7)?.feed.events.isEmpty == true)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aDateIsStartedOnceAndAnsweredInOrder(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store, "ada@example.com")
            let (first, created) = try await store.game.startSession(
                id: UUID().uuidString.lowercased(), member: ada, language: "en",
                date: day, fromArchive: false, session: GameSession(questions: questions), now: t0, scope: .system)
            #expect(created)
            let (again, createdAgain) = try await store.game.startSession(
                id: UUID().uuidString.lowercased(), member: ada, language: "en",
                date: day, fromArchive: false, session: GameSession(questions: []), now: t0, scope: .system)
            #expect(!createdAgain)
            #expect(again.id == first.id)
            #expect(again.session.questions == questions)

            let answered = try await store.game.answer(
                sessionID: first.id, 0, questions[0].answer, now: t0, scope: .system)
            #expect(answered?.1.correct == true)
            await #expect(throws: DomainError.self) {
                try await store.game.answer(sessionID: first.id, 2, .first, now: t0, scope: .system)
            }
            #expect(try await store.game.session(id: first.id)?.session.currentIndex == 1)
            for index in 1..<5 {
                _ = try await store.game.answer(
                    sessionID: first.id, index, .first, now: t0 + Double(index), scope: .system)
            }
            let done = try await store.game.session(id: first.id)
            #expect(done?.completedAt == t0 + 4)
            #expect(try await store.game.finishedGames(member: ada, language: "en").map(\.date) == [day])
            #expect(try await store.game.finishedGames(member: ada, language: "de").isEmpty)
            #expect(try await store.game.answer(sessionID: "nope", 0, .first, now: t0, scope: .system) == nil)
        }
    }

    @Test(arguments: TestDatabase.available)
    func concurrentAnswersToOneQuestionCountOnce(_ db: TestDatabase) async throws {
        try await db.withStore { store in
            let ada = try await member(store, "ada@example.com")
            let (record, _) = try await store.game.startSession(
                id: UUID().uuidString.lowercased(), member: ada, language: "en",
                date: day, fromArchive: false, session: GameSession(questions: questions), now: t0, scope: .system)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for attempt in 0..<10 {
                    group.addTask {
                        let choice: Choice = attempt.isMultiple(of: 2) ? .first : .second
                        return (try? await store.game.answer(sessionID: record.id, 0, choice, now: t0, scope: .system))
                            != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            // One choice won; retries of it succeed, the other choice is refused.
            let stored = try #require(try await store.game.session(id: record.id))
            #expect(stored.session.answers[0] != nil)
            #expect(stored.session.currentIndex == 1)
            #expect(outcomes.filter { $0 }.count == 5)
        }
    }
}
