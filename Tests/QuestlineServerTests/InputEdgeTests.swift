import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import QuestlineStore
import Testing

/// Input at its edges: the two requests that took the server down, control characters in every
/// part of a request (body, query, path, web form), dates outside their window, paging outside
/// the contract's bounds. Each is refused with a 400 naming the field, stores nothing, and
/// leaves the server answering.
@Suite struct InputEdgeTests {
    private let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "text/html"]

    private func expectAlive(_ app: Harness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let health = try await app.send(.get, "/health")
        #expect(health.status == .ok, sourceLocation: sourceLocation)
    }

    @Test func theTwoCrashingRequestsAreRefusedAndTheServerAnswersAfterwards() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            let huge =
                #"{"importId":"x","total":1,"offset":9223372036854775807,"items":[{"language":"en","title":"T","savedAt":"2026-01-01T00:00:00Z"}]}"#
            try await app.send(.post, "/api/v1/saved/import", json: huge, token: token).expectProblem(
                .badRequest, field: "offset")
            try await expectAlive(app)
            #expect(
                try await app.send(.get, "/api/v1/saved", token: token).decode(Components.Schemas.SavedList.self).total
                    == 0)

            try await app.send(.get, "/api/v1/game/archive?month=9999-12", token: token).expectProblem(
                .badRequest, field: "month")
            let page = try await app.send(
                .get, "/game/archive?month=9999-12", headers: [.cookie: "ql_session=\(token)", .accept: "text/html"])
            #expect(page.status == .badRequest)
            #expect(page.text.contains("The archive covers 2025-05 to 2026-05"))
            try await expectAlive(app)
        }
    }

    @Test func theArchiveHoldsOnlyItsOwnMonthsAndLinksNoFurther() async throws {
        try await Harness.run { app in
            // Today is 2026-05-07 in Berlin: the archive reaches back 365 days, to 2025-05-07.
            let (token, _) = try await app.signUp("ada@example.com")
            let oldest = try await app.send(.get, "/api/v1/game/archive?month=2025-05", token: token)
            #expect(oldest.status == .ok, "\(oldest.text)")
            #expect(try oldest.decode(Components.Schemas.GameArchive.self).month == "2025-05")
            try await app.send(.get, "/api/v1/game/archive?month=2025-04", token: token).expectProblem(
                .badRequest, field: "month")
            try await app.send(.get, "/api/v1/game/archive?month=2026-06", token: token).expectProblem(
                .badRequest, field: "month")

            let cookie: HTTPFields = [.cookie: "ql_session=\(token)", .accept: "text/html"]
            let current = try await app.send(.get, "/game/archive", headers: cookie)
            #expect(current.text.contains("month=2026-04"))
            #expect(!current.text.contains("month=2026-06"))
            let first = try await app.send(.get, "/game/archive?month=2025-05", headers: cookie)
            #expect(first.text.contains("month=2025-06"))
            #expect(!first.text.contains("month=2025-04"))
        }
    }

    @Test func aNulAnywhereInABodyIsRefusedNamingTheFieldAndNothingIsStored() async throws {
        try await Harness.run { app in
            try await app.send(
                .post, "/api/v1/auth/signup",
                json: #"{"email":"a\u0000b@example.com","password":"password123","displayName":"Ada"}"#
            )
            .expectProblem(.badRequest, field: "email")
            // bcrypt stops at a NUL: such a password is refused, never hashed short.
            try await app.send(
                .post, "/api/v1/auth/signup",
                json: #"{"email":"ada@example.com","password":"abcdefgh\u0000XYZ","displayName":"Ada"}"#
            )
            .expectProblem(.badRequest, field: "password")
            #expect(try await app.store.accounts.memberCount() == 0)
            try await app.send(.post, "/api/v1/auth/login", json: #"{"login":"ada@example.com","password":"abcdefgh"}"#)
                .expectProblem(.unauthorized)

            let (token, _) = try await app.signUp("ada@example.com")
            let nested = try await app.send(
                .post, "/api/v1/saved/import", token: token,
                json: #"""
                    {"importId":"i","total":2,"offset":0,"items":[
                      {"language":"en","title":"Fine","savedAt":"2026-01-01T00:00:00Z"},
                      {"language":"en","title":"Bad","savedAt":"2026-01-01T00:00:00Z","readingList":"a\u0007b"}]}
                    """#)
            nested.expectProblem(.badRequest, field: "items[1].readingList")
            #expect(
                try await app.send(.get, "/api/v1/saved", token: token).decode(Components.Schemas.SavedList.self).total
                    == 0)
            // C1 controls arrive as raw UTF-8, not escapes: refused all the same.
            try await app.send(
                .post, "/api/v1/saved", json: "{\"language\":\"en\",\"title\":\"a\u{85}b\"}", token: token
            )
            .expectProblem(.badRequest, field: "title")
            // An escaped backslash before "u0000" is the text \u0000, not a NUL.
            let literal = try await app.send(
                .post, "/api/v1/saved", json: #"{"language":"en","title":"C:\\u0000"}"#, token: token)
            #expect(literal.status == .ok, "\(literal.text)")
            try await expectAlive(app)
        }
    }

    @Test func lineBreaksAreTextOnlyInMultiLineFields() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            let bio = try await app.send(
                .put, "/api/v1/profile/details", json: #"{"bio":"Line one\nLine two\twith a tab"}"#, token: token)
            #expect(bio.status == .ok, "\(bio.text)")
            try await app.send(.put, "/api/v1/profile/details", json: #"{"location":"Austin\nTexas"}"#, token: token)
                .expectProblem(.badRequest, field: "location")
            try await app.send(.put, "/api/v1/profile/details", json: #"{"bio":"a\u0000b"}"#, token: token)
                .expectProblem(.badRequest, field: "bio")
        }
    }

    @Test func queryAndPathTextFollowTheSameRule() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            try await app.send(.delete, "/api/v1/saved?language=en&title=a%00b", token: token).expectProblem(
                .badRequest, field: "title")
            try await app.send(.get, "/api/v1/reading/articles?q=%ED%A0%80", token: token).expectProblem(
                .badRequest, field: "q")
            try await app.send(.delete, "/api/v1/comments/a%00b", token: token).expectProblem(
                .badRequest, field: "path")
            try await expectAlive(app)
        }
    }

    @Test func pagingOutsideTheContractsBoundsIsRefusedNotClamped() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            try await app.send(.get, "/api/v1/saved?limit=-1", token: token).expectProblem(.badRequest, field: "limit")
            try await app.send(.get, "/api/v1/saved?limit=201", token: token).expectProblem(.badRequest, field: "limit")
            try await app.send(.get, "/api/v1/saved?offset=9223372036854775807", token: token).expectProblem(
                .badRequest, field: "offset")
            try await app.send(.get, "/api/v1/points?limit=0", token: token).expectProblem(.badRequest, field: "limit")
            #expect(try await app.send(.get, "/api/v1/saved?limit=200&offset=1000000", token: token).status == .ok)
        }
    }

    @Test func datesOutsideTheirWindowAreRefusedNamingTheField() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            func read(_ at: String) -> String {
                #"{"eventId":"e-\#(at)","articleId":"Octopus","title":"Octopus","language":"en","at":"\#(at)","timeZone":"UTC"}"#
            }
            for at in ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "2000-06-01T00:00:00Z"]
            {
                try await app.send(.post, "/api/v1/reading/reads", json: read(at), token: token).expectProblem(
                    .badRequest, field: "at")
            }
            try await app.send(
                .post, "/api/v1/reading/reads/batch",
                json: #"{"reads":[\#(read("2026-05-07T09:00:00Z")),\#(read("1899-12-31T23:59:59Z"))]}"#,
                token: token
            ).expectProblem(.badRequest, field: "reads[1].at")

            try await app.send(
                .put, "/api/v1/admin/campaigns/far",
                token: (try await app.signUpAdministrator("admin@example.com")).token,
                json: #"""
                    {"id":"far","startDay":"0001-01-01","endDay":"9999-12-31","goalDays":10,"claimUntilDay":"9999-12-31","removeAfterDay":"9999-12-31"}
                    """#
            ).expectProblem(.badRequest, field: "startDay")

            let f = try await HouseholdAPITests().family(app)
            try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/game", json: #"{"name":"Minecraft","role":"reward"}"#,
                token: f.guardian)
            try await app.send(
                .post, "/api/v1/children/\(f.childID)/quests",
                json: #"""
                    {"title":"Forever","goalType":"dailyMinutes","target":30,"rewardApps":[{"appToken":"game","minutes":20}],"endDate":"9999-12-31"}
                    """#, token: f.guardian
            ).expectProblem(.badRequest, field: "endDate")
            try await expectAlive(app)
        }
    }

    @Test func webFormsFollowTheSameTextRule() async throws {
        try await Harness.run { app in
            let posted = try await app.send(
                .post, "/signup", headers: form,
                bodyText: "email=ada%40example.com&password=abcdefgh%00XYZ&displayName=Ada&timeZone=UTC")
            #expect(posted.status == .badRequest)
            #expect(try await app.store.accounts.memberCount() == 0)
        }
    }
}

extension Harness {
    /// Sends JSON with a token, the arguments in the order the long bodies read best.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String, json: String) async throws -> Reply {
        try await send(method, uri, json: json, token: token)
    }
}
