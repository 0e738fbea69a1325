import Foundation
import QuestlineCore
public import QuestlineStore

/// Demo accounts for trying the product: a guardian (an administrator) with a household and a
/// child.
/// Passwords are random and shown once, when the accounts are created.
public enum DemoData {
    public struct Account: Sendable, Equatable {
        public let role: String
        public let login: String
        public let password: String
    }

    public static let guardianEmail = "demo.guardian@questline.example"
    public static let childUsername = "demo-kid"

    /// The demo's secret key, made by the first instance that asks and kept in the database:
    /// allowed only with demo data (a copy of the database then holds the key too, so a server
    /// without demo data must be given one: `--secret-key-file`, `QUESTLINE_SECRET_KEY`).
    public static func storedSecretKey(store: Store) async throws -> SecretBox {
        let stored = try await store.accounts.sharedSecret(
            "demo-secret-key", candidate: SecretBox.newKey(), now: Date())
        guard case .success(let box) = SecretBox.parse(stored) else {
            throw StoreError.noRowReturned("a well-formed demo secret key")
        }
        return box
    }

    /// Creates the demo accounts if they are missing. Returns the accounts created now (empty
    /// when they already existed).
    public static func ensure(store: Store, configuration: FeatureConfiguration) async throws -> [Account] {
        // The demo accounts are made with their zones; none is changed afterwards.
        let accounts = AccountsFeature(store: store, configuration: configuration, events: FeatureEvents())
        if try await store.accounts.credentials(login: guardianEmail) != nil { return [] }
        let guardianPassword = Secret.makeCode().lowercased()
        let childPassword = Secret.makeCode().lowercased()
        let guardian = try await accounts.signUp(
            email: guardianEmail, password: guardianPassword,
            displayName: "Demo Guardian", timeZone: "Europe/Berlin", scope: .system)
        let household = try await accounts.createHousehold(name: "Demo family", as: guardian.member, scope: .system)
        let me = try await store.accounts.member(guardian.member.id).orNoRow("the demo guardian just written")
        let kid = try await accounts.createChild(
            in: household.id, as: me, username: childUsername, password: childPassword,
            displayName: "Demo Kid", timeZone: "Europe/Berlin", scope: .system)
        try await familyQuests(store: store, configuration: configuration, guardian: me, child: kid.id)
        // The demo guardian administers the demo (campaigns, the funnel, webhooks): a stored role.
        _ = try await accounts.setAdministrator(login: guardianEmail, grant: true, by: "demo-data", scope: .system)
        return [
            Account(role: "guardian", login: guardianEmail, password: guardianPassword),
            Account(role: "child", login: childUsername, password: childPassword),
        ]
    }

    /// The demo child's apps, three quests and a little usage today, so every family screen has
    /// something real to show.
    static func familyQuests(store: Store, configuration: FeatureConfiguration, guardian: MemberRecord, child: MemberID)
        async throws
    {
        let family = FamilyFeatures(store: store, configuration: configuration)
        let apps: [(String, String, String, String, Int?)] = [
            ("demo.khan-kids", "Khan Academy Kids", "📘", "learning", 2),
            ("demo.duolingo", "Duolingo", "🦉", "learning", 1),
            ("demo.prodigy", "Prodigy Math", "➗", "learning", 3), ("demo.minecraft", "Minecraft", "🎮", "reward", nil),
            ("demo.youtube-kids", "YouTube Kids", "📺", "reward", nil),
        ]
        for (token, name, icon, role, rate) in apps {
            _ = try await family.shield.putApp(
                child, as: guardian, token: token, name: name, icon: icon, role: role, pointsPerMinute: rate,
                scope: .system)
        }
        let drafts = [
            QuestDraft(
                title: "Learn 30 minutes today", description: "Any learning app counts.", goalType: "dailyMinutes",
                target: 30,
                rewardApps: [RewardUnlock(token: "demo.minecraft", minutes: 30)], bonusPercent: 10),
            QuestDraft(
                title: "Math week", goalType: "specificApps", target: 60, period: "week",
                learningApps: ["demo.prodigy"],
                rewardApps: [RewardUnlock(token: "demo.youtube-kids", minutes: 20)], bonusPercent: 20),
            QuestDraft(
                title: "Seven-day streak", goalType: "streak", target: 7, dailyMinimumMinutes: 10, bonusPercent: 25),
            QuestDraft(
                title: "Reading ladder", description: "A little more each day.", goalType: "milestones", target: 3,
                steps: [10, 20, 30], rewardApps: [RewardUnlock(token: "demo.minecraft", minutes: 45)], bonusPercent: 15),
        ]
        for draft in drafts {
            _ = try await family.quests.createQuest(for: child, draft: draft, as: guardian, scope: .system)
        }
        let kid = try await store.accounts.member(child).orNoRow("the demo child just written")
        let now = configuration.clock.now()
        _ = try await family.usage.reportUsage(
            child,
            reports: [
                UsageReportInput(
                    id: "demo-1", appToken: "demo.duolingo", startedAt: now.addingTimeInterval(-3600),
                    durationSeconds: 600, timeZone: "Europe/Berlin"),
                UsageReportInput(
                    id: "demo-2", appToken: "demo.prodigy", startedAt: now.addingTimeInterval(-1800),
                    durationSeconds: 480, timeZone: "Europe/Berlin"),
            ], as: kid, scope: .system)
    }
}
