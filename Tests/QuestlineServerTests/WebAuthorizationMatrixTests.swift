import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// One page or form of the web app: how a browser asks for it, and the status each asker gets.
/// Forms are sent as a browser sends them (with the page's form token and the asker's session).
struct WebRow: Sendable, CustomTestStringConvertible {
    /// The route as the router has it (`POST /quests/{quest}/status`).
    let route: String
    let request: @Sendable (World) -> (path: String, form: String?)
    let expected: [Asker: Int]
    /// Who "owner" is: the child for a child's pages, the guardian for the household's, else the
    /// administrator (who has their own data).
    var owner: Asker = .owner
    var stories = false

    var testDescription: String { route }
    var method: HTTPRequest.Method { route.hasPrefix("POST ") ? .post : .get }
}

/// Statuses in asker order: anonymous, owner, stranger, guardian, child, other guardian.
private func web(_ a: Int, _ o: Int, _ s: Int, _ g: Int, _ c: Int, _ x: Int) -> [Asker: Int] {
    [.anonymous: a, .owner: o, .stranger: s, .guardian: g, .child: c, .otherGuardian: x]
}

private func get(
    _ route: String, _ expected: [Asker: Int], owner: Asker = .owner, stories: Bool = false,
    _ path: @escaping @Sendable (World) -> String
) -> WebRow {
    WebRow(route: "GET " + route, request: { (path($0), nil) }, expected: expected, owner: owner, stories: stories)
}

private func get(_ route: String, _ expected: [Asker: Int], owner: Asker = .owner, stories: Bool = false) -> WebRow {
    get(route, expected, owner: owner, stories: stories) { _ in route }
}

private func post(
    _ route: String, _ expected: [Asker: Int], owner: Asker = .owner, stories: Bool = false,
    form: String = "", _ path: (@Sendable (World) -> String)? = nil
) -> WebRow {
    WebRow(
        route: "POST " + route, request: { (path?($0) ?? route, form) }, expected: expected, owner: owner,
        stories: stories)
}

/// Every page and form of the web app (`WebAuthorizationMatrixTests`): anonymous visitors are
/// sent to sign in (303) or refused; outside the household everything is 404; inside, what a
/// child may not do is 403. Success answers 200 for pages and 303 for forms (post, redirect,
/// get); 400 is a form that re-renders with its errors.
let webMatrix: [WebRow] = [
    // Infrastructure and public pages.
    get("/health", web(200, 200, 200, 200, 200, 200)),
    get("/ready", web(200, 200, 200, 200, 200, 200)),
    get("/metrics", web(200, 200, 200, 200, 200, 200)),
    get("/openapi.yaml", web(200, 200, 200, 200, 200, 200)),
    get("/static/widget-colors.css", web(200, 200, 200, 200, 200, 200)),
    get("/content/stories/**", web(200, 200, 200, 200, 200, 200), stories: true) { _ in
        "/content/stories/covers/indianapolis.svg"
    },
    get("/", web(200, 200, 200, 200, 200, 200)),
    get("/login", web(200, 200, 200, 200, 200, 200)),
    get("/signup", web(200, 200, 200, 200, 200, 200)),
    // The visitors' language menu: keeps the choice and goes back, for anyone.
    get("/language", web(303, 303, 303, 303, 303, 303)) { _ in "/language?set=de&next=%2Freading" },
    get("/reading", web(200, 200, 200, 200, 200, 200)),
    get("/reading/join", web(303, 303, 303, 303, 303, 303)),
    get("/reading/search", web(200, 200, 200, 200, 200, 200)) { _ in "/reading/search?q=Octopus" },
    get("/reading/random", web(303, 303, 303, 303, 303, 303)),
    get("/reading/article", web(200, 200, 200, 200, 200, 200)) { _ in "/reading/article?title=Octopus&language=en" },
    post(
        "/reading/article/read", web(303, 303, 303, 303, 303, 303),
        form: "title=Octopus&language=en&eventId=matrix-read"),
    post("/reading/go/{kind}", web(303, 303, 303, 303, 303, 303), form: "state=enrolledNotStarted") { _ in
        "/reading/go/random"
    },
    get("/reading/preview", web(200, 200, 200, 200, 200, 200)),
    get("/reading/share.svg", web(303, 200, 200, 200, 200, 200)),
    get("/game", web(303, 200, 200, 200, 200, 200)),
    get("/game/archive", web(303, 200, 200, 200, 200, 200)),
    get("/game/play/{id}", web(303, 200, 404, 404, 404, 404)) { w in "/game/play/\(w.session)" },
    get("/activity", web(303, 200, 200, 200, 200, 200)),
    get("/activity/recap", web(303, 200, 200, 200, 200, 200)),
    // Cheers are a household's: without one, 404; another household's guardian sees their own.
    get("/quests/family/cheers", web(303, 404, 404, 200, 200, 200)),
    post("/quests/family/cheers", web(303, 404, 404, 303, 303, 303), form: "to=nobody&cheer=proud"),
    post("/quests/family/cheers/settings", web(303, 404, 404, 303, 403, 303), form: "enabled=on"),
    // The family streak is a household's; a child may not take the guardian in or out.
    get("/quests/family/streak", web(303, 404, 404, 200, 200, 200)),
    WebRow(
        route: "POST /quests/family/streak",
        request: { w in ("/quests/family/streak", "member=\(w.guardianID)&joined=on") },
        expected: web(303, 404, 404, 303, 403, 404)),
    // Co-op quests are a household's; only its guardian sets or cancels one (another household's
    // guardian naming these children is refused by the rule: the page again, 400).
    get("/quests/family/coop", web(303, 404, 404, 200, 200, 200)),
    WebRow(
        route: "POST /quests/family/coop",
        request: { w in
            (
                "/quests/family/coop",
                "title=Together&goal=minutes&target=60&dailyMinimum=15&bonus=10&week=\(w.monday)&child=\(w.childID)&child=\(w.child2ID)"
            )
        },
        expected: web(303, 404, 404, 303, 403, 400)),
    WebRow(
        route: "POST /quests/family/coop/{quest}/cancel",
        request: { w in ("/quests/family/coop/\(w.coop)/cancel", "") },
        expected: web(303, 404, 404, 303, 403, 404)),
    // The league is each member's own; friend groups are the household's guardians' (a bad code
    // shows the page again, 400; leaving a group the household is not in, 404).
    get("/league", web(303, 200, 200, 200, 200, 200)),
    post("/league", web(303, 303, 303, 303, 303, 303), form: "joined=on"),
    post("/league/friend-groups", web(303, 404, 404, 303, 403, 303), form: "name=Friends"),
    post("/league/friend-groups/join", web(303, 404, 404, 400, 403, 400), form: "code=ABCD-EFGH"),
    post("/league/friend-groups/{group}/leave", web(303, 404, 404, 404, 403, 404)) { _ in
        "/league/friend-groups/none/leave"
    },
    get("/activity/recap.svg", web(303, 200, 200, 200, 200, 200)),
    get("/activity/saved", web(303, 200, 200, 200, 200, 200)),
    get("/admin/funnel", web(303, 200, 403, 403, 403, 403)),
    get("/profile", web(303, 200, 200, 200, 200, 200)),
    get("/reading/streak", web(303, 200, 200, 200, 200, 200)),
    get("/profile/export", web(303, 200, 200, 200, 200, 200)),
    // Family quests.
    get("/quests", web(303, 303, 303, 303, 200, 303)),
    get("/quests/family", web(303, 200, 200, 200, 303, 200)),
    get("/family", web(301, 301, 301, 301, 301, 301)),
    get("/family/children/{child}", web(301, 301, 301, 301, 301, 301)) { w in "/family/children/\(w.childID)" },
    get("/family/quests/{quest}", web(301, 301, 301, 301, 301, 301)) { w in "/family/quests/\(w.quest)" },
    get("/quests/children/{child}", web(303, 200, 404, 200, 200, 404), owner: .child) { w in
        "/quests/children/\(w.childID)"
    },
    get("/quests/children/{child}/device", web(303, 200, 404, 200, 200, 404), owner: .child) { w in
        "/quests/children/\(w.childID)/device"
    },
    get("/quests/children/{child}/report", web(303, 200, 404, 200, 200, 404), owner: .child) { w in
        "/quests/children/\(w.childID)/report"
    },
    get("/quests/children/{child}/quests/new", web(303, 403, 404, 200, 403, 404), owner: .child) { w in
        "/quests/children/\(w.childID)/quests/new"
    },
    get("/quests/{quest}", web(303, 200, 404, 200, 200, 404), owner: .child) { w in "/quests/\(w.quest)" },
    get("/quests/{quest}/edit", web(303, 403, 404, 200, 403, 404), owner: .child) { w in "/quests/\(w.quest)/edit" },
    post("/household", web(303, 303, 303, 409, 409, 409), form: "name=Second+home"),
    post(
        "/household/children", web(303, 404, 404, 303, 403, 303),
        form: "username=kid2&password=kidpass123&displayName=Kid2"),
    post("/household/children/{child}/delete", web(303, 403, 404, 303, 403, 404), owner: .child) { w in
        "/household/children/\(w.childID)/delete"
    },
    post(
        "/quests/family/rules", web(303, 404, 404, 303, 403, 303), form: "pointsPerMinute=5&minMinutes=5&maxMinutes=60"),
    post(
        "/quests/children/{child}/apps", web(303, 403, 404, 303, 403, 404), owner: .child,
        form: "name=Chess&token=chess&role=learning"
    ) {
        w in "/quests/children/\(w.childID)/apps"
    },
    post("/quests/children/{child}/apps/delete", web(303, 403, 404, 303, 403, 404), owner: .child, form: "token=spare")
    {
        w in "/quests/children/\(w.childID)/apps/delete"
    },
    post(
        "/quests/children/{child}/quests", web(303, 403, 404, 303, 403, 404), owner: .child,
        form: "title=Read&goalType=dailyMinutes&target=20&bonusPercent=10&weekdays=1&weekdays=2"
    ) { w in "/quests/children/\(w.childID)/quests" },
    post(
        "/quests/{quest}", web(303, 403, 404, 303, 403, 404), owner: .child,
        form: "title=Learn+more&goalType=dailyMinutes&target=40&bonusPercent=10&weekdays=1"
    ) { w in "/quests/\(w.quest)" },
    post("/quests/{quest}/status", web(303, 403, 404, 303, 403, 404), owner: .child, form: "status=paused") { w in
        "/quests/\(w.quest)/status"
    },
    post("/quests/{quest}/delete", web(303, 403, 404, 303, 403, 404), owner: .child) { w in "/quests/\(w.quest)/delete"
    },
    post(
        "/quests/children/{child}/adjust", web(303, 403, 404, 303, 403, 404), owner: .child,
        form: "points=5&reason=Chores"
    ) {
        w in "/quests/children/\(w.childID)/adjust"
    },
    post(
        "/quests/children/{child}/device/usage", web(303, 303, 404, 303, 303, 404), owner: .child,
        form: "appToken=khan&minutes=5"
    ) { w in "/quests/children/\(w.childID)/device/usage" },
    post(
        "/quests/children/{child}/time-requests", web(303, 303, 404, 403, 303, 404), owner: .child,
        form: "appToken=game&minutes=10&note=Please"
    ) { w in "/quests/children/\(w.childID)/time-requests" },
    post(
        "/quests/children/{child}/shield-rules", web(303, 403, 404, 303, 403, 404), owner: .child,
        form: "rewardDays=1&rewardDays=2&downtime=on&downtimeStart=21&downtimeEnd=7"
    ) { w in "/quests/children/\(w.childID)/shield-rules" },
    post(
        "/quests/children/{child}/time-zone", web(303, 403, 404, 303, 403, 404), owner: .child,
        form: "timeZone=Europe%2FParis"
    ) { w in "/quests/children/\(w.childID)/time-zone" },
    post(
        "/quests/time-requests/{request}/decision", web(303, 403, 404, 303, 403, 404), owner: .child, form: "approve=1"
    ) {
        w in "/quests/time-requests/\(w.timeRequest)/decision"
    },
    post("/quests/redeem", web(303, 303, 404, 404, 303, 404), owner: .child, form: "appToken=game&minutes=5"),
    // Reading, the game, the Activity tab.
    post("/reading/join", web(303, 303, 303, 303, 303, 303)),
    post("/reading/claim", web(303, 409, 409, 409, 409, 409)),
    post("/game/start", web(303, 303, 303, 303, 303, 303), form: "language=en"),
    post("/game/language", web(303, 303, 303, 303, 303, 303), form: "language=de"),
    post("/game/play/{id}/answer", web(303, 303, 404, 404, 404, 404), form: "questionIndex=0&choice=first") { w in
        "/game/play/\(w.session)/answer"
    },
    post("/activity/saved/add", web(303, 303, 303, 303, 303, 303), form: "title=Octopus&language=en"),
    post("/activity/saved/remove", web(303, 303, 303, 303, 303, 303), form: "title=Octopus&language=en"),
    // Accounts.
    post("/signup", web(303, 303, 303, 303, 303, 303)) { _ in "/signup" },
    post("/login", web(401, 401, 401, 401, 401, 401), form: "login=nobody%40example.com&password=password123"),
    post("/logout", web(303, 303, 303, 303, 303, 303)),
    post("/profile", web(303, 303, 303, 303, 303, 303), form: "displayName=Renamed&timeZone=UTC"),
    post("/profile/notifications", web(303, 303, 303, 303, 303, 303), form: "streakReminders=on"),
    post("/reading/streak/rest-days", web(303, 303, 303, 303, 303, 303), form: "restDay=6&restDay=7"),
    post("/reading/streak/pause", web(303, 303, 303, 303, 303, 303), form: "start=2099-06-01&end=2099-06-03"),
    // No pause to end in a fresh world: the page again with the reason.
    post("/reading/streak/pause/end", web(303, 409, 409, 409, 409, 409)),
    post("/profile/delete", web(303, 303, 303, 409, 403, 303)),
    // Track stories.
    get("/stories", web(303, 303, 303, 303, 303, 303), stories: true),
    post("/stories/check-in", web(303, 303, 303, 303, 303, 303), stories: true),
    get("/stories/welcome", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/choose", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/help", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/bookmarks", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/points", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/profile", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/photo", web(303, 200, 404, 404, 404, 404), stories: true),
    get("/stories/shop", web(303, 200, 200, 200, 200, 200), stories: true),
    get("/stories/read/{story}", web(303, 200, 200, 200, 200, 200), stories: true) { _ in "/stories/read/daytona" },
    get("/stories/read/{story}/chapter", web(303, 303, 303, 303, 303, 303), stories: true) { _ in
        "/stories/read/daytona/chapter?chapter=1"
    },
    get("/stories/read/{story}/{chapter}/{page}", web(303, 200, 200, 200, 200, 200), stories: true) { _ in
        "/stories/read/daytona/0/0"
    },
    get("/stories/read/{story}/rewards", web(303, 200, 303, 303, 303, 303), stories: true) { _ in
        "/stories/read/daytona/rewards"
    },
    get("/stories/read/{story}/selfie", web(303, 200, 404, 404, 404, 404), stories: true) { _ in
        "/stories/read/daytona/selfie"
    },
    get("/stories/read/{story}/selfie-saved", web(303, 200, 303, 303, 303, 303), stories: true) { _ in
        "/stories/read/daytona/selfie-saved"
    },
    post("/stories/welcome", web(303, 303, 303, 303, 303, 303), stories: true),
    post("/stories/choose", web(303, 303, 303, 303, 303, 303), stories: true, form: "states=FL&tracks=daytona"),
    post("/stories/profile", web(303, 303, 303, 303, 303, 303), stories: true, form: "bio=Fast&location=Ohio"),
    post(
        "/stories/read/{story}/{chapter}/comments", web(303, 303, 303, 303, 303, 303), stories: true, form: "text=Nice"
    ) { _ in "/stories/read/daytona/0/comments" },
    post("/stories/comments/{comment}/delete", web(303, 303, 403, 403, 403, 403), stories: true) { w in
        "/stories/comments/\(w.comment)/delete"
    },
    post("/stories/read/{story}/bookmark", web(303, 303, 303, 303, 303, 303), stories: true) { _ in
        "/stories/read/daytona/bookmark"
    },
    post("/stories/read/{story}/rewards", web(303, 303, 303, 303, 303, 303), stories: true) { _ in
        "/stories/read/homestead/rewards"
    },
    post("/stories/shop/{card}", web(303, 303, 303, 303, 303, 303), stories: true) { _ in "/stories/shop/pit-crew" },
]

/// The authorization matrix of the web app: every page and form, for every asker, through the
/// same use cases and `AccessPolicy` as the API (SQLite; the decisions do not depend on the
/// database, and the API's matrix runs on both).
@Suite struct WebAuthorizationMatrixTests {
    /// Every route of the web app has a row, and every row is a route: a new page or form
    /// without a row fails here.
    @Test func everyWebRouteHasARow() async throws {
        let routes = try await RoutePolicyTests.routes()
            .filter { !$0.path.hasPrefix("/api/") }
            .map { "\($0.method) \($0.path)" }
        let rows = webMatrix.map(\.route)
        #expect(Set(rows).count == rows.count, "a route has two rows")
        #expect(Set(routes).subtracting(rows).sorted() == [], "web routes without a row")
        #expect(Set(rows).subtracting(routes).sorted() == [], "rows for routes the router does not have")
    }

    @Test(arguments: webMatrix)
    func eachAskerGetsTheExpectedStatus(_ row: WebRow) async throws {
        let found = NIOLockedValueBox([String]())
        // A page is read by every asker in one world; a form changes it, so each gets its own.
        let groups: [[Asker]] = row.method == .get ? [Asker.allCases] : Asker.allCases.map { [$0] }
        for group in groups {
            try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 7 * 86_400, on: [.sqlite]) { app in
                let world = try await World.make(app, stories: row.stories)
                let (path, form) = row.request(world)
                for asker in group {
                    let token = world.tokens[asker == .owner ? row.owner : asker]
                    var headers: HTTPFields = [.accept: "text/html"]
                    if let token { headers[.cookie] = "ql_session=\(token)" }
                    let reply: Reply
                    if row.method == .post {
                        headers[.contentType] = "application/x-www-form-urlencoded"
                        var body = form ?? ""
                        if row.route == "POST /signup" {
                            body =
                                "email=new-\(asker.rawValue)%40example.com&password=password123&displayName=New&timeZone=UTC"
                        }
                        reply = try await app.send(.post, path, headers: headers, bodyText: body)
                    } else {
                        reply = try await app.send(.get, path, headers: headers)
                    }
                    found.withLockedValue { $0.append("\(asker.rawValue):\(reply.status.code)") }
                    let expected = row.expected[asker]!
                    #expect(
                        reply.status.code == expected,
                        "\(row.route) as \(asker.rawValue): \(reply.status.code) \(reply.headers[.location] ?? "") \(reply.text.prefix(200))"
                    )
                }
            }
        }
        if ProcessInfo.processInfo.environment["WEB_MATRIX_PRINT"] == "1" {
            print("WEBMATRIX \(row.route) \(found.withLockedValue { $0 }.joined(separator: " "))")
        }
    }
}
