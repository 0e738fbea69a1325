import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import SQLKit
import Testing

/// A local stand-in for Wikipedia's APIs: the paths the client uses, answering with responses
/// shaped like the real ones (from the API documentation: the REST page summary and the
/// core REST title search), plus a missing page (404), a busy one (429 with Retry-After) and a
/// slow one. It counts the requests it answers.
struct WikipediaStandIn {
    let hits = NIOLockedValueBox<[String]>([])
    let userAgents = NIOLockedValueBox<Set<String>>([])
    /// The description the summary of Napoleon gives (changed to see a refresh land).
    let napoleonDescription = NIOLockedValueBox("French emperor (1769–1821)")

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func summaryJSON(_ title: String, description: String, image: String?) -> String {
        let thumbnail =
            image.map { #","thumbnail":{"source":"\#($0)","width":320,"height":400}"# } ?? ""
        return #"""
            {"type":"standard","title":"\#(title.replacingOccurrences(of: " ", with: "_"))","displaytitle":"<span class=\"mw-page-title-main\">\#(title)</span>","namespace":{"id":0,"text":""},"titles":{"canonical":"\#(title.replacingOccurrences(of: " ", with: "_"))","normalized":"\#(title)","display":"\#(title)"},"pageid":69880,"lang":"en","dir":"ltr","description":"\#(description)","description_source":"local","extract":"\#(title) is an article with a real extract for the test.","extract_html":"<p>\#(title)</p>"\#(thumbnail),"content_urls":{"desktop":{"page":"https://en.wikipedia.org/wiki/\#(title.replacingOccurrences(of: " ", with: "_"))"}}}
            """#
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        @Sendable func seen(_ request: Request) {
            hits.withLockedValue { $0.append(request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")) }
            userAgents.withLockedValue { _ = $0.insert(request.headers[.userAgent] ?? "") }
        }
        router.get("/w/rest.php/v1/search/title") { request, _ -> Response in
            seen(request)
            guard request.uri.queryParameters["q"] == "Napoleon" else { return Self.json(#"{"pages":[]}"#) }
            return Self.json(
                #"""
                {"pages":[
                 {"id":69880,"key":"Napoleon","title":"Napoleon","excerpt":"<span class=\"searchmatch\">Napoleon</span> Bonaparte","matched_title":null,"description":"French emperor (1769–1821)","thumbnail":{"mimetype":"image/jpeg","width":60,"height":75,"duration":null,"url":"//upload.wikimedia.org/wikipedia/commons/thumb/5/50/Jacques-Louis_David_-_The_Emperor_Napoleon_in_His_Study_at_the_Tuileries_-_Google_Art_Project.jpg/60px-Jacques-Louis_David_-_The_Emperor_Napoleon_in_His_Study_at_the_Tuileries_-_Google_Art_Project.jpg"}},
                 {"id":21255,"key":"Napoleon_III","title":"Napoleon III","excerpt":"<span class=\"searchmatch\">Napoleon</span> III","matched_title":null,"description":"Emperor of the French from 1852 to 1870","thumbnail":{"mimetype":"image/jpeg","width":60,"height":80,"duration":null,"url":"//upload.wikimedia.org/wikipedia/commons/thumb/2/2e/Franz_Xaver_Winterhalter_Napoleon_III.jpg/60px-Franz_Xaver_Winterhalter_Napoleon_III.jpg"}},
                 {"id":4455,"key":"Napoleonic_Wars","title":"Napoleonic Wars","excerpt":"<span class=\"searchmatch\">Napoleonic</span> Wars","matched_title":null,"description":"1803–1815 wars in Europe","thumbnail":null}
                ]}
                """#)
        }
        router.get("/api/rest_v1/page/random/summary") { request, _ -> Response in
            seen(request)
            return Self.json(
                summaryJSON(
                    "Octopus", description: "Soft-bodied eight-limbed mollusc",
                    image: "https://upload.wikimedia.org/wikipedia/commons/thumb/5/57/Octopus2.jpg/320px-Octopus2.jpg"))
        }
        // Media lists shaped like the REST API's (`items[]` with `type`, `leadImage`, `srcset`).
        router.get("/api/rest_v1/page/media-list/:title") { request, context -> Response in
            seen(request)
            switch context.parameters.get("title") ?? "" {
            case "Treaty_of_Lausanne":  // a video and the lede only: no body image
                return Self.json(
                    #"""
                    {"revision":"1","tid":"a","items":[
                     {"title":"File:Lausanne.webm","leadImage":false,"section_id":1,"type":"video","showInGallery":true,"sources":[]},
                     {"title":"File:Lede.jpg","leadImage":true,"section_id":0,"type":"image","showInGallery":true,"srcset":[{"src":"//upload.wikimedia.org/wikipedia/commons/thumb/a/a0/Lede.jpg/640px-Lede.jpg","scale":"1x"}]}
                    ]}
                    """#)
            case "Republic_of_Turkey":
                return Self.json(
                    #"""
                    {"revision":"2","tid":"b","items":[
                     {"title":"File:Ankara_1923.jpg","leadImage":false,"section_id":2,"type":"image","showInGallery":true,"caption":{"html":"Ankara","text":"Ankara"},"srcset":[{"src":"//upload.wikimedia.org/wikipedia/commons/thumb/1/1b/Ankara_1923.jpg/640px-Ankara_1923.jpg","scale":"1x"},{"src":"//upload.wikimedia.org/wikipedia/commons/thumb/1/1b/Ankara_1923.jpg/1280px-Ankara_1923.jpg","scale":"2x"}]}
                    ]}
                    """#)
            default:
                return Self.json(
                    #"{"type":"https://mediawiki.org/wiki/HyperSwitch/errors/not_found","title":"Not found.","status":404}"#,
                    status: .notFound)
            }
        }
        router.get("/api/rest_v1/page/summary/:title") { request, context -> Response in
            seen(request)
            switch context.parameters.get("title") ?? "" {
            case "Napoleon", "Bonaparte":  // "Bonaparte" redirects: Wikipedia answers with Napoleon
                return Self.json(
                    summaryJSON(
                        "Napoleon", description: napoleonDescription.withLockedValue { $0 },
                        image:
                            "https://upload.wikimedia.org/wikipedia/commons/thumb/5/50/Napoleon.jpg/320px-Napoleon.jpg")
                )
            case "AC%2FDC", "AC/DC":
                return Self.json(summaryJSON("AC/DC", description: "Australian rock band", image: nil))
            case "Busy":
                var response = Self.json(
                    #"{"type":"https://mediawiki.org/wiki/HyperSwitch/errors/too_many_requests"}"#,
                    status: .tooManyRequests)
                response.headers[.retryAfter] = "30"
                return response
            case "Slow":
                try await Task.sleep(for: .seconds(3))
                return Self.json(summaryJSON("Slow", description: "Late", image: nil))
            default:
                return Self.json(
                    #"{"type":"https://mediawiki.org/wiki/HyperSwitch/errors/not_found","title":"Not found.","status":404}"#,
                    status: .notFound)
            }
        }
        return router
    }

    /// Runs `body` with the stand-in listening on a local port, and a client pointed at it.
    func run(timeout: TimeAmount = .seconds(2), _ body: @Sendable (WikimediaClient) async throws -> Void)
        async throws
    {
        let app = Application(router: router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(WikimediaClient(template: "http://127.0.0.1:\(port)", timeout: timeout))
        }
    }
}

@Suite struct WikiTests {
    @Test func theClientSearchesReadsSummariesAndMapsStatuses() async throws {
        let standIn = WikipediaStandIn()
        try await standIn.run { wiki in
            let found = try await wiki.search("Napoleon", language: "en", limit: 10)
            #expect(found.map(\.title) == ["Napoleon", "Napoleon III", "Napoleonic Wars"])
            // Protocol-relative thumbnails made absolute; none where the result has none.
            #expect(
                found[0].thumbnail?.source.hasPrefix("https://upload.wikimedia.org/wikipedia/commons/thumb/5/50/")
                    == true)
            #expect(found[2].thumbnail == nil && found[2].description == "1803–1815 wars in Europe")
            #expect(standIn.hits.withLockedValue { $0 }.last == "/w/rest.php/v1/search/title?q=Napoleon&limit=10")

            let napoleon = try #require(try await wiki.summary("Napoleon", language: "en"))
            #expect(napoleon.extract.hasPrefix("Napoleon is an article") && napoleon.thumbnail?.width == 320)
            #expect(napoleon.pageURL == "https://en.wikipedia.org/wiki/Napoleon")
            // A slash in a title is part of it, not a path.
            #expect(try await wiki.summary("AC/DC", language: "en")?.title == "AC/DC")
            #expect(standIn.hits.withLockedValue { $0 }.last == "/api/rest_v1/page/summary/AC%2FDC")
            #expect(try await wiki.summary("No such page", language: "en") == nil)
            #expect(try await wiki.random(language: "en").title == "Octopus")
            // The product and a contact, as Wikimedia's policy asks.
            #expect(
                standIn.userAgents.withLockedValue { $0 }.allSatisfy {
                    $0.hasPrefix("Questline/") && $0.contains("contact")
                })

            // Too slow: the timeout ends the wait.
            await #expect(throws: WikiUnavailable.self) { try await wiki.summary("Slow", language: "en") }

            // 429: nothing more is asked until Retry-After has passed.
            await #expect(throws: WikiUnavailable.self) { try await wiki.summary("Busy", language: "en") }
            let asked = standIn.hits.withLockedValue { $0.count }
            do {
                _ = try await wiki.search("Napoleon", language: "en", limit: 10)
                Issue.record("a search went out while rate limited")
            } catch let WikiUnavailable.rateLimited(until) {
                #expect(until.timeIntervalSinceNow > 25)
            }
            #expect(standIn.hits.withLockedValue { $0.count } == asked)
        }
    }

    @Test func summariesAreCachedServedStaleWhileRefreshedAndFallBackToThePack() async throws {
        let standIn = WikipediaStandIn()
        try await standIn.run { client in
            try await Harness.run(wikiFetcher: client) { app in
                let features = FeatureConfiguration(clock: app.clock, wikiFetcher: client)
                let wiki = WikiContent(store: app.store, configuration: features)
                // The body runs once per database, against the same stand-in.
                standIn.napoleonDescription.withLockedValue { $0 = "French emperor (1769–1821)" }
                let before = standIn.hits.withLockedValue { $0.count }
                #expect(
                    try #require(await wiki.summary("Napoleon", language: "en")).description
                        == "French emperor (1769–1821)")
                // Cached: the second read asks nobody.
                _ = await wiki.summary("Napoleon", language: "en")
                #expect(standIn.hits.withLockedValue { $0.count } == before + 1)
                // A week later it is stale: served at once, refreshed behind.
                standIn.napoleonDescription.withLockedValue { $0 = "Emperor of the French" }
                app.clock.advance(by: WikiContent.lifetime + 60)
                #expect(await wiki.summary("Napoleon", language: "en")?.description == "French emperor (1769–1821)")
                await wiki.settle()
                #expect(await wiki.summary("Napoleon", language: "en")?.description == "Emperor of the French")
                // Not waiting: a summary never read is fetched behind, and there next time.
                #expect(await wiki.summary("AC/DC", language: "en", wait: false) == nil)
                await wiki.settle()
                #expect(await wiki.summary("AC/DC", language: "en", wait: false)?.description == "Australian rock band")
                // A redirect is kept under the title asked for too: the second ask asks nobody.
                #expect(await wiki.summary("Bonaparte", language: "en")?.title == "Napoleon")
                let afterRedirect = standIn.hits.withLockedValue { $0.count }
                #expect(await wiki.summary("Bonaparte", language: "en")?.title == "Napoleon")
                #expect(standIn.hits.withLockedValue { $0.count } == afterRedirect)
                // A pack article needs no Wikipedia; an unknown one is nil.
                #expect(await wiki.summary("Indian Army", language: "en")?.thumbnail != nil)
                #expect(await wiki.summary("No such page", language: "en") == nil)

                // Through the API: Wikipedia's search, with thumbnails; the summary of a result.
                let list = try await app.send(.get, "/api/v1/reading/articles?q=Napoleon")
                    .decode(Components.Schemas.ArticleList.self)
                #expect(list.source == .wikipedia && list.articles.first?.title == "Napoleon")
                #expect(list.articles.first?.thumbnailUrl?.hasPrefix("https://upload.wikimedia.org/") == true)
                let summary = try await app.send(.get, "/api/v1/reading/articles/summary?title=Napoleon")
                    .decode(Components.Schemas.Article.self)
                #expect(summary.extract?.isEmpty == false && summary.url == "https://en.wikipedia.org/wiki/Napoleon")
                try await app.send(.get, "/api/v1/reading/articles/summary?title=No%20such%20page")
                    .expectProblem(.notFound)
                try await app.send(.get, "/api/v1/reading/articles/summary?title=A%7CB")
                    .expectProblem(.badRequest, field: "title")
                try await app.send(.get, "/api/v1/reading/articles?q=x&language=klingon!")
                    .expectProblem(.badRequest, field: "language")
                #expect(
                    try await app.send(.get, "/api/v1/reading/articles/random").decode(Components.Schemas.Article.self)
                        .title == "Octopus")
            }
        }
    }

    /// Seed 004: a card whose pages have no lede image takes the first body image of its pages,
    /// asked in order (the media list); a card with a lede image asks nothing more; a page that
    /// is missing (404) leaves the card without an image.
    @Test func gameCardsTakeABodyImageWhenNoPageHasALedeImage() async throws {
        let standIn = WikipediaStandIn()
        try await standIn.run { client in
            let page = { (title: String, thumbnail: String?) in
                OnThisDayFeed.Page(title: title, thumbnail: thumbnail.map { .init(source: $0) })
            }
            let feed = OnThisDayFeed(events: [
                .init(
                    text: "The Republic of Turkey is proclaimed.", year: 1923,
                    pages: [page("Treaty of Lausanne", nil), page("Republic of Turkey", nil), page("Ankara", nil)]),
                .init(
                    text: "A lede image on the second page.", year: 1950,
                    pages: [page("Nothing here", nil), page("Pictured", "https://upload.wikimedia.org/p.jpg")]),
                .init(text: "No page has an image anywhere.", year: 1960, pages: [page("No such page", nil)]),
            ])
            try await TestDatabase.sqlite.withStore { store in
                let game = GameFeature(
                    store: store,
                    configuration: FeatureConfiguration(feedFetcher: StaticFeed(feed: feed), wikiFetcher: client))
                let day = try #require(LocalDay(iso: "2026-10-29"))
                let served = try #require(try await game.feed(language: .english, date: day))
                let turkey = GameEvent(served.events[0])
                #expect(
                    turkey.imageURL
                        == "https://upload.wikimedia.org/wikipedia/commons/thumb/1/1b/Ankara_1923.jpg/640px-Ankara_1923.jpg"
                )
                #expect(turkey.imageAlt == "Republic of Turkey")
                #expect(GameEvent(served.events[1]).imageURL == "https://upload.wikimedia.org/p.jpg")
                #expect(GameEvent(served.events[2]).imageURL == nil)
                // The pages in order, stopping at the first image; nothing asked for the pictured event.
                let asked = standIn.hits.withLockedValue { $0 }.filter { $0.contains("media-list") }.sorted()
                #expect(
                    asked == [
                        "/api/rest_v1/page/media-list/No_such_page", "/api/rest_v1/page/media-list/Republic_of_Turkey",
                        "/api/rest_v1/page/media-list/Treaty_of_Lausanne",
                    ])
                // Kept with the feed: asking again reads the stored copy and asks nobody.
                let again = try #require(try await game.feed(language: .english, date: day))
                #expect(GameEvent(again.events[0]).imageURL == turkey.imageURL)
                #expect(standIn.hits.withLockedValue { $0 }.filter { $0.contains("media-list") }.count == 3)
            }
        }
    }

    @Test func withoutWikipediaThePackServesSearchRandomAndArticles() async throws {
        try await Harness.run { app in
            // "Napoleon" is in no pack title, but in pack articles' text.
            let list = try await app.send(.get, "/api/v1/reading/articles?q=Napoleon")
                .decode(Components.Schemas.ArticleList.self)
            #expect(list.source == .pack && !list.articles.isEmpty)
            #expect(list.articles.contains { $0.title == "War of the Fourth Coalition" })
            // Titles that start with the query come first.
            let army = try await app.send(.get, "/api/v1/reading/articles?q=indian%20arm")
                .decode(Components.Schemas.ArticleList.self)
            #expect(army.articles.first?.title == "Indian Army")
            // No query and no history: suggestions with images.
            let start = try await app.send(.get, "/api/v1/reading/articles").decode(Components.Schemas.ArticleList.self)
            #expect(
                start.source == .pack && start.articles.count == 12
                    && start.articles.allSatisfy { $0.thumbnailUrl != nil })
            let random = try await app.send(.get, "/api/v1/reading/articles/random")
            #expect(random.status == .ok)
            #expect(try random.decode(Components.Schemas.Article.self).extract?.isEmpty == false)

            // The article page shows the summary, its image and a link to Wikipedia; it records
            // nothing (a GET never writes) but gives its script the read to report, by POST.
            let (token, _) = try await app.signUp("reader@example.com")
            let page = try await app.send(
                .get, "/reading/article?language=en&title=Indian%20Army", token: token,
                headers: [.accept: "text/html"])
            #expect(page.status == .ok)
            #expect(page.text.contains("Land service branch of the Indian Armed Forces"))
            #expect(
                page.text.contains(#"class="article__image""#)
                    && page.text.contains("https://en.wikipedia.org/wiki/Indian_Army"))
            func history() async throws -> Components.Schemas.ArticleList {
                try await app.send(.get, "/api/v1/reading/articles", token: token)
                    .decode(Components.Schemas.ArticleList.self)
            }
            #expect(try await history().source == .pack)
            let event = try #require(page.text.firstMatch(of: /name="eventId" value="([0-9a-f-]+)"/)?.1)
            for _ in 0..<2 {  // the report sent again counts once
                let sent = try await app.send(
                    .post, "/reading/article/read",
                    headers: [
                        .cookie: "ql_session=\(token)", .contentType: "application/x-www-form-urlencoded",
                        .init("X-Questline-Beacon")!: "1",
                    ],
                    bodyText: "eventId=\(event)&language=en&title=Indian+Army")
                #expect(sent.status == .ok && sent.text.contains(#"class="widget"#), "\(sent.status) \(sent.text)")
            }
            let recent = try await history()
            #expect(recent.source == .history && recent.articles.map(\.title) == ["Indian Army"])
            #expect(recent.articles.first?.thumbnailUrl != nil)
            let reads = try await app.store.database.withConnection { db in
                try await db.raw("SELECT COUNT(*) AS n FROM reading_events").first()?.decode(column: "n", as: Int.self)
            }
            #expect(reads == 1)
        }
    }

    @Test func anImportIsCheckedWholeAndThenSearchable() async throws {
        try await Harness.run { app in
            let wiki = WikiContent(store: app.store, configuration: FeatureConfiguration(clock: app.clock))
            let bad =
                #"{"language":"en","summaries":[{"title":"Ok","extract":"Fine."},{"title":"","extract":""},{"title":"Img","extract":"x","thumbnail":{"source":"http://evil.example/a.png","width":1,"height":1}}]}"#
            do {
                _ = try await wiki.importPack(Data(bad.utf8))
                Issue.record("a malformed pack was imported")
            } catch let DomainError.invalid(issues) {
                let message = issues.map { Localizer.english($0.message) }.joined(separator: "\n")
                #expect(message.contains("summaries[1].title") && message.contains("summaries[1].extract"))
                #expect(message.contains("summaries[2].thumbnail.source"))
            }
            #expect(await wiki.search("Ok", language: "en", limit: 5).0.allSatisfy { $0.title != "Ok" })
            let good =
                #"{"language":"en","summaries":[{"title":"Zebra crossing","extract":"A zebra crossing is a type of pedestrian crossing.","description":"Type of pedestrian crossing"}]}"#
            #expect(try await wiki.importPack(Data(good.utf8)) == 1)
            #expect(await wiki.search("zebra", language: "en", limit: 5).0.first?.title == "Zebra crossing")
            #expect(await wiki.summary("Zebra crossing", language: "en")?.description == "Type of pedestrian crossing")
        }
    }
}

/// One feed for every day, at the network boundary.
private struct StaticFeed: FeedFetching {
    let feed: OnThisDayFeed
    func fetch(language: GameLanguage, month: Int, day: Int) async throws -> FeedFetchResult { .feed(feed) }
}
