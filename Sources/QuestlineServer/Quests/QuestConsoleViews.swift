import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

// The guardian's screens of family quests as typed page models: the console, a child's page
// and the weekly report. Each is built by a pure function from what `QuestsFeature` returns.

/// A child as the pages name and link it.
struct ChildRef: Equatable {
    let id: String
    let name: String

    init(_ child: MemberRecord) {
        id = child.id.rawValue
        name = child.displayName
    }
}

/// The household's live events, for the pages' refresh (`live.js`); none without a household.
func liveEventsPath(_ member: MemberRecord) -> String? {
    member.householdID.map { "/api/v1/households/\($0.rawValue)/events" }
}

/// Requests for more time waiting for the guardian (`waiting-requests.mustache`), on the home
/// page and the family console, each answerable where it is shown.
struct WaitingRequests: Equatable {
    struct Row: Equatable {
        let id: String
        let child: String
        let app: String
        let minutes: Int
        let note: String
        let when: String
    }

    let rows: [Row]
    let count: Int
    /// Where an answer returns to (`/` or `/quests/family`).
    let back: String

    init(_ waiting: [QuestsFeature.WaitingRequest], viewer: MemberRecord, now: Date, back: String) {
        rows = waiting.map {
            Row(
                id: $0.request.id, child: $0.child.displayName, app: $0.appName, minutes: $0.request.minutes,
                note: $0.request.note, when: Wording.at($0.request.createdAt, now: now, in: viewer.zone))
        }
        count = rows.count
        self.back = back
    }

    /// The pages an answer may return to (any other `back` goes to the child's device page).
    static let returns: Set<String> = ["/", "/quests/family"]
}

/// The guardian's console (`quests-family.mustache`): the children at a glance and the
/// household's redemption rules.
struct FamilyConsolePage: Equatable {
    struct Child: Equatable {
        let id: String
        let name: String
        let balance: Int
        let quests: Int
        let done: Int
        let streak: Int
        let apps: Int
        /// Requests for more time waiting for an answer.
        var waiting = 0

        init(_ summary: ChildSummary) {
            id = summary.child.id.rawValue
            name = summary.child.displayName
            balance = summary.balance
            quests = summary.quests
            done = summary.done
            streak = summary.streak
            apps = summary.apps
        }
    }

    struct Rules: Equatable {
        let pointsPerMinute: Int
        let minMinutes: Int
        let maxMinutes: Int
    }

    let noHousehold: Bool
    let live: String?
    let guardian: Bool
    var children: [Child]
    let noChildren: Bool
    let rules: Rules?
    let errors: [String: String]
    let notice: String?
    /// The household together: the family streak and the ways in (`family-card.mustache`).
    var family: FamilyCard?
    /// This week's and the next's co-op quests (`coop-card.mustache`).
    var coop: [CoopCard] = []
    /// Requests for more time waiting for the guardian.
    var requests: WaitingRequests?

    /// Shows `waiting` requests, and each child's count on its card.
    mutating func show(_ waiting: WaitingRequests, of requests: [QuestsFeature.WaitingRequest]) {
        self.requests = waiting.rows.isEmpty ? nil : waiting
        for index in children.indices {
            children[index].waiting = requests.filter { $0.child.id.rawValue == children[index].id }.count
        }
    }

    /// A member without a household: the page says so and offers nothing else.
    static let withoutHousehold = FamilyConsolePage(
        noHousehold: true, live: nil, guardian: false, children: [], noChildren: true, rules: nil, errors: [:],
        notice: nil)

    private init(
        noHousehold: Bool, live: String?, guardian: Bool, children: [Child], noChildren: Bool, rules: Rules?,
        errors: [String: String], notice: String?
    ) {
        self.noHousehold = noHousehold
        self.live = live
        self.guardian = guardian
        self.children = children
        self.noChildren = noChildren
        self.rules = rules
        self.errors = errors
        self.notice = notice
    }

    init(
        viewer: MemberRecord, household: HouseholdID, children: [ChildSummary], rules: RedemptionRules,
        errors: [String: String], saved: Bool, notice: String? = nil
    ) {
        self.init(
            noHousehold: false, live: liveEventsPath(viewer),
            guardian: AccessPolicy.allows(viewer.actor, .manageHousehold(household)),
            children: children.map(Child.init),
            noChildren: children.isEmpty,
            rules: Rules(
                pointsPerMinute: rules.pointsPerMinute, minMinutes: rules.minMinutes, maxMinutes: rules.maxMinutes),
            errors: errors, notice: notice ?? (saved ? "Saved." : nil))
    }
}

/// A child seen by a guardian (`quests-child.mustache`): quests, apps (with what the device
/// reported as installed, to pick from), the shield, points.
struct ChildQuestsPage: Equatable {
    struct DeviceAppView: Equatable {
        let token: String
        let name: String
        let category: String
        let iconURL: String?
    }

    let live: String?
    let child: ChildRef
    let balance: Int
    let guardian: Bool
    let learningApps: [AppView]
    let rewardApps: [AppView]
    let deviceApps: [DeviceAppView]
    let hasDeviceApps: Bool
    let noApps: Bool
    let quests: [QuestCardView]
    let noQuests: Bool
    let shield: ShieldView
    let errors: [String: String]
    let values: [String: String]
    let notice: String?

    init(
        board: QuestBoard, deviceApps: [(app: DeviceApp, hasIcon: Bool)], viewer: MemberRecord, now: Date,
        form: FormState, notice: String?
    ) {
        let child = board.child
        let icons = Dictionary(
            deviceApps.filter(\.hasIcon).map {
                ($0.app.token, APIImplementation.deviceIconPath(child.id, token: $0.app.token))
            }, uniquingKeysWith: { a, _ in a })
        func withIcon(_ app: QuestApp) -> AppView {
            var view = AppView(app)
            view.iconURL = icons[app.token]
            return view
        }
        let chosen = Set(board.apps.map(\.token))
        let offered = deviceApps.filter { !chosen.contains($0.app.token) }
        live = liveEventsPath(viewer)
        self.child = ChildRef(child)
        balance = board.balance
        guardian = QuestsPages.manages(viewer, child)
        learningApps = board.apps.filter { $0.role == .learning }.map(withIcon)
        rewardApps = board.apps.filter { $0.role == .reward }.map(withIcon)
        self.deviceApps = offered.map {
            DeviceAppView(
                token: $0.app.token, name: $0.app.name, category: $0.app.category, iconURL: icons[$0.app.token])
        }
        hasDeviceApps = !offered.isEmpty
        noApps = board.apps.isEmpty
        quests = board.quests.map { QuestCardView($0, apps: board.apps) }
        noQuests = board.quests.isEmpty
        shield = ShieldView(board, now: now)
        errors = form.errors
        values = form.values
        self.notice = notice
    }
}

/// The guardian's weekly report (`quests-report.mustache`): three charts drawn as SVG, a week
/// at a time.
struct WeeklyReportPage: Equatable {
    struct Chart: Equatable {
        let svg: String
        let title: String
    }

    let child: ChildRef
    let range: String
    let charts: [Chart]
    let totals: String
    let previous: String
    let next: String?

    init(_ report: WeeklyReport, child: MemberRecord, today: LocalDay) {
        self.child = ChildRef(child)
        range = "\(Wording.shortDay(report.first)) – \(Wording.shortDay(report.last))"
        let labels = report.days.map { Wording.shortDay($0.day) }
        charts = [
            BarChart(
                title: "Learning minutes", labels: labels,
                series: [.init(name: "Minutes", style: "bar--a", values: report.days.map(\.learningMinutes))]),
            BarChart(
                title: "Quests completed", labels: labels,
                series: [.init(name: "Quests", style: "bar--a", values: report.days.map(\.questsCompleted))]),
            BarChart(
                title: "Points earned and spent", labels: labels,
                series: [
                    .init(name: "Earned", style: "bar--a", values: report.days.map(\.pointsEarned)),
                    .init(name: "Spent", style: "bar--b", values: report.days.map(\.pointsSpent)),
                ]),
        ].map { Chart(svg: $0.svg, title: $0.title) }
        totals = [
            Wording.count(report.learningMinutes, "minute") + " learned",
            Wording.count(report.questsCompleted, "quest") + " completed",
            "\(report.pointsEarned) points earned", "\(report.pointsSpent) spent",
        ].joined(separator: " · ")
        previous = report.first.adding(days: -7).iso
        next = report.last < today ? report.first.adding(days: 7).iso : nil
    }
}
