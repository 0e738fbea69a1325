import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineStore
import Testing

@Suite struct HouseholdAPITests {
    /// A guardian with a household and a child, a guardian of another household, and a loner.
    struct Family {
        let guardian: String, guardianID: String, household: String
        let child: String, childID: String
        let otherGuardian: String, otherHousehold: String
        let stranger: String, strangerID: String
    }

    func family(_ app: Harness) async throws -> Family {
        let (guardian, guardianID) = try await app.signUp("grace@example.com", name: "Grace")
        let home = try await app.send(.post, "/api/v1/households", json: #"{"name":"Hopper home"}"#, token: guardian)
        #expect(home.status == .created, "\(home.text)")
        let household = try home.string("id")
        let child = try await app.send(
            .post, "/api/v1/households/\(household)/children",
            json: #"{"username":"Kid1","password":"kidpass123","displayName":"Kid"}"#, token: guardian)
        #expect(child.status == .created, "\(child.text)")
        let created = try child.decode(Components.Schemas.Member.self)
        // The guardian's zone by default.
        #expect(created.timeZone == "Europe/Berlin" && created.role == .child)
        let childLogin = try await app.send(
            .post, "/api/v1/auth/login", json: #"{"login":"kid1","password":"kidpass123"}"#)
        #expect(childLogin.status == .ok)
        let (other, _) = try await app.signUp("olga@example.com")
        let otherHome = try await app.send(.post, "/api/v1/households", json: #"{"name":"Other"}"#, token: other)
        let (stranger, strangerID) = try await app.signUp("sam@example.com")
        return try Family(
            guardian: guardian, guardianID: guardianID, household: household,
            child: childLogin.string("token"), childID: child.string("id"),
            otherGuardian: other, otherHousehold: otherHome.string("id"),
            stranger: stranger, strangerID: strangerID)
    }

    /// A second guardian of the family's household (a new account, invited); returns its token.
    func addGuardian(_ app: Harness, to f: Family) async throws -> String {
        let invite = try await app.send(
            .post, "/api/v1/households/\(f.household)/invitations", json: #"{"role":"guardian"}"#, token: f.guardian)
        let (token, _) = try await app.signUp("second-guardian@example.com", name: "Second")
        let joined = try await app.send(
            .post, "/api/v1/invitations/accept", json: #"{"code":"\#(try invite.string("code"))"}"#, token: token)
        #expect(joined.status == .ok, "\(joined.text)")
        return token
    }

    @Test func householdMembersSeeEachOtherAndStrangersSeeNothing() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let seen = try await app.send(.get, "/api/v1/households/\(f.household)", token: f.child)
            #expect(seen.status == .ok)
            #expect(try seen.decode(Components.Schemas.Household.self).members.count == 2)
            #expect(try await app.send(.get, "/api/v1/members/\(f.guardianID)", token: f.child).status == .ok)
            #expect(try await app.send(.get, "/api/v1/members/\(f.childID)", token: f.guardian).status == .ok)

            for token in [f.stranger, f.otherGuardian] {
                try await app.send(.get, "/api/v1/households/\(f.household)", token: token).expectProblem(.notFound)
                try await app.send(.get, "/api/v1/members/\(f.childID)", token: token).expectProblem(.notFound)
                try await app.send(
                    .patch, "/api/v1/members/\(f.childID)", json: #"{"displayName":"Pwned"}"#, token: token
                )
                .expectProblem(.notFound)
                try await app.send(
                    .post, "/api/v1/households/\(f.household)/children",
                    json: #"{"username":"intruder","password":"password123","displayName":"X"}"#, token: token
                )
                .expectProblem(.notFound)
                try await app.send(
                    .post, "/api/v1/households/\(f.household)/invitations", json: #"{"role":"guardian"}"#, token: token
                )
                .expectProblem(.notFound)
            }
            try await app.send(.get, "/api/v1/members/\(f.strangerID)", token: f.guardian).expectProblem(.notFound)
            try await app.send(.get, "/api/v1/households/\(f.household)").expectProblem(.unauthorized)
            // A guardian of the household cannot see the other household either.
            try await app.send(.get, "/api/v1/households/\(f.otherHousehold)", token: f.guardian).expectProblem(
                .notFound)
        }
    }

    @Test func onlyGuardiansChangeOthersAndOnlyChildren() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let renamed = try await app.send(
                .patch, "/api/v1/members/\(f.childID)", json: #"{"displayName":"Kiddo"}"#, token: f.guardian)
            #expect(renamed.status == .ok)
            #expect(try renamed.decode(Components.Schemas.Member.self).displayName == "Kiddo")
            try await app.send(
                .patch, "/api/v1/members/\(f.guardianID)", json: #"{"displayName":"Boss"}"#, token: f.child
            )
            .expectProblem(.forbidden)
            try await app.send(
                .post, "/api/v1/households/\(f.household)/children",
                json: #"{"username":"sibling","password":"password123","displayName":"S"}"#, token: f.child
            )
            .expectProblem(.forbidden)
            try await app.send(
                .post, "/api/v1/households/\(f.household)/invitations", json: #"{"role":"child"}"#, token: f.child
            )
            .expectProblem(.forbidden)
            let guardian = try await app.send(.get, "/api/v1/members/\(f.guardianID)", token: f.guardian)
            #expect(try guardian.decode(Components.Schemas.Member.self).displayName == "Grace")
        }
    }

    @Test func childUsernamesAreValidatedAndUnique() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            try await app.send(
                .post, "/api/v1/households/\(f.household)/children",
                json: #"{"username":"kid1","password":"password123","displayName":"Twin"}"#, token: f.guardian
            )
            .expectProblem(.conflict, field: "username")
            try await app.send(
                .post, "/api/v1/households/\(f.household)/children",
                json: #"{"username":"a b","password":"password123","displayName":"X","timeZone":"Nowhere"}"#,
                token: f.guardian
            )
            .expectProblem(.badRequest, field: "username")
            #expect(try await app.store.accounts.memberCount() == 4)
        }
    }

    @Test func invitationsAddAnExistingAccountOnce() async throws {
        try await Harness.run { app in
            let f = try await family(app)
            let invite = try await app.send(
                .post, "/api/v1/households/\(f.household)/invitations", json: #"{"role":"guardian"}"#, token: f.guardian
            )
            #expect(invite.status == .created)
            let code = try invite.string("code")
            #expect(code.count == 10)
            let joined = try await app.send(
                .post, "/api/v1/invitations/accept", json: #"{"code":"\#(code.lowercased())"}"#, token: f.stranger)
            #expect(joined.status == .ok, "\(joined.text)")
            #expect(try joined.decode(Components.Schemas.Household.self).members.count == 3)
            #expect(try await app.send(.get, "/api/v1/members/\(f.childID)", token: f.stranger).status == .ok)
            // Used codes do not work again; members of a household cannot join another.
            let (late, _) = try await app.signUp("late@example.com")
            try await app.send(.post, "/api/v1/invitations/accept", json: #"{"code":"\#(code)"}"#, token: late)
                .expectProblem(.notFound)
            try await app.send(.post, "/api/v1/households", json: #"{"name":"Second"}"#, token: f.guardian)
                .expectProblem(.conflict)
        }
    }
}
