import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import Testing

@Suite struct WebTests {
    private let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "text/html"]

    private func sessionCookie(_ reply: Reply) -> String? {
        guard let header = reply.headers[.setCookie], header.hasPrefix("ql_session=") else { return nil }
        return String(header.split(separator: ";")[0])
    }

    @Test func signUpThroughTheFormSignsInWithASafeCookie() async throws {
        try await Harness.run { app in
            let page = try await app.send(.get, "/signup", headers: [.accept: "text/html"])
            #expect(page.status == .ok)
            #expect(page.text.contains(#"<label for="email">"#))
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)

            let posted = try await app.send(
                .post, "/signup", headers: form,
                bodyText:
                    "email=ada%40example.com&password=password123&displayName=Ada+L&timeZone=Asia%2FKolkata&next=%2Fprofile"
            )
            #expect(posted.status == .seeOther)
            #expect(posted.headers[.location] == "/profile")
            let setCookie = posted.headers[.setCookie] ?? ""
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Lax"))
            let cookie = try #require(sessionCookie(posted))

            let home = try await app.send(.get, "/", headers: [.cookie: cookie, .accept: "text/html"])
            #expect(home.text.contains("Hello, Ada L"))
            #expect(home.text.contains("Asia/Kolkata"))
            #expect(home.text.contains(#"aria-label="Main""#))

            let family = try await app.send(.get, "/quests/family", headers: [.cookie: cookie])
            #expect(family.text.contains("Set up your family"))
            // Stories start with the onboarding carousel on a first visit.
            let stories = try await app.send(.get, "/stories", headers: [.cookie: cookie])
            #expect(stories.status == .seeOther && stories.headers[.location] == "/stories/welcome")

            let logout = try await app.send(.post, "/logout", headers: [.cookie: cookie], bodyText: "")
            #expect(logout.status == .seeOther)
            #expect(logout.headers[.setCookie]?.contains("Max-Age=0") == true)
            let after = try await app.send(.get, "/", headers: [.cookie: cookie, .accept: "text/html"])
            #expect(!after.text.contains("Hello, Ada"))
        }
    }

    @Test func formErrorsAppearNextToTheirFieldsAndKeepTheValues() async throws {
        try await Harness.run { app in
            let reply = try await app.send(
                .post, "/signup", headers: form,
                bodyText: "email=ada%40example.com&password=short&displayName=Ada&timeZone=Nowhere")
            #expect(reply.status == .badRequest)
            #expect(reply.text.contains(#"id="password-error""#))
            #expect(reply.text.contains(#"id="timeZone-error""#))
            #expect(reply.text.contains(#"value="ada@example.com""#))
            #expect(!reply.text.contains("short"))
            #expect(try await app.store.accounts.memberCount() == 0)

            let login = try await app.send(
                .post, "/login", headers: form, bodyText: "login=ada%40example.com&password=wrong")
            #expect(login.status == .unauthorized)
            #expect(login.text.contains("do not match"))
        }
    }

    @Test func crossOriginFormPostsAreRefusedAndNextCannotLeaveTheSite() async throws {
        try await Harness.run { app in
            var headers = form
            headers[.origin] = "https://evil.example"
            let refused = try await app.send(
                .post, "/signup", headers: headers,
                bodyText: "email=ada%40example.com&password=password123&displayName=Ada&timeZone=UTC")
            #expect(refused.status == .forbidden)
            #expect(try await app.store.accounts.memberCount() == 0)

            let posted = try await app.send(
                .post, "/signup", headers: form,
                bodyText:
                    "email=ada%40example.com&password=password123&displayName=Ada&timeZone=UTC&next=%2F%2Fevil.example")
            #expect(posted.headers[.location] == "/")
        }
    }

    /// Forms carry a token bound to the browser and the session (`FormTokenMiddleware`). Before,
    /// a form post with `Origin: null` (a sandboxed frame) or no `Origin` passed, so another site
    /// could sign a visitor into the attacker's account.
    @Test func formsNeedTheirTokenLoginIncluded() async throws {
        try await Harness.run { app in
            _ = try await app.signUp("mallory@example.com")
            let login = "login=mallory%40example.com&password=password123"
            for origin in ["null", nil] {
                var headers = form
                if let origin { headers[.origin] = origin }
                let forged = try await app.sendRaw(.post, "/login", headers: headers, bodyText: login)
                #expect(forged.status == .forbidden, "Origin \(origin ?? "missing"): \(forged.status)")
                #expect(!(forged.headers[.setCookie] ?? "").contains("ql_session="))
                // With the browser's cookie but no token, or a made-up one: refused too.
                let (cookie, _) = try await app.formToken(cookie: nil)
                headers[.cookie] = cookie
                #expect(try await app.sendRaw(.post, "/login", headers: headers, bodyText: login).status == .forbidden)
                #expect(
                    try await app.sendRaw(.post, "/login", headers: headers, bodyText: login + "&_csrf=abc").status
                        == .forbidden)
            }
            // Another browser's token does not pass with this browser's cookie.
            let (mine, _) = try await app.formToken(cookie: nil)
            let (_, theirs) = try await app.formToken(cookie: nil)
            var headers = form
            headers[.cookie] = mine
            #expect(
                try await app.sendRaw(.post, "/login", headers: headers, bodyText: login + "&_csrf=\(theirs)").status
                    == .forbidden)
            // A `null` origin is refused even with a good token.
            let (cookie, token) = try await app.formToken(cookie: nil)
            headers[.cookie] = cookie
            headers[.origin] = "null"
            #expect(
                try await app.sendRaw(.post, "/login", headers: headers, bodyText: login + "&_csrf=\(token)").status
                    == .forbidden)
            headers[.origin] = nil
            let signedIn = try await app.sendRaw(
                .post, "/login", headers: headers, bodyText: login + "&_csrf=\(token)")
            #expect(signedIn.status == .seeOther, "\(signedIn.status)")
            // The token is bound to the session: the signed-out token does not work signed in.
            let session = try #require(signedIn.headers[.setCookie]).split(separator: ";")[0]
            headers[.cookie] = cookie + "; " + session
            headers[.contentType] = "application/x-www-form-urlencoded"
            let stale = try await app.sendRaw(
                .post, "/profile", headers: headers, bodyText: "displayName=Eve&timeZone=UTC&_csrf=\(token)")
            #expect(stale.status == .forbidden)
            let fresh = try await app.send(
                .post, "/profile", headers: [.cookie: String(session)], bodyText: "displayName=Eve&timeZone=UTC")
            #expect(fresh.status == .seeOther)
        }
    }

    /// Every form that posts carries the token (the layout's partial), on every page template.
    @Test func everyPostFormCarriesItsToken() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/QuestlineServer/Resources/templates").standardized
        var forms = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".mustache") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            var rest = text[...]
            while let open = rest.range(of: "<form") {
                let tag = rest[open.lowerBound...].prefix { $0 != ">" }
                let after = rest[open.lowerBound...].dropFirst(tag.count + 1)
                if tag.contains(#"method="post""#) {
                    forms += 1
                    #expect(after.hasPrefix("{{> csrf}}"), "\(file): \(tag)")
                }
                rest = after
            }
        }
        #expect(forms > 40)
    }

    /// With no challenge to show, the reading page says so once: no challenge's title or rules
    /// below "No reading challenge right now" (before, the May 2026 challenge's title and rules
    /// followed it), and the search says what it searches.
    @Test func theReadingPageHasOneTruthfulHeader() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("reader@example.com", timeZone: "UTC")
            for day in ["2026-09-01T10:00:00Z", "2027-02-01T10:00:00Z"] {  // after the May challenge is gone
                app.clock.set(try Date(day, strategy: .iso8601))
                let page = try await app.send(
                    .get, "/reading", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
                #expect(page.text.contains("No reading challenge right now"), "\(day)")
                #expect(!page.text.contains("reading challenge: read every day"), "\(day): a challenge's title too")
                #expect(!page.text.contains("Open at least one article a day"), "\(day): a challenge's rules too")
                #expect(page.text.contains(#"placeholder="Search Wikipedia""#))
            }
            // While the challenge runs, its title and rules show with its widget.
            app.clock.set(try Date("2026-05-07T10:00:00Z", strategy: .iso8601))
            let running = try await app.send(
                .get, "/reading", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
            #expect(!running.text.contains("No reading challenge right now"))
            #expect(running.text.contains("Open at least one article a day"))
        }
    }

    @Test func profileNeedsSignInAndSavesChanges() async throws {
        try await Harness.run { app in
            let anonymous = try await app.send(.get, "/profile", headers: [.accept: "text/html"])
            #expect(anonymous.status == .seeOther)
            #expect(anonymous.headers[.location] == "/login?next=/profile")

            let (token, _) = try await app.signUp("ada@example.com")
            let cookie = "ql_session=\(token)"
            let saved = try await app.send(
                .post, "/profile", headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                bodyText: "displayName=Ada+Lovelace&timeZone=America%2FNew_York")
            #expect(saved.status == .seeOther)
            let page = try await app.send(.get, "/profile?saved=1", headers: [.cookie: cookie])
            #expect(page.text.contains("Your profile is saved."))
            #expect(page.text.contains(#"value="Ada Lovelace""#))
            #expect(page.text.contains(#"value="America/New_York""#))
        }
    }

    /// A message after a redirect travels in a signed cookie, shows once, and a tampered or
    /// forged one shows nothing (nor does text in the address).
    @Test func flashMessagesAreSignedShownOnceAndNeverForged() async throws {
        try await Harness.run(sessionLifetime: 7 * 86_400) { app in
            let f = try await QuestAPITests().family(app)
            let session = "ql_session=\(f.child)"
            let refused = try await app.send(
                .post, "/quests/redeem",
                headers: [.cookie: session, .contentType: "application/x-www-form-urlencoded"],
                bodyText: "appToken=game&minutes=5")
            #expect((300..<400).contains(refused.status.code), "\(refused.status)")
            #expect(refused.headers[.location] == "/quests")
            let setCookie = try #require(refused.headers[.setCookie])
            #expect(setCookie.hasPrefix("ql_flash=") && setCookie.contains("HttpOnly"))
            let flash = String(setCookie.split(separator: ";")[0])

            let shown = try await app.send(.get, "/quests", headers: [.cookie: "\(session); \(flash)"])
            #expect(shown.text.contains("Not enough points"), "\(shown.text.prefix(200))")
            #expect(
                shown.headers[values: .setCookie].contains { $0.hasPrefix("ql_flash=;") && $0.contains("Max-Age=0") })

            // One character of the signature changed: nothing shows.
            var tampered = Array(flash)
            tampered[tampered.count - 2] = tampered[tampered.count - 2] == "A" ? "B" : "A"
            let forged = try await app.send(.get, "/quests", headers: [.cookie: "\(session); \(String(tampered))"])
            #expect(!forged.text.contains("Not enough points"))
            // Text in the address is not a message either.
            let address = try await app.send(
                .get, "/stories/shop?notice=Your+account+is+locked", headers: [.cookie: session])
            #expect(!address.text.contains("Your account is locked"))
        }
    }

    /// The stories map draws with Leaflet when the system has it (served from its folder under
    /// `/static/vendor/leaflet`, with the bundled US states); without it the page keeps the
    /// server-drawn picture and names no script that would not load.
    @Test func theStoriesMapUsesLeafletWhenTheSystemHasIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leaflet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("/* Leaflet stand-in */".utf8).write(to: folder.appendingPathComponent("leaflet.js"))
        for (directory, installed) in [(folder.path, true), (folder.path + "/missing", false)] {
            try await Harness.run(leafletDirectory: directory, on: [.sqlite]) { app in
                try await StoryContentFeature(store: app.store, configuration: FeatureConfiguration())
                    .installBundledContentIfEmpty()
                let (token, _) = try await app.signUp("ada@example.com")
                let headers: HTTPFields = [
                    .cookie: "ql_session=\(token)", .contentType: "application/x-www-form-urlencoded",
                ]
                let welcomed = try await app.send(.post, "/stories/welcome", headers: headers, bodyText: "")
                #expect(welcomed.headers[.location] == "/stories/choose")
                let chosen = try await app.send(
                    .post, "/stories/choose", headers: headers, bodyText: "states=FL&tracks=daytona")
                #expect(chosen.headers[.location] == "/stories", "\(chosen.status) \(chosen.text.prefix(300))")
                let map = try await app.send(.get, "/stories?view=map", headers: headers)
                #expect(map.status == .ok, "\(map.headers[.location] ?? "")")
                #expect(map.text.contains(#"<script src="/static/vendor/leaflet/leaflet.js">"#) == installed)
                #expect(map.text.contains(#"data-geography="/static/geo/us-states.json""#))
                #expect(map.text.contains(#"data-pin="daytona""#) && map.text.contains(#"data-lat="29.1852""#))
                #expect(map.text.contains("story-map__svg"))  // the picture stays until the script replaces it
                // Without Leaflet the picture has the geography too (the states, projected on the
                // server), and no two pins cover each other (Sonoma and Laguna Seca moved apart).
                let everywhere = try await app.send(
                    .post, "/stories/choose", headers: headers, bodyText: "skip=1")
                #expect(everywhere.status == .seeOther)
                let all = try await app.send(.get, "/stories?view=map", headers: headers)
                #expect(all.text.components(separatedBy: #"class="story-map__state""#).count > 40)
                let pins = try Regex(#"<circle cx="(\d+)" cy="(\d+)" r="9" class="pin__dot""#)
                let points = all.text.matches(of: pins).compactMap { match -> (Double, Double)? in
                    guard let x = Double(match.output[1].substring ?? ""),
                        let y = Double(match.output[2].substring ?? "")
                    else { return nil }
                    return (x, y)
                }
                #expect(points.count == 8, "\(points)")
                for (i, a) in points.enumerated() {
                    for b in points[(i + 1)...] {
                        #expect(((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot() >= 18, "\(a) \(b)")
                    }
                }
                let script = try await app.send(.get, "/static/vendor/leaflet/leaflet.js")
                #expect(script.status == (installed ? .ok : .notFound))
                if installed { #expect(script.text == "/* Leaflet stand-in */") }
                let states = try await app.send(.get, "/static/geo/us-states.json")
                let geography = try JSONSerialization.jsonObject(with: Data(states.text.utf8)) as? [String: Any]
                let features = geography?["features"] as? [[String: Any]] ?? []
                #expect(features.count == 51)  // the 50 states and the District of Columbia
            }
        }
    }

    /// Behind HTTPS (`--secure-cookies`) every cookie the server sets is `Secure`: the session's
    /// and the flash message's, when set and when cleared; without it, none is.
    @Test(arguments: [true, false]) func secureCookiesMarkTheSessionAndTheFlashMessage(secure: Bool) async throws {
        try await Harness.run(secureCookies: secure, on: [.sqlite]) { app in
            try await StoryContentFeature(store: app.store, configuration: FeatureConfiguration())
                .installBundledContentIfEmpty()
            let signedUp = try await app.send(
                .post, "/signup", headers: form,
                bodyText: "email=ada%40example.com&password=password123&displayName=Ada&timeZone=Europe%2FBerlin")
            let session = try #require(sessionCookie(signedUp))
            #expect(signedUp.headers[.setCookie]?.contains("; Secure") == secure)
            let refused = try await app.send(
                .post, "/stories/shop/pit-crew",
                headers: [.cookie: session, .contentType: "application/x-www-form-urlencoded"], bodyText: "")
            let flash = try #require(refused.headers[values: .setCookie].first { $0.hasPrefix("ql_flash=") })
            #expect(flash.contains("; Secure") == secure, "\(flash)")
            let shown = try await app.send(
                .get, "/", headers: [.cookie: "\(session); \(flash.split(separator: ";")[0])", .accept: "text/html"])
            let cleared = try #require(shown.headers[values: .setCookie].first { $0.hasPrefix("ql_flash=;") })
            #expect(cleared.contains("; Secure") == secure, "\(cleared)")
        }
    }

    /// A visitor chooses the language in the layout's menu: `/language` keeps it in a cookie for
    /// a year and goes back to the page (a path of this site only); a member's own language, set
    /// on the profile, outranks it.
    @Test func theLanguageMenuKeepsAVisitorsChoice() async throws {
        try await Harness.run(on: [.sqlite]) { app in
            let landing = try await app.send(.get, "/reading?uselang=fr&x=1", headers: [.accept: "text/html"])
            #expect(landing.text.contains(#"<html lang="fr" dir="ltr">"#))
            #expect(landing.text.contains(#"action="/language""#))
            #expect(landing.text.contains(#"<option value="ar" lang="ar">العربية</option>"#))
            #expect(landing.text.contains(#"<option value="fr" lang="fr" selected>Français</option>"#))
            // Back to the same page, without `uselang` (it would outrank the choice).
            #expect(
                landing.text.contains(#"name="next" value="/reading?x&#61;1""#)
                    || landing.text.contains(#"name="next" value="/reading?x=1""#))

            let chosen = try await app.send(.get, "/language?set=ar&next=%2Freading", headers: [.accept: "text/html"])
            #expect(chosen.status == .seeOther && chosen.headers[.location] == "/reading")
            let cookie = try #require(chosen.headers[values: .setCookie].first { $0.hasPrefix("ql_lang=ar") })
            #expect(cookie.contains("Max-Age=31536000") && cookie.contains("Path=/"))
            let arabic = try await app.send(.get, "/reading", headers: [.cookie: "ql_lang=ar", .accept: "text/html"])
            #expect(arabic.text.contains(#"<html lang="ar" dir="rtl">"#))

            for unsafe in ["//evil.example/x", "https%3A%2F%2Fevil.example", "%2F%5Cevil.example", "reading"] {
                let away = try await app.send(.get, "/language?set=de&next=\(unsafe)", headers: [:])
                #expect(away.headers[.location] == "/", "\(unsafe)")
            }
            let unknown = try await app.send(.get, "/language?set=xx&next=%2Flogin", headers: [:])
            #expect(unknown.headers[.location] == "/login" && unknown.headers[values: .setCookie].isEmpty)

            // A member's language (the profile's) wins over the visitor's cookie; members get no menu.
            let (token, _) = try await app.signUp("ada@example.com")
            let cookies = "ql_session=\(token); ql_lang=ar"
            _ = try await app.send(
                .post, "/profile", headers: [.cookie: cookies, .contentType: "application/x-www-form-urlencoded"],
                bodyText: "displayName=Ada&timeZone=UTC&language=de")
            let profile = try await app.send(.get, "/profile", headers: [.cookie: cookies, .accept: "text/html"])
            #expect(profile.text.contains(#"<html lang="de" dir="ltr">"#))
            #expect(!profile.text.contains(#"action="/language""#))
            #expect(profile.text.contains(#"<option value="de" lang="de" selected>Deutsch</option>"#))
        }
    }

    @Test func unknownPagesAreReadableForBrowsers() async throws {
        try await Harness.run { app in
            let page = try await app.send(.get, "/nowhere", headers: [.accept: "text/html"])
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("There is nothing at this address."))
        }
    }
}

extension Harness {
    /// Sends a form as a browser does: a web form post first gets the page's form token (and the
    /// `ql_csrf` cookie it is bound to) with the same cookies, then carries both.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, headers: HTTPFields, bodyText: String)
        async throws -> Reply
    {
        guard method == .post, !uri.hasPrefix("/api/") else {
            return try await sendRaw(method, uri, headers: headers, bodyText: bodyText)
        }
        let (cookie, token) = try await formToken(cookie: headers[.cookie])
        var headers = headers
        headers[.cookie] = cookie
        let body = (bodyText.isEmpty ? "" : bodyText + "&") + "_csrf=" + token
        return try await sendRaw(method, uri, headers: headers, bodyText: body)
    }

    /// Sends the body as it is (no form token).
    @discardableResult
    func sendRaw(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields, bodyText: String) async throws
        -> Reply
    {
        let response = try await client.execute(
            uri: uri, method: method, headers: headers, body: ByteBuffer(string: bodyText))
        return Reply(response)
    }

    /// The cookies a browser would hold after loading a page (`cookie` plus `ql_csrf`) and the
    /// form token that page carries.
    func formToken(cookie: String?) async throws -> (cookie: String, token: String) {
        try await Self.formToken(client: client, cookie: cookie)
    }

    static func formToken(client: any TestClientProtocol, cookie: String?) async throws -> (
        cookie: String, token: String
    ) {
        var headers: HTTPFields = [.accept: "text/html"]
        if let cookie { headers[.cookie] = cookie }
        let page = try await client.execute(uri: "/login", method: .get, headers: headers, body: nil)
        let html = String(buffer: page.body)
        guard let range = html.range(of: #"<meta name="csrf-token" content=""#),
            let end = html[range.upperBound...].firstIndex(of: "\"")
        else { throw ReplyError(message: "no form token on /login: \(page.status)") }
        let token = String(html[range.upperBound..<end])
        var cookies = cookie.map { [$0] } ?? []
        if let set = page.headers[values: .setCookie].first(where: { $0.hasPrefix("ql_csrf=") }) {
            cookies.append(String(set.split(separator: ";")[0]))
        }
        return (cookies.joined(separator: "; "), token)
    }
}
