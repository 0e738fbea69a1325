import Foundation
import QuestlineCore
import QuestlineStore

/// Demo accounts for trying the product: a guardian with a household and a child.
/// Passwords are random and shown once, when the accounts are created.
public enum DemoData {
    public struct Account: Sendable, Equatable {
        public let role: String
        public let login: String
        public let password: String
    }

    public static let guardianEmail = "demo.guardian@questline.example"
    public static let childUsername = "demo-kid"

    /// Creates the demo accounts if they are missing. Returns the accounts created now (empty
    /// when they already existed).
    public static func ensure(store: Store, configuration: AppConfiguration) async throws -> [Account] {
        let accounts = AccountService(store: store, configuration: configuration)
        if try await store.accounts.credentials(login: guardianEmail) != nil { return [] }
        let guardianPassword = Secret.makeCode().lowercased()
        let childPassword = Secret.makeCode().lowercased()
        let guardian = try await accounts.signUp(email: guardianEmail, password: guardianPassword,
                                                 displayName: "Demo Guardian", timeZone: "Europe/Berlin")
        let household = try await accounts.createHousehold(name: "Demo family", as: guardian.member)
        let me = try await store.accounts.member(guardian.member.id)!
        _ = try await accounts.createChild(in: household.id, as: me, username: childUsername, password: childPassword,
                                           displayName: "Demo Kid", timeZone: "Europe/Berlin")
        return [
            Account(role: "guardian", login: guardianEmail, password: guardianPassword),
            Account(role: "child", login: childUsername, password: childPassword),
        ]
    }
}
