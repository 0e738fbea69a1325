import Foundation
import HTTPTypes
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import Testing

/// Administrators are a stored role (`questline admin grant`): an e-mail gives none, whoever
/// signs up with it. Before, `--admin-email` matched the e-mail of any account, never verified,
/// so anyone who signed up with a configured address (or re-created it after the real one was
/// deleted) was an administrator.
@Suite struct AdministratorTests {
    @Test func signingUpWithAnAdministratorsAddressGivesNoRole() async throws {
        try await Harness.run { app in
            let admin = try await app.signUpAdministrator("boss@example.com")
            let impostor = try await app.signUp("demo.guardian@questline.example")
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/admin/webhooks"),
                (.get, "/api/v1/admin/reading/funnel?campaign=2026"),
            ] {
                try await app.send(method, path, token: impostor.token).expectProblem(.forbidden)
                let allowed = try await app.send(method, path, token: admin.token)
                #expect(allowed.status != .forbidden, "\(path): \(allowed.status) \(allowed.text)")
            }

            // Deleted and signed up again with the same address: no role.
            #expect(try await app.send(.delete, "/api/v1/me", token: admin.token).status == .noContent)
            let again = try await app.signUp("boss@example.com")
            try await app.send(.get, "/api/v1/admin/webhooks", token: again.token).expectProblem(.forbidden)

            // A revoked role stops at once on this instance.
            let ops = try await app.signUpAdministrator("ops@example.com")
            #expect(try await app.send(.get, "/api/v1/admin/webhooks", token: ops.token).status == .ok)
            _ = try await AccountsFeature(
                store: app.store, configuration: FeatureConfiguration(clock: app.clock), events: FeatureEvents()
            )
            .setAdministrator(login: "ops@example.com", grant: false, by: "test", scope: .system)
            app.clock.advance(by: 6)  // past the session cache of the instance under test
            try await app.send(.get, "/api/v1/admin/webhooks", token: ops.token).expectProblem(.forbidden)
        }
    }

    /// The web's funnel page asks the same policy.
    @Test func theFunnelPageIsForAdministratorsOnly() async throws {
        try await Harness.run { app in
            let impostor = try await app.signUp("admin@example.com")
            let page = try await app.send(
                .get, "/admin/funnel", headers: [.cookie: "ql_session=\(impostor.token)", .accept: "text/html"])
            #expect(page.status == .forbidden, "\(page.status)")
            let admin = try await app.signUpAdministrator("real-admin@example.com")
            let allowed = try await app.send(
                .get, "/admin/funnel", headers: [.cookie: "ql_session=\(admin.token)", .accept: "text/html"])
            #expect(allowed.status != .forbidden, "\(allowed.status)")
        }
    }
}
