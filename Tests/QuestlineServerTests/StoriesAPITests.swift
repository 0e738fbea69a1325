import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import Testing

private typealias Preferences = Components.Schemas.StoryPreferences
/// The bodies the contract describes inline.
private struct Stories: Decodable { let stories: [Components.Schemas.StorySummary] }
private struct Comments: Decodable { let comments: [Components.Schemas.StoryComment] }
private struct Shop: Decodable { let cards: [Components.Schemas.TradingCard] }
private struct Balance: Decodable { let balance: Int }
private struct Ledger: Decodable {
    struct Entry: Decodable { let reason: String }
    let entries: [Entry]
}
private struct Tasks: Decodable {
    struct Task: Decodable {
        let id: String
        let done: Bool
    }
    let tasks: [Task]
}

/// Track stories through the real router, on the bundled content.
@Suite struct StoriesAPITests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46]

    func withContent(_ body: @escaping @Sendable (Harness, String) async throws -> Void) async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            try await StoryContentFeature(store: app.store, configuration: FeatureConfiguration())
                .installBundledContentIfEmpty()
            let (token, _) = try await app.signUp("fan@example.com", name: "Fan", timeZone: "America/Chicago")
            try await body(app, token)
        }
    }

    @Test func preferencesSearchProgressAndBookmarks() async throws {
        try await withContent { app, token in
            #expect(
                try await app.send(.get, "/api/v1/stories/preferences", token: token).decode(Preferences.self)
                    .onboarded == false)
            try await app.send(
                .put, "/api/v1/stories/preferences", json: #"{"states":["TX"],"tracks":[]}"#, token: token
            )
            .expectProblem(.badRequest, field: "tracks")
            try await app.send(
                .put, "/api/v1/stories/preferences", json: #"{"states":["ZZ"],"tracks":["texas"]}"#, token: token
            )
            .expectProblem(.badRequest, field: "states")
            #expect(
                try await app.send(.put, "/api/v1/stories/preferences", json: #"{"skip":true}"#, token: token)
                    .decode(Preferences.self).skipped)
            let chosen = try await app.send(
                .put, "/api/v1/stories/preferences", json: #"{"states":["TX"],"tracks":["texas"]}"#, token: token)
            let preferences = try chosen.decode(Preferences.self)
            #expect(preferences.onboarded && preferences.tracks == ["texas"])
            let list = try await app.send(.get, "/api/v1/stories", token: token).decode(Stories.self).stories
            #expect(list.count == 8 && list.first?.id == "texas")  // chosen tracks first

            for (query, ids) in [
                ("élan", ["laguna-seca"]), ("INDIANAPOLIS", ["indianapolis"]), ("hurricane", ["homestead"]),
            ] {
                let found = try await app.send(
                    .get, "/api/v1/stories?q=\(query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)",
                    token: token)
                #expect(try found.decode(Stories.self).stories.map(\.id) == ids, "\(query): \(found.text)")
            }
            // Opening a page records the furthest page reached.
            let page = try await app.send(.get, "/api/v1/stories/cota/chapters/1/pages/1", token: token)
            let pageView = try page.decode(Components.Schemas.StoryPageView.self)
            #expect(pageView.chapterTitle == "Esses and the stadium")
            #expect(pageView.imageUrl.hasPrefix("/content/stories/"))
            _ = try await app.send(.get, "/api/v1/stories/cota/chapters/0/pages/0", token: token)
            let story = try await app.send(.get, "/api/v1/stories/cota", token: token)
                .decode(Components.Schemas.StoryDetail.self).story
            #expect(story.reachedChapter == 1 && story.reachedPage == 1)
            try await app.send(.get, "/api/v1/stories/cota/chapters/7/pages/0", token: token).expectProblem(.notFound)
            try await app.send(.get, "/api/v1/stories/nowhere", token: token).expectProblem(.notFound)
            // Bookmarks: the same state everywhere.
            _ = try await app.send(.put, "/api/v1/stories/cota/bookmark", json: #"{"bookmarked":true}"#, token: token)
            let bookmarked = try await app.send(.get, "/api/v1/stories?bookmarked=true", token: token)
                .decode(Stories.self).stories
            #expect(bookmarked.map(\.id) == ["cota"])
            _ = try await app.send(.put, "/api/v1/stories/cota/bookmark", json: #"{"bookmarked":false}"#, token: token)
            #expect(
                try await app.send(.get, "/api/v1/stories?bookmarked=true", token: token).decode(Stories.self).stories
                    .isEmpty)
        }
    }

    @Test func commentsNewestFirstAndOnlyTheirAuthorDeletes() async throws {
        try await withContent { app, token in
            let path = "/api/v1/stories/daytona/chapters/0/comments"
            for text in ["First!", "Second"] {
                #expect(try await app.send(.post, path, json: #"{"text":"\#(text)"}"#, token: token).status == .created)
            }
            let comments = try await app.send(.get, path, token: token).decode(Comments.self).comments
            #expect(comments.map(\.text) == ["Second", "First!"] && comments.allSatisfy(\.mine))
            try await app.send(.post, path, json: #"{"text":"   "}"#, token: token).expectProblem(
                .badRequest, field: "text")
            try await app.send(.post, path, json: #"{"text":"\#(String(repeating: "a", count: 501))"}"#, token: token)
                .expectProblem(.badRequest, field: "text")
            let (other, _) = try await app.signUp("other-fan@example.com")
            let id = comments[0].id
            #expect(try await app.send(.get, path, token: other).decode(Comments.self).comments.first?.mine == false)
            try await app.send(.delete, "/api/v1/comments/\(id)", token: other).expectProblem(.forbidden)
            #expect(try await app.send(.delete, "/api/v1/comments/\(id)", token: token).status == .noContent)
            try await app.send(.delete, "/api/v1/comments/\(id)", token: token).expectProblem(.notFound)
            #expect(try await app.send(.get, path, token: token).decode(Comments.self).comments.count == 1)
        }
    }

    @Test func aSelfieUnlocksRewardsOnceAndTheShopNeverOverdraws() async throws {
        try await withContent { app, token in
            // no selfie yet
            try await app.send(.post, "/api/v1/stories/indianapolis/rewards", token: token).expectProblem(.conflict)
            try await app.sendBytes(
                .put, "/api/v1/stories/indianapolis/selfie", bytes: Array("not an image at all".utf8), token: token
            )
            .expectProblem(.badRequest, field: "selfie")
            try await app.sendBytes(
                .put, "/api/v1/stories/indianapolis/selfie", bytes: Self.png + [UInt8](repeating: 0, count: 5 << 20),
                token: token
            )
            .expectProblem(.badRequest, field: "selfie")  // over 5 MB
            try await app.sendBytes(
                .put, "/api/v1/stories/indianapolis/selfie", bytes: Self.png + [UInt8](repeating: 0, count: 6 << 20),
                token: token
            )
            .expectProblem(.contentTooLarge)  // over what the route reads at all
            #expect(
                try await app.sendBytes(.put, "/api/v1/stories/indianapolis/selfie", bytes: Self.jpeg, token: token)
                    .status == .noContent)
            let selfie = try await app.send(.get, "/api/v1/stories/indianapolis/selfie", token: token)
            #expect(selfie.status == .ok && selfie.headers[.contentType] == "application/octet-stream")
            let (other, _) = try await app.signUp("nosy@example.com")
            try await app.send(.get, "/api/v1/stories/indianapolis/selfie", token: other).expectProblem(.notFound)

            // A selfie alone is not enough: the rewards are for reading the story.
            let unread = try await app.send(.post, "/api/v1/stories/indianapolis/rewards", token: token)
            unread.expectProblem(.conflict)
            #expect(unread.text.contains("Read a chapter"))
            #expect(
                try await app.send(.get, "/api/v1/stories/indianapolis/chapters/0/pages/0", token: token).status == .ok)
            let collected = try await app.send(.post, "/api/v1/stories/indianapolis/rewards", token: token)
            #expect(collected.status == .created, "\(collected.text)")
            let reward = try collected.decode(Components.Schemas.CollectedReward.self)
            #expect(reward.points == 140 && reward.badge?.id == "brickyard")
            // once
            try await app.send(.post, "/api/v1/stories/indianapolis/rewards", token: token).expectProblem(.conflict)
            // 140 for the story, 15 for the day's selfie task (page 0 of 3 reads no chapter yet).
            #expect(try await app.send(.get, "/api/v1/points", token: token).decode(Balance.self).balance == 155)

            // The shop: by price then name; too few points is refused and changes nothing.
            let shop = try await app.send(.get, "/api/v1/shop/cards", token: token).decode(Shop.self).cards
            let prices = shop.map(\.price)
            #expect(prices == prices.sorted() && shop.count == 12)
            try await app.send(.post, "/api/v1/shop/cards/golden-brick/purchase", token: token).expectProblem(
                .conflict, field: "cardId")
            #expect(try await app.send(.get, "/api/v1/points", token: token).decode(Balance.self).balance == 155)
            let bought = try await app.send(
                .post, "/api/v1/shop/cards/pit-crew/purchase", token: token,
                headers: [HTTPField.Name("Idempotency-Key")!: "buy-1"])
            #expect(try bought.decode(Balance.self).balance == 55)
            // The same request again (a retry) does not buy twice.
            let retry = try await app.send(
                .post, "/api/v1/shop/cards/pit-crew/purchase", token: token,
                headers: [HTTPField.Name("Idempotency-Key")!: "buy-1"])
            #expect(retry.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(try retry.decode(Balance.self).balance == 55)
            try await app.send(.post, "/api/v1/shop/cards/no-such-card/purchase", token: token).expectProblem(.notFound)

            let profile = try await app.send(.get, "/api/v1/profile/stories", token: token)
                .decode(Components.Schemas.StoryProfile.self)
            let cards = profile.cards.map { "\($0.id) ×\($0.copies.map(String.init) ?? "?")" }
            // the story's card and the one bought
            #expect(cards.sorted() == ["pace-car ×1", "pit-crew ×1"], "\(cards)")
            let badges = profile.badges.filter { $0.awardedAt != nil }.map(\.id)
            #expect(Set(badges) == ["brickyard", "first-selfie", "story-finisher"], "\(badges)")
        }
    }

    /// Opening the stories is the day's check-in, reported by the list page's script by POST:
    /// loading the page (a GET) writes nothing.
    @Test func theStoriesPageChecksInByPostNotByLoading() async throws {
        try await withContent { app, token in
            let web: HTTPFields = [
                .cookie: "ql_session=\(token)", .accept: "text/html", .contentType: "application/x-www-form-urlencoded",
            ]
            #expect(try await app.send(.post, "/stories/welcome", headers: web, bodyText: "").status == .seeOther)
            #expect(
                try await app.send(.post, "/stories/choose", headers: web, bodyText: "states=TX&tracks=texas").status
                    == .seeOther)
            func checkedIn() async throws -> Bool? {
                try await app.send(.get, "/api/v1/points/tasks", token: token).decode(Tasks.self).tasks
                    .first { $0.id == "check-in" }?.done
            }
            for _ in 0..<2 {
                let list = try await app.send(.get, "/stories", headers: web)
                #expect(
                    list.status == .ok && list.text.contains(#"action="/stories/check-in" data-beacon"#),
                    "\(list.status) \(list.headers[.location] ?? "")")
            }
            #expect(try await checkedIn() == false)
            var beacon = web
            beacon[HTTPField.Name("X-Questline-Beacon")!] = "1"
            #expect(try await app.send(.post, "/stories/check-in", headers: beacon, bodyText: "").status == .noContent)
            #expect(try await checkedIn() == true)
            // Sent again (another tab), it changes nothing and is not an error.
            #expect(try await app.send(.post, "/stories/check-in", headers: beacon, bodyText: "").status == .noContent)
        }
    }

    @Test func dailyTasksCountOncePerLocalDay() async throws {
        try await withContent { app, token in
            #expect(
                try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).decode(Balance.self).balance
                    == 5)
            try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).expectProblem(.conflict)
            let tasks = try await app.send(.get, "/api/v1/points/tasks", token: token).decode(Tasks.self).tasks
            #expect(tasks.first { $0.id == "check-in" }?.done == true)
            // 10:00 UTC on 7 May is 05:00 in Chicago; the next local day starts at 05:00 UTC on 8 May.
            app.clock.set(try Date("2026-05-08T04:59:00Z", strategy: .iso8601))
            try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).expectProblem(.conflict)
            app.clock.set(try Date("2026-05-08T05:01:00Z", strategy: .iso8601))
            #expect(
                try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).decode(Balance.self).balance
                    == 10)
            try await app.send(.post, "/api/v1/points/tasks/fly-to-the-moon", token: token).expectProblem(.notFound)
        }
    }

    /// Tasks other than the check-in complete themselves when their action is done, once a day;
    /// claiming one through the API pays nothing.
    @Test func dailyTasksAreDoneByTheirActionNotByAClaim() async throws {
        try await withContent { app, token in
            let claim = try await app.send(.post, "/api/v1/points/tasks/post-a-comment", token: token)
            claim.expectProblem(.conflict)
            #expect(claim.text.contains("completes itself"))
            #expect(try await app.send(.get, "/api/v1/points", token: token).decode(Balance.self).balance == 0)
            let path = "/api/v1/stories/indianapolis/chapters/0/comments"
            #expect(try await app.send(.post, path, json: #"{"text":"First!"}"#, token: token).status == .created)
            #expect(try await app.send(.post, path, json: #"{"text":"Again"}"#, token: token).status == .created)
            #expect(try await app.send(.get, "/api/v1/points", token: token).decode(Balance.self).balance == 10)
            // The last page of a chapter is reading it.
            #expect(
                try await app.send(.get, "/api/v1/stories/indianapolis/chapters/0/pages/0", token: token).status == .ok)
            var page = 0
            while try await app.send(.get, "/api/v1/stories/indianapolis/chapters/0/pages/\(page + 1)", token: token)
                .status == .ok
            {
                page += 1
            }
            let tasks = try await app.send(.get, "/api/v1/points/tasks", token: token).decode(Tasks.self).tasks
            #expect(tasks.filter(\.done).map(\.id).sorted() == ["post-a-comment", "read-a-chapter"])
            #expect(try await app.send(.get, "/api/v1/points", token: token).decode(Balance.self).balance == 30)
        }
    }

    /// A ledger entry's reason is kept as a message and read in the reader's language; the
    /// task's title (content) stays as it is.
    @Test func ledgerReasonsAreReadInTheReadersLanguage() async throws {
        try await withContent { app, token in
            #expect(
                try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).decode(Balance.self).balance
                    == 5)
            let english = try await app.send(.get, "/api/v1/points", token: token).decode(Ledger.self)
            #expect(english.entries.map(\.reason) == ["Daily task: Open the app today"])
            let pseudo = try await app.send(.get, "/api/v1/points?uselang=qps-ploc", token: token).decode(Ledger.self)
            let reason = try #require(pseudo.entries.first?.reason)
            #expect(reason.hasPrefix("[!! ") && reason.contains("Open the app today"), "\(reason)")
            let page = try await app.send(
                .get, "/stories/points", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
            #expect(page.text.contains("<span>Daily task: Open the app today</span>"))
        }
    }

    /// Every stories page takes its words from the catalog: English reads as it did, and the
    /// pseudo-locale leaves none of those words in English.
    @Test func theStoriesPagesTakeTheirWordsFromTheCatalog() async throws {
        try await withContent { app, token in
            let web: HTTPFields = [
                .cookie: "ql_session=\(token)", .accept: "text/html", .contentType: "application/x-www-form-urlencoded",
            ]
            func page(_ path: String) async throws -> String {
                let reply = try await app.send(.get, path, headers: web)
                #expect(reply.status == .ok, "\(path): \(reply.status)")
                return reply.text
            }
            let words: [(String, [String])] = [
                ("/stories/welcome", ["Get started", "Stories from the track", "Choose a slide"]),
                ("/stories/choose", ["Which states do you follow?", "Skip This"]),
            ]
            var later: [(String, [String])] = [
                ("/stories", ["Search stories", "8 stories", "Chapter 1 of", "All race tracks"]),
                ("/stories?view=map", ["Stories on the map", "Natural Earth"]),
                (
                    "/stories/read/indianapolis",
                    ["Track Story Progress", "Reached: Not started yet (0 of ", "Collect Rewards"]
                ),
                ("/stories/read/indianapolis/0/0", ["Comments (0)", "Add a comment", "Page 1"]),
                ("/stories/points", ["Redeem your points", "Daily Tasks", "more points to go"]),
                (
                    "/stories/points?tab=tasks",
                    ["Read a chapter of any story to the end.", "Tasks complete themselves"]
                ),
                ("/stories/shop", ["points to spend", "Search cards by name", "more points needed"]),
                ("/stories/profile", ["About you", "Trading cards", "Favourite track"]),
                ("/stories/profile?tab=cards", ["No cards yet", "card shop"]),
                ("/stories/bookmarks", ["No bookmarks yet."]),
            ]
            for (path, english) in words {
                let text = try await page(path)
                for phrase in english { #expect(text.contains(phrase), "\(path): \(phrase)") }
                let pseudo = try await page(path + "?uselang=qps-ploc")
                for phrase in english { #expect(!pseudo.contains(phrase), "\(path) in qps-ploc: \(phrase)") }
            }
            #expect(try await app.send(.post, "/stories/welcome", headers: web, bodyText: "").status == .seeOther)
            #expect(
                try await app.send(.post, "/stories/choose", headers: web, bodyText: "states=TX&tracks=texas").status
                    == .seeOther)
            #expect(
                try await app.send(.get, "/api/v1/stories/daytona/chapters/0/pages/0", token: token).status == .ok)
            later.append(("/stories/read/daytona", ["Reached: Chapter 1, page 1 (1 of "]))
            for (path, english) in later {
                let text = try await page(path)
                for phrase in english { #expect(text.contains(phrase), "\(path): \(phrase)") }
                let pseudo = try await page(path + (path.contains("?") ? "&" : "?") + "uselang=qps-ploc")
                for phrase in english { #expect(!pseudo.contains(phrase), "\(path) in qps-ploc: \(phrase)") }
            }
        }
    }
}
