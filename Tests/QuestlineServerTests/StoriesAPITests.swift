import Foundation
import HTTPTypes
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import Testing

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
                try await app.send(.get, "/api/v1/stories/preferences", token: token).object["onboarded"] as? Bool
                    == false)
            try await app.send(
                .put, "/api/v1/stories/preferences", json: #"{"states":["TX"],"tracks":[]}"#, token: token
            )
            .expectProblem(.badRequest, field: "tracks")
            try await app.send(
                .put, "/api/v1/stories/preferences", json: #"{"states":["ZZ"],"tracks":["texas"]}"#, token: token
            )
            .expectProblem(.badRequest, field: "states")
            #expect(
                try await app.send(.put, "/api/v1/stories/preferences", json: #"{"skip":true}"#, token: token).object[
                    "skipped"] as? Bool == true)
            let chosen = try await app.send(
                .put, "/api/v1/stories/preferences", json: #"{"states":["TX"],"tracks":["texas"]}"#, token: token)
            #expect(chosen.object["onboarded"] as? Bool == true && chosen.object["tracks"] as? [String] == ["texas"])
            let list =
                try await app.send(.get, "/api/v1/stories", token: token).object["stories"] as? [[String: Any]] ?? []
            #expect(list.count == 8 && list.first?["id"] as? String == "texas")  // chosen tracks first

            for (query, ids) in [
                ("élan", ["laguna-seca"]), ("INDIANAPOLIS", ["indianapolis"]), ("hurricane", ["homestead"]),
            ] {
                let found = try await app.send(
                    .get, "/api/v1/stories?q=\(query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)",
                    token: token)
                #expect(
                    (found.object["stories"] as? [[String: Any]])?.map { $0["id"] as? String ?? "" } == ids,
                    "\(query): \(found.text)")
            }
            // Opening a page records the furthest page reached.
            let page = try await app.send(.get, "/api/v1/stories/cota/chapters/1/pages/1", token: token)
            #expect(
                page.object["chapterTitle"] as? String == "Esses and the stadium"
                    && (page.object["imageUrl"] as? String)?.hasPrefix("/content/stories/") == true)
            _ = try await app.send(.get, "/api/v1/stories/cota/chapters/0/pages/0", token: token)
            let story = try await app.send(.get, "/api/v1/stories/cota", token: token).object["story"] as? [String: Any]
            #expect(story?["reachedChapter"] as? Int == 1 && story?["reachedPage"] as? Int == 1)
            try await app.send(.get, "/api/v1/stories/cota/chapters/7/pages/0", token: token).expectProblem(.notFound)
            try await app.send(.get, "/api/v1/stories/nowhere", token: token).expectProblem(.notFound)
            // Bookmarks: the same state everywhere.
            _ = try await app.send(.put, "/api/v1/stories/cota/bookmark", json: #"{"bookmarked":true}"#, token: token)
            let bookmarked =
                try await app.send(.get, "/api/v1/stories?bookmarked=true", token: token).object["stories"]
                as? [[String: Any]]
            #expect(bookmarked?.map { $0["id"] as? String ?? "" } == ["cota"])
            _ = try await app.send(.put, "/api/v1/stories/cota/bookmark", json: #"{"bookmarked":false}"#, token: token)
            #expect(
                (try await app.send(.get, "/api/v1/stories?bookmarked=true", token: token).object["stories"] as? [Any])?
                    .isEmpty == true)
        }
    }

    @Test func commentsNewestFirstAndOnlyTheirAuthorDeletes() async throws {
        try await withContent { app, token in
            let path = "/api/v1/stories/daytona/chapters/0/comments"
            for text in ["First!", "Second"] {
                #expect(try await app.send(.post, path, json: #"{"text":"\#(text)"}"#, token: token).status == .created)
            }
            let comments = try await app.send(.get, path, token: token).object["comments"] as? [[String: Any]] ?? []
            #expect(
                comments.map { $0["text"] as? String ?? "" } == ["Second", "First!"]
                    && comments.allSatisfy { $0["mine"] as? Bool == true })
            try await app.send(.post, path, json: #"{"text":"   "}"#, token: token).expectProblem(
                .badRequest, field: "text")
            try await app.send(.post, path, json: #"{"text":"\#(String(repeating: "a", count: 501))"}"#, token: token)
                .expectProblem(.badRequest, field: "text")
            let (other, _) = try await app.signUp("other-fan@example.com")
            let id = comments[0]["id"] as? String ?? ""
            #expect(
                (try await app.send(.get, path, token: other).object["comments"] as? [[String: Any]])?.first?["mine"]
                    as? Bool == false)
            try await app.send(.delete, "/api/v1/comments/\(id)", token: other).expectProblem(.forbidden)
            #expect(try await app.send(.delete, "/api/v1/comments/\(id)", token: token).status == .noContent)
            try await app.send(.delete, "/api/v1/comments/\(id)", token: token).expectProblem(.notFound)
            #expect((try await app.send(.get, path, token: token).object["comments"] as? [Any])?.count == 1)
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

            let collected = try await app.send(.post, "/api/v1/stories/indianapolis/rewards", token: token)
            #expect(collected.status == .created, "\(collected.text)")
            #expect(
                collected.object["points"] as? Int == 140
                    && (collected.object["badge"] as? [String: Any])?["id"] as? String == "brickyard")
            // once
            try await app.send(.post, "/api/v1/stories/indianapolis/rewards", token: token).expectProblem(.conflict)
            #expect(try await app.send(.get, "/api/v1/points", token: token).object["balance"] as? Int == 140)

            // The shop: by price then name; too few points is refused and changes nothing.
            let shop =
                try await app.send(.get, "/api/v1/shop/cards", token: token).object["cards"] as? [[String: Any]] ?? []
            let prices = shop.map { $0["price"] as? Int ?? 0 }
            #expect(prices == prices.sorted() && shop.count == 12)
            try await app.send(.post, "/api/v1/shop/cards/golden-brick/purchase", token: token).expectProblem(
                .conflict, field: "cardId")
            #expect(try await app.send(.get, "/api/v1/points", token: token).object["balance"] as? Int == 140)
            let bought = try await app.send(
                .post, "/api/v1/shop/cards/pit-crew/purchase", token: token,
                headers: [HTTPField.Name("Idempotency-Key")!: "buy-1"])
            #expect(bought.object["balance"] as? Int == 40)
            // The same request again (a retry) does not buy twice.
            let retry = try await app.send(
                .post, "/api/v1/shop/cards/pit-crew/purchase", token: token,
                headers: [HTTPField.Name("Idempotency-Key")!: "buy-1"])
            #expect(
                retry.headers[HTTPField.Name("Idempotent-Replayed")!] == "true" && retry.object["balance"] as? Int == 40
            )
            try await app.send(.post, "/api/v1/shop/cards/no-such-card/purchase", token: token).expectProblem(.notFound)

            let profile = try await app.send(.get, "/api/v1/profile/stories", token: token).object
            let cards = (profile["cards"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "") ×\($0["copies"] ?? "")" }
            // the story's card and the one bought
            #expect(cards.sorted() == ["pace-car ×1", "pit-crew ×1"], "\(cards)")
            let badges = (profile["badges"] as? [[String: Any]] ?? []).filter { $0["awardedAt"] != nil }.map {
                $0["id"] as? String ?? ""
            }
            #expect(Set(badges) == ["brickyard", "first-selfie", "story-finisher"], "\(badges)")
        }
    }

    @Test func dailyTasksCountOncePerLocalDay() async throws {
        try await withContent { app, token in
            #expect(
                try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).object["balance"] as? Int == 5)
            try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).expectProblem(.conflict)
            let tasks =
                try await app.send(.get, "/api/v1/points/tasks", token: token).object["tasks"] as? [[String: Any]] ?? []
            #expect(tasks.first { $0["id"] as? String == "check-in" }?["done"] as? Bool == true)
            // 10:00 UTC on 7 May is 05:00 in Chicago; the next local day starts at 05:00 UTC on 8 May.
            app.clock.set(try Date("2026-05-08T04:59:00Z", strategy: .iso8601))
            try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).expectProblem(.conflict)
            app.clock.set(try Date("2026-05-08T05:01:00Z", strategy: .iso8601))
            #expect(
                try await app.send(.post, "/api/v1/points/tasks/check-in", token: token).object["balance"] as? Int == 10
            )
            try await app.send(.post, "/api/v1/points/tasks/fly-to-the-moon", token: token).expectProblem(.notFound)
        }
    }
}
