import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

private func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }
private typealias Activity = Components.Schemas.Activity
private typealias SavedList = Components.Schemas.SavedList
private typealias ImportResult = Components.Schemas.ImportResult
/// The bodies the contract describes inline.
private struct Saved: Decodable { let saved: Bool }
private struct Recorded: Decodable { let recorded: Int }

@Suite struct ActivityAPITests {
    private func save(_ app: Harness, _ token: String, _ title: String, list: String? = nil, thumbnail: String? = nil)
        async throws -> Reply
    {
        var body = #"{"language":"en","title":"\#(title)""#
        if let list { body += #","readingList":"\#(list)""# }
        if let thumbnail { body += #","thumbnailUrl":"\#(thumbnail)""# }
        return try await app.send(.post, "/api/v1/saved", json: body + "}", token: token)
    }

    @Test func theSavedModuleCountsTheLast30LocalDays() async throws {
        try await Harness.run(sessionLifetime: 90 * 86_400) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "Europe/Berlin")
            let empty = try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self)
            #expect(empty.saved.count == 0)

            app.clock.set(at("2026-04-10T21:59:00Z"))  // 23:59 on 10 April in Berlin
            _ = try await save(app, token, "Too old")
            app.clock.set(at("2026-04-10T22:01:00Z"))  // 00:01 on 11 April in Berlin
            _ = try await save(app, token, "Just in", thumbnail: "https://upload.wikimedia.org/in.jpg")
            app.clock.set(at("2026-05-10T09:00:00Z"))
            _ = try await save(app, token, "Octopus")
            _ = try await save(app, token, "Octopus", list: "Sea")  // an article in two lists counts once
            let repeatSave = try await save(app, token, "Octopus")
            #expect(try repeatSave.decode(Saved.self).saved == false)

            app.clock.set(at("2026-05-10T13:00:00Z"))
            let saved = try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self).saved
            #expect(saved.count == 2)  // "Just in" and "Octopus"
            // Without `locale`, the request's language (English writes days and times as en_GB).
            #expect(saved.lastSavedText == "11:00")
            let american = try await app.send(.get, "/api/v1/activity?locale=en_US", token: token)
                .decode(Activity.self)
            #expect(american.saved.lastSavedText?.replacingOccurrences(of: "\u{202F}", with: " ") == "11:00 AM")
            #expect(saved.thumbnails == ["https://upload.wikimedia.org/in.jpg"])
            let german = try await app.send(.get, "/api/v1/activity?locale=de_DE", token: token).decode(Activity.self)
            #expect(german.saved.lastSavedText == "11:00")
            app.clock.set(at("2026-05-12T13:00:00Z"))
            let later = try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self)
            #expect(later.saved.lastSavedText == "10 May")

            let list = try await app.send(.get, "/api/v1/saved", token: token).decode(SavedList.self)
            #expect(list.articles.first?.title == "Octopus")
            #expect(list.articles.first?.lists == ["", "Sea"])
            #expect(list.total == 4)
        }
    }

    @Test func unsaveThenResaveCountsAgainAndUnknownUnsavesAre404() async throws {
        try await Harness.run(sessionLifetime: 90 * 86_400) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            _ = try await save(app, token, "Octopus")
            _ = try await save(app, token, "Octopus", list: "Sea")
            #expect(
                try await app.send(.delete, "/api/v1/saved?language=en&title=Octopus&readingList=Sea", token: token)
                    .status == .noContent)
            #expect(try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self).saved.count == 1)
            #expect(
                try await app.send(.delete, "/api/v1/saved?language=en&title=Octopus", token: token).status
                    == .noContent)
            #expect(try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self).saved.count == 0)
            try await app.send(.delete, "/api/v1/saved?language=en&title=Octopus", token: token).expectProblem(
                .notFound)
            app.clock.advance(by: 3600)
            _ = try await save(app, token, "Octopus")
            let resaved = try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self).saved
            #expect(resaved.count == 1)
            #expect(resaved.lastSavedAt == at("2026-05-07T11:00:00Z"))
        }
    }

    @Test func badSavesAndImportsNameTheItemAndWriteNothing() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            try await save(app, token, "  ").expectProblem(.badRequest, field: "title")
            try await app.send(.post, "/api/v1/saved", json: #"{"language":"klingon","title":"Qapla"}"#, token: token)
                .expectProblem(.badRequest, field: "language")
            let items =
                #"[{"language":"en","title":"Fine","savedAt":"2026-01-01T00:00:00Z"},{"language":"en","title":"","savedAt":null}]"#
            try await app.send(
                .post, "/api/v1/saved/import", json: #"{"importId":"x","total":2,"offset":0,"items":\#(items)}"#,
                token: token
            )
            .expectProblem(.badRequest, field: "items[1].title")
            let future = #"[{"language":"en","title":"Later","savedAt":"2027-01-01T00:00:00Z"}]"#
            try await app.send(
                .post, "/api/v1/saved/import", json: #"{"importId":"x","total":1,"offset":0,"items":\#(future)}"#,
                token: token
            )
            .expectProblem(.badRequest, field: "items[0].savedAt")
            let many =
                "["
                + Array(repeating: #"{"language":"en","title":"A","savedAt":null}"#, count: 501).joined(separator: ",")
                + "]"
            let tooMany = try await app.send(
                .post, "/api/v1/saved/import", json: #"{"importId":"x","total":501,"offset":0,"items":\#(many)}"#,
                token: token)
            #expect(tooMany.status == .badRequest)
            #expect(try await app.send(.get, "/api/v1/saved", token: token).decode(SavedList.self).total == 0)
            try await app.send(.get, "/api/v1/activity?locale=xx_YY!", token: token).expectProblem(
                .badRequest, field: "locale")
            try await app.send(.get, "/api/v1/activity").expectProblem(.unauthorized)
        }
    }

    @Test func importsReportItemsWithoutDatesAndIgnoreARepeatedBatch() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let items =
                #"[{"language":"en","title":"Dated","savedAt":"2024-01-01T00:00:00Z"},{"language":"en","title":"List only","savedAt":null,"readingListCreatedAt":"2023-06-01T00:00:00Z","readingList":"Old"},{"language":"de","title":"No date"}]"#
            let body = #"{"importId":"phone","total":3,"offset":0,"items":\#(items)}"#
            let first = try await app.send(.post, "/api/v1/saved/import", json: body, token: token)
            #expect(first.status == .ok, "\(first.text)")
            let result = try first.decode(ImportResult.self)
            #expect(result.imported == 2)
            #expect(result.needsDate.map(\.title) == ["No date"])
            #expect(result.progress.done == 3)
            let again = try await app.send(.post, "/api/v1/saved/import", json: body, token: token)
                .decode(ImportResult.self)
            #expect(again.alreadyCommitted)
            #expect(again.imported == 0)
            let listed = try await app.send(.get, "/api/v1/saved", token: token).decode(SavedList.self)
            #expect(listed.total == 2)
            #expect(listed.articles.first { $0.title == "List only" }?.savedAt == at("2023-06-01T00:00:00Z"))
        }
    }

    @Test func readingTimeAndReadsFeedTheInsights() async throws {
        try await Harness.run(sessionLifetime: 90 * 86_400) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let intervals =
                #"{"intervals":[{"eventId":"t1","start":"2026-05-07T08:00:00Z","end":"2026-05-07T08:10:00Z","timeZone":"UTC"},{"eventId":"t2","start":"2026-05-06T08:00:00Z","end":"2026-05-06T12:00:00Z","timeZone":"UTC"},{"eventId":"t3","start":"2026-05-06T08:00:00Z","end":"2026-05-06T07:00:00Z","timeZone":"UTC"}]}"#
            let recorded = try await app.send(.post, "/api/v1/activity/reading-time", json: intervals, token: token)
            #expect(try recorded.decode(Recorded.self).recorded == 3)
            #expect(
                try await app.send(.post, "/api/v1/activity/reading-time", json: intervals, token: token)
                    .decode(Recorded.self).recorded == 0)
            for (index, day) in ["2026-05-05", "2026-05-06", "2026-05-07"].enumerated() {
                _ = try await app.send(
                    .post, "/api/v1/reading/reads", token: token, headers: [:],
                    bodyJSON:
                        #"{"eventId":"r\#(index)","articleId":"A\#(index % 2)","title":"A","language":"en","at":"\#(day)T09:00:00Z","timeZone":"UTC"}"#
                )
            }
            let activity = try await app.send(.get, "/api/v1/activity", token: token).decode(Activity.self)
            #expect(activity.secondsRead7Days == 600 + 3600)
            #expect(activity.articlesRead30Days == 2)
            #expect(activity.currentStreak == 3)
            #expect(activity.timeline.count == 7)
            #expect(activity.timeline.last?.day == "2026-05-07")
            #expect(activity.timeline.last?.reads == 1)
        }
    }
}

extension Harness {
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String?, headers: HTTPFields, bodyJSON: String)
        async throws -> Reply
    {
        try await send(method, uri, json: bodyJSON, token: token, headers: headers)
    }
}
