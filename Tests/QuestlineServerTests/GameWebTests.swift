import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

@Suite struct GameWebTests {
    private func cookie(_ token: String) -> HTTPFields { [.cookie: "ql_session=\(token)", .accept: "text/html"] }
    private func form(_ token: String) -> HTTPFields {
        [.cookie: "ql_session=\(token)", .contentType: "application/x-www-form-urlencoded", .accept: "text/html"]
    }

    @Test func splashPlayRevealAndResultsWithoutJavaScript() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 86_400 * 30) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let splash = try await app.send(.get, "/game", headers: cookie(token))
            // The words come from the catalog, escaped as every page value is (' is &#39;).
            #expect(splash.text.contains("Play today&#39;s game"))
            #expect(splash.text.contains("About this game"))
            // A sentence with markup inside stays one message.
            #expect(
                splash.text.contains(
                    #"Today is <time datetime="2026-05-07">Thursday, 7 May 2026</time>. A new game unlocks at midnight."#
                ))
            #expect(splash.text.contains("Open the archive"))

            let started = try await app.send(.post, "/game/start", headers: form(token), bodyText: "language=en")
            #expect(started.status == .seeOther)
            let play = try #require(started.headers[.location])
            let id = String(play.split(separator: "/").last!)

            let question = try await app.send(.get, play, headers: cookie(token))
            #expect(question.text.contains("Question 1 of 5"))
            // The events are in the game's language, marked so, inside a page of the reader's.
            #expect(question.text.contains(#"<html lang="en" dir="ltr">"#))
            #expect(question.text.contains(#"class="game-card__text" tabindex="0" lang="en" dir="auto">"#))
            #expect(question.text.contains(#"name="choice" value="first""#))
            #expect(question.text.contains("bubble--current"))
            #expect(!question.text.contains("Came first"))  // no answer shown before submitting

            // Leaving mid-game and coming back offers "Continue playing".
            let noChoice = try await app.send(
                .post, "\(play)/answer", headers: form(token), bodyText: "questionIndex=0")
            #expect(noChoice.headers[.location] == "\(play)?choose=1")
            let answered = try await app.send(
                .post, "\(play)/answer", headers: form(token), bodyText: "questionIndex=0&choice=first")
            #expect(answered.headers[.location] == "\(play)?reveal=0")
            let reveal = try await app.send(.get, "\(play)?reveal=0", headers: cookie(token))
            #expect(reveal.text.contains("Correct!") || reveal.text.contains("Incorrect!"))
            #expect(reveal.text.contains("Came first"))
            #expect(reveal.text.contains("Your answer"))
            #expect(reveal.text.contains("bubble--correct") || reveal.text.contains("bubble--incorrect"))
            #expect(try await app.send(.get, "/game", headers: cookie(token)).text.contains("Continue playing"))

            for index in 1..<5 {
                _ = try await app.send(
                    .post, "\(play)/answer", headers: form(token), bodyText: "questionIndex=\(index)&choice=second")
            }
            let results = try await app.send(.get, play, headers: cookie(token))
            #expect(results.text.contains("right"))
            #expect(results.text.contains("Past games are in the archive"))
            #expect(try await app.send(.get, "/game", headers: cookie(token)).text.contains("See today&#39;s results"))

            let archive = try await app.send(.get, "/game/archive?month=2026-05", headers: cookie(token))
            #expect(archive.text.contains("May 2026"))
            #expect(archive.text.contains("/game/play/\(id)"))
            #expect(archive.text.contains(#"name="date" value="2026-05-06""#))
        }
    }

    @Test func theGamePagesNeedSignInAndSayWhenThereIsNoGame() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 86_400 * 30) { app in
            let anonymous = try await app.send(.get, "/game", headers: [.accept: "text/html"])
            #expect(anonymous.status == .seeOther)
            #expect(anonymous.headers[.location] == "/login?next=/game")
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            app.clock.set(try Date("2026-04-01T12:00:00Z", strategy: .iso8601))  // feed unreachable
            let down = try await app.send(.get, "/game", headers: cookie(token))
            #expect(down.status == .ok)
            #expect(down.text.contains("Today&#39;s game isn&#39;t available"))
            #expect(down.text.contains("needs a connection to Wikipedia") && !down.text.contains("questline"))
            // The days whose feed ships with the product are offered at once, newest first.
            #expect(down.text.contains("Play Thursday, 30 October 2025"))
            #expect(down.text.contains("Play Wednesday, 7 May 2025"))
            #expect(
                down.text.range(of: "30 October 2025")!.lowerBound < down.text.range(of: "7 May 2025")!.lowerBound)
            // The archive offers only those days while Wikipedia cannot be reached.
            let archive = try await app.send(.get, "/game/archive?month=2025-10", headers: cookie(token))
            #expect(archive.text.contains(#"name="date" value="2025-10-30""#))
            #expect(!archive.text.contains(#"name="date" value="2025-10-29""#))
            #expect(archive.text.contains("29 October 2025: needs a connection to Wikipedia"))
            let past = try await app.send(
                .post, "/game/start", headers: form(token), bodyText: "language=en&date=2025-10-30")
            #expect(past.status == .seeOther)
            #expect(try await app.send(.get, #require(past.headers[.location]), headers: cookie(token)).status == .ok)
            app.clock.set(try Date("2026-05-07T12:00:00Z", strategy: .iso8601))
            let (other, _) = try await app.signUp("eve@example.com", timeZone: "UTC")
            let started = try await app.send(.post, "/game/start", headers: form(token), bodyText: "language=en")
            let play = try #require(started.headers[.location])
            #expect(try await app.send(.get, play, headers: cookie(other)).status == .notFound)
        }
    }

    @Test func theMembersPrimaryLanguageIsTheGamesDefaultAndThePickerRemembersIt() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 86_400 * 30) { app in
            let (token, _) = try await app.signUp("lena@example.com", timeZone: "UTC")
            #expect(
                try await app.send(.get, "/api/v1/me", token: token).decode(Components.Schemas.Member.self).language
                    == nil)
            #expect(
                try await app.send(.get, "/game", headers: cookie(token)).text.contains(
                    #"<option value="en" selected>English</option>"#))
            let changed = try await app.send(.patch, "/api/v1/me", json: #"{"language":"de"}"#, token: token)
            #expect(try changed.decode(Components.Schemas.Member.self).language == "de")
            try await app.send(.patch, "/api/v1/me", json: #"{"language":"xx"}"#, token: token)
                .expectProblem(.badRequest, field: "language")
            let splash = try await app.send(.get, "/game", headers: cookie(token)).text
            #expect(splash.contains(#"<option value="de" selected>"#))
            #expect(splash.contains(#"<option value="zh-tw">Chinesisch (Taiwan)</option>"#))  // in German now
            // Picking another language on the splash is remembered.
            let picked = try await app.send(.post, "/game/language", headers: form(token), bodyText: "language=fr")
            #expect(picked.status == .seeOther && picked.headers[.location] == "/game")
            #expect(
                try await app.send(.get, "/api/v1/me", token: token).decode(Components.Schemas.Member.self).language
                    == "fr")
            #expect(
                try await app.send(.get, "/game", headers: cookie(token)).text.contains(
                    #"<option value="fr" selected>"#))
            #expect(
                try await app.send(.get, "/profile", headers: cookie(token)).text.contains(
                    #"<option value="fr" lang="fr" selected>Français</option>"#))
        }
    }

    /// An Arabic game inside a page of another language: its events carry `lang="ar"` and read
    /// right to left, while the page's own words stay in the page's language.
    @Test func theEventsAreMarkedWithTheGamesLanguage() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 86_400 * 30) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let started = try await app.send(.post, "/game/start", headers: form(token), bodyText: "language=ar")
            let play = try #require(started.headers[.location])
            let question = try await app.send(.get, play + "?uselang=en", headers: cookie(token)).text
            #expect(question.contains(#"<html lang="en" dir="ltr">"#))
            #expect(question.contains(#"class="game-card__text" tabindex="0" lang="ar" dir="rtl">"#))
            #expect(question.contains("Question 1 of 5"))
        }
    }

    /// Every word of the game's pages comes from the catalog: in the pseudo-locale, none of
    /// them is left as English.
    @Test func theGamesWordsComeFromTheCatalog() async throws {
        try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 86_400 * 30) { app in
            let (token, _) = try await app.signUp("ada@example.com", timeZone: "UTC")
            let splash = try await app.send(.get, "/game?uselang=qps-ploc", headers: cookie(token)).text
            #expect(splash.contains("[!! "))
            for english in ["Play today", "About this game", "Open the archive", "Your statistics", "Change language"] {
                #expect(!splash.contains(english), "\(english)")
            }
            let started = try await app.send(.post, "/game/start", headers: form(token), bodyText: "language=en")
            let play = try #require(started.headers[.location])
            let question = try await app.send(.get, play + "?uselang=qps-ploc", headers: cookie(token)).text
            for english in ["Question 1 of 5", "Submit", "Your answers", "not answered yet"] {
                #expect(!question.contains(english), "\(english)")
            }
            let archive = try await app.send(.get, "/game/archive?uselang=qps-ploc", headers: cookie(token)).text
            for english in ["Each past game", "What the days show", "not played yet", "today's game"] {
                #expect(!archive.contains(english), "\(english)")
            }
        }
    }
}
