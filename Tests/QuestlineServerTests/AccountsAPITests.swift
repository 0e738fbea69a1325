import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineStore
import Testing

@Suite struct AccountsAPITests {
    @Test func signUpLogInReadProfileAndLogOut() async throws {
        try await Harness.run { app in
            let (token, id) = try await app.signUp("ada@example.com", name: "Ada", timeZone: "Asia/Kolkata")
            #expect(token.count == 43)

            let me = try await app.send(.get, "/api/v1/me", token: token)
            #expect(me.status == .ok)
            let profile = try me.decode(Components.Schemas.Member.self)
            #expect(profile.id == id && profile.displayName == "Ada")
            #expect(profile.timeZone == "Asia/Kolkata" && profile.email == "ada@example.com")

            let login = try await app.send(
                .post, "/api/v1/auth/login", json: #"{"login":"ADA@example.com","password":"password123"}"#)
            #expect(login.status == .ok)
            let second = try login.decode(Components.Schemas.Session.self).token
            #expect(second != token)

            #expect(try await app.send(.post, "/api/v1/auth/logout", token: token).status == .noContent)
            let after = try await app.send(.get, "/api/v1/me", token: token)
            after.expectProblem(.unauthorized)
            #expect((after.object["detail"] as? String)?.contains("not valid") == true)
            // The other session is untouched.
            #expect(try await app.send(.get, "/api/v1/me", token: second).status == .ok)
        }
    }

    @Test func wrongPasswordAndUnknownLoginAreTheSame401() async throws {
        try await Harness.run { app in
            _ = try await app.signUp("ada@example.com")
            let wrong = try await app.send(
                .post, "/api/v1/auth/login", json: #"{"login":"ada@example.com","password":"nope-nope"}"#)
            let unknown = try await app.send(
                .post, "/api/v1/auth/login", json: #"{"login":"bob@example.com","password":"nope-nope"}"#)
            wrong.expectProblem(.unauthorized)
            unknown.expectProblem(.unauthorized)
            #expect(wrong.object["detail"] as? String == unknown.object["detail"] as? String)
            try await app.send(.post, "/api/v1/auth/login", json: #"{"login":"","password":""}"#).expectProblem(
                .badRequest, field: "login")
        }
    }

    @Test func sessionsExpireOnTheInjectedClock() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            app.clock.advance(by: 3599)
            #expect(try await app.send(.get, "/api/v1/me", token: token).status == .ok)
            app.clock.advance(by: 2)
            let expired = try await app.send(.get, "/api/v1/me", token: token)
            expired.expectProblem(.unauthorized)
            #expect((expired.object["detail"] as? String)?.contains("expired") == true)
            #expect(expired.headers[.wwwAuthenticate] == "Bearer")
            try await app.send(.get, "/api/v1/me", token: "garbage").expectProblem(.unauthorized)
            try await app.send(.get, "/api/v1/me").expectProblem(.unauthorized)
        }
    }

    @Test func profileUpdatesValidateTheTimeZone() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            let ok = try await app.send(.patch, "/api/v1/me", json: #"{"timeZone":"America/New_York"}"#, token: token)
            #expect(ok.status == .ok)
            let updated = try ok.decode(Components.Schemas.Member.self)
            #expect(updated.timeZone == "America/New_York" && updated.displayName == "Member")
            let bad = try await app.send(
                .patch, "/api/v1/me", json: #"{"timeZone":"GMT+5","displayName":"New"}"#, token: token)
            bad.expectProblem(.badRequest, field: "timeZone")
            // Nothing half-written: the valid name in the same request was not saved either.
            let unchanged = try await app.send(.get, "/api/v1/me", token: token).decode(Components.Schemas.Member.self)
            #expect(unchanged.displayName == "Member")
        }
    }

    @Test func badSignUpsAreProblemsNamingTheFieldAndWriteNothing() async throws {
        try await Harness.run { app in
            let cases: [(body: String, field: String?)] = [
                (#"{"email":"nope","password":"password123","displayName":"A","timeZone":"UTC"}"#, "email"),
                (#"{"email":"a@example.com","password":"short","displayName":"A","timeZone":"UTC"}"#, "password"),
                (
                    #"{"email":"a@example.com","password":"password123","displayName":"  ","timeZone":"UTC"}"#,
                    "displayName"
                ),
                (
                    #"{"email":"a@example.com","password":"password123","displayName":"A","timeZone":"Mars/Base"}"#,
                    "timeZone"
                ),
                (#"{"email":"a@example.com","password":"password123","displayName":"A"}"#, "timeZone"),
                (#"{"email":42,"password":"password123","displayName":"A","timeZone":"UTC"}"#, "email"),
                (#"{"email":"a@example.com","password":null,"displayName":"A","timeZone":"UTC"}"#, "password"),
                (#"{"email":"a@example.com","#, nil),
                (#"[]"#, nil),
                (#""#, nil),
            ]
            for (body, field) in cases {
                let reply = try await app.send(.post, "/api/v1/auth/signup", json: body)
                reply.expectProblem(.badRequest, field: field)
            }
            #expect(try await app.store.accounts.memberCount() == 0)

            _ = try await app.signUp("taken@example.com")
            try await app.send(
                .post, "/api/v1/auth/signup",
                json: #"{"email":"TAKEN@example.com","password":"password123","displayName":"A","timeZone":"UTC"}"#
            )
            .expectProblem(.conflict, field: "email")
            #expect(try await app.store.accounts.memberCount() == 1)
        }
    }

    @Test func wrongMediaTypeOversizedBodyAndUnknownRoutesAreProblems() async throws {
        try await Harness.run(maxBodyBytes: 1024) { app in
            try await app.send(.post, "/api/v1/auth/signup", json: "email=a", headers: [.contentType: "text/plain"])
                .expectProblem(.unsupportedMediaType)
            let big =
                #"{"email":"a@example.com","password":"password123","displayName":""#
                + String(repeating: "x", count: 2000) + #"","timeZone":"UTC"}"#
            try await app.send(.post, "/api/v1/auth/signup", json: big).expectProblem(.contentTooLarge, field: "body")
            try await app.send(.get, "/api/v1/nothing-here").expectProblem(.notFound)
            try await app.send(.get, "/no/such/page").expectProblem(.notFound)
            try await app.send(.put, "/api/v1/me").expectProblem(.notFound)
            #expect(try await app.store.accounts.memberCount() == 0)
        }
    }

    @Test func malformedPathIdsNameTheParameter() async throws {
        try await Harness.run { app in
            let (token, _) = try await app.signUp("ada@example.com")
            try await app.send(.get, "/api/v1/members/not-a-uuid", token: token).expectProblem(
                .badRequest, field: "memberId")
            try await app.send(.get, "/api/v1/households/42", token: token).expectProblem(
                .badRequest, field: "householdId")
        }
    }
}
