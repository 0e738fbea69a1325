import Foundation
import QuestlineCore
import QuestlineL10n
import QuestlineStore
import Testing

@testable import QuestlineServer

/// The page models are pure functions of what the features return: built here from values,
/// without a server or HTTP.
@Suite struct PageModelTests {
    let now = try! Date("2026-05-07T10:00:00Z", strategy: .iso8601)

    func member(
        _ name: String, role: HouseholdRole?, household: HouseholdID? = HouseholdID(UUID()),
        zone: String = "Europe/Berlin"
    ) -> MemberRecord {
        MemberRecord(
            id: MemberID(UUID()), email: role == .child ? nil : "\(name.lowercased())@example.com",
            username: role == .child ? name.lowercased() : nil, displayName: name, timeZone: zone,
            householdID: role == nil ? nil : household, role: role, createdAt: now)
    }

    @Test func theCardShopKnowsWhatTheBalanceCoversBeforeAsking() {
        let cards = [
            TradingCard(id: "banking", name: "Banking", image: "b.svg", rarity: .rare, price: 300, description: ""),
            TradingCard(id: "pit", name: "Pit stop", image: "p.svg", rarity: .common, price: 150, description: ""),
        ]
        let page = StoriesShopPage(
            query: "", cards: cards, balance: 150, owned: ["pit": 2], notice: nil, localizer: .english)
        #expect(page.cards.map(\.affordable) == [false, true])
        #expect(page.cards.map(\.short) == [150, 0])
        #expect(page.cards.map(\.shortText) == ["150 more points needed", "0 more points needed"])
        #expect(page.cards.map(\.buyLabel) == ["Buy Banking for 300 points", "Buy another Pit stop for 150 points"])
        #expect(page.cards[1].confirm == "Spend 150 points on Pit stop?" && page.cards[1].rarity == "common")
        #expect(page.balanceLine == "<strong data-balance>150</strong> points to spend")
        #expect(page.cards.map(\.owned) == [nil, 2])
        #expect(page.cards[0].image == "/content/stories/b.svg")
        #expect(!page.none)
    }

    @Test func theStoriesMenuMarksTheSectionOfEachPage() {
        func current(_ template: String) -> [StoryNavItem] {
            StoryNavItem.menu(for: template, localizer: .english).filter(\.current)
        }
        #expect(current("stories-shop").map(\.path) == ["/stories/points"])
        #expect(current("story-page").map(\.path) == ["/stories"])
        #expect(current("stories-help").map(\.title) == ["Help"])
    }

    @Test func theWeeklyReportCountsInWordsAndStopsAtToday() {
        let today = LocalDay(year: 2026, month: 5, day: 7)!
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let report = WeeklyReport(
            week: today, zone: zone, learning: [today: 1], completions: [now], ledger: [(now, 12), (now, -5)])
        let child = member("Mia", role: .child)
        let page = WeeklyReportPage(report, child: child, today: today)
        #expect(page.totals == "1 minute learned · 1 quest completed · 12 points earned · 5 spent")
        #expect(page.range == "Mon 4 – Sun 10")
        #expect(page.next == nil)
        #expect(page.previous == "2026-04-27")
        #expect(page.charts.map(\.title) == ["Learning minutes", "Quests completed", "Points earned and spent"])
        let earlier = WeeklyReportPage(
            WeeklyReport(week: today.adding(days: -7), zone: zone, learning: [:], completions: [], ledger: []),
            child: child, today: today)
        #expect(earlier.next == "2026-05-04")
        #expect(earlier.totals.hasPrefix("0 minutes learned · 0 quests completed"))
    }

    @Test func theProfileOffersWhatThePolicyAllowsAndKeepsARefusedChildForm() {
        let household = HouseholdID(UUID())
        let guardian = member("Ada", role: .guardian, household: household)
        let child = member("Mia", role: .child, household: household)
        let record = HouseholdRecord(id: household, name: "The Lovelaces", members: [guardian, child])
        let preferences = NotificationPreferences(streakReminders: true, quietHours: nil)
        let refused = FormState(
            values: ["displayName": "Tom", "username": "tom"],
            error: .invalid(field: "password", Message("accounts.error.passwordTooShort", ["count": .number(8)])))
        let page = ProfilePage(
            guardian, household: record, notifications: preferences, refused: .child(refused), localizer: .english)
        #expect(!page.isChild && page.canDeleteSelf)
        #expect(page.childValues["username"] == "tom")
        #expect(page.childErrors == ["password": "Use at least 8 characters."])
        #expect(page.errors.isEmpty)
        #expect(page.household?.members.map(\.deletable) == [false, true])
        #expect(page.household?.isGuardian == true)
        #expect(page.household?.role == "you are a guardian")
        #expect(page.household?.members.map(\.role) == ["guardian", "child"])
        #expect(page.nameHint == "Up to 50 characters.")
        // The language choice: each language in its own name, the game's codes kept as values.
        #expect(page.languages.first { $0.code == "de" }?.name == "Deutsch")
        #expect(page.languages.first { $0.code == "zh-hant" }?.name == "中文（繁體）")
        #expect(page.languages.first { $0.code == "zh-tw" }?.name.hasPrefix("中文") == true)
        #expect(page.languages.map(\.code) == GameLanguage.supported)

        let german = ProfilePage(
            guardian, household: record, notifications: preferences, localizer: Localizer(.init("de")!))
        #expect(german.languages.first { $0.code == "en" }?.name == "English")

        let childsOwn = ProfilePage(child, household: record, notifications: preferences, localizer: .english)
        #expect(childsOwn.isChild && !childsOwn.canDeleteSelf)
        #expect(childsOwn.household?.members.allSatisfy { !$0.deletable } == true)
        #expect(childsOwn.values["timeZone"] == "Europe/Berlin")
    }

    @Test func theErrorPageOffersASignInOnlyWhenThatIsWhatIsMissing() {
        let missing = ErrorPage(
            Problem.from(DomainError.unauthenticated(Message("reading.error.logInToJoin"))), requestID: "r1",
            localizer: .english)
        #expect(
            missing.signIn && missing.status == 401
                && missing.detail == Localizer.english("reading.error.logInToJoin"))
        let gone = ErrorPage(
            Problem.from(DomainError.notFound(Message("quests.error.noSuchQuest"))), requestID: "r2",
            localizer: .english)
        #expect(!gone.signIn && gone.status == 404 && gone.requestId == "r2")
    }

    @Test func theDevicePageSaysWhatTheRedirectCameBackFrom() {
        let child = member("Mia", role: .child)
        #expect(DevicePage.notice(["zone"], child: child) == "Mia's time zone is saved.")
        #expect(DevicePage.notice(["reported"], child: child) == "Use reported.")
        #expect(DevicePage.notice([], child: child) == nil)
    }

    /// The renderer reads a model's stored properties, an empty optional as absent (so the
    /// template's section is skipped), a filled one as its value.
    @Test func templatesReadStoredPropertiesAndOptionals() {
        let page = ErrorPage(
            Problem.from(DomainError.notFound(Message("quests.error.noSuchQuest"))), requestID: "r1",
            localizer: .english)
        #expect(PageContext.property("requestId", of: page) as? String == "r1")
        let shop = StoriesShopPage(query: "", cards: [], balance: 0, owned: [:], notice: nil, localizer: .english)
        #expect(PageContext.property("notice", of: shop) == nil)
        #expect(PageContext.property("nothing", of: shop) == nil)
        let context = PageContext(layout: ["notice": "from the layout", "title": "Shop"], page: shop)
        #expect(context.child(named: "title") as? String == "Shop")
        #expect(context.child(named: "balance") as? Int == 0)
    }

    /// A form token is made on first use: nothing is minted for a request that never reads it;
    /// a browser without a cookie gets a new id once, a browser with one keeps it.
    @Test func aFormTokenIsMadeOnlyWhenAPageAsksForIt() {
        let calls = Counter()
        let fresh = FormTokenSource(held: nil) { browser in
            calls.add()
            return "token-for-" + browser
        }
        #expect(fresh.minted == nil && calls.value == 0)
        let token = fresh.token
        let minted = try! #require(fresh.minted)
        #expect(token == "token-for-" + minted && FormTokenMiddleware.wellFormed(minted))
        #expect(fresh.token == token && calls.value == 1)
        let held = FormTokenSource(held: "browser-id") { "token-for-" + $0 }
        #expect(held.token == "token-for-browser-id" && held.minted == nil)
    }
}

/// Counts calls from a `@Sendable` closure.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
