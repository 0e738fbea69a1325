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
        /// "Kid asks for 10 more minutes of Minecraft".
        let asks: String
    }

    let rows: [Row]
    let count: String
    /// Where an answer returns to (`/` or `/quests/family`).
    let back: String

    init(
        _ waiting: [ShieldFeature.WaitingRequest], viewer: MemberRecord, now: Date, back: String,
        localizer l: Localizer = RequestLanguage.localizer
    ) {
        rows = waiting.map {
            Row(
                id: $0.request.id, child: $0.child.displayName, app: $0.appName, minutes: $0.request.minutes,
                note: $0.request.note, when: l(Message.at($0.request.createdAt, now: now, in: viewer.zoneID)),
                asks: l(
                    "quests.requests.asks",
                    [
                        "child": .text($0.child.displayName), "count": .number($0.request.minutes),
                        "app": .text($0.appName),
                    ]))
        }
        count = l.render(.number(rows.count))
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
        /// "120 points".
        let points: String
        /// "2 of 3 quests done · 5-day streak · 4 apps".
        let summary: String
        /// Requests for more time waiting for an answer.
        var waiting = 0
        /// "1 waiting for you".
        var waitingText = ""

        init(_ summary: ChildSummary, localizer l: Localizer) {
            id = summary.child.id.rawValue
            name = summary.child.displayName
            points = l(Message.count(summary.balance, .points))
            self.summary = l(
                "quests.family.childSummary",
                [
                    "done": .number(summary.done), "quests": .message(.count(summary.quests, .quests)),
                    "streak": .message(Message("quests.family.streak", ["count": .number(summary.streak)])),
                    "apps": .message(.count(summary.apps, .apps)),
                ])
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
    mutating func show(
        _ waiting: WaitingRequests, of requests: [ShieldFeature.WaitingRequest], localizer l: Localizer
    ) {
        self.requests = waiting.rows.isEmpty ? nil : waiting
        for index in children.indices {
            let count = requests.filter { $0.child.id.rawValue == children[index].id }.count
            children[index].waiting = count
            children[index].waitingText = l("quests.family.waiting", ["count": .number(count)])
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
        errors: [String: String], saved: Bool, notice: String? = nil, localizer l: Localizer
    ) {
        self.init(
            noHousehold: false, live: liveEventsPath(viewer),
            guardian: AccessPolicy.allows(viewer.actor, .manageHousehold(household)),
            children: children.map { Child($0, localizer: l) },
            noChildren: children.isEmpty,
            rules: Rules(
                pointsPerMinute: rules.pointsPerMinute, minMinutes: rules.minMinutes, maxMinutes: rules.maxMinutes),
            errors: errors, notice: notice ?? (saved ? l("quests.notice.saved") : nil))
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
    /// The child's name for the page's sentences ("Mia's apps"), isolated from their direction.
    let childName: String
    /// The child's points, and the word after them ("points", in the form the number takes).
    let balance: String
    let balanceLabel: String
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
        form: FormState, notice: String?, localizer l: Localizer
    ) {
        let child = board.child
        let icons = Dictionary(
            deviceApps.filter(\.hasIcon).map {
                ($0.app.token, APIImplementation.deviceIconPath(child.id, token: $0.app.token))
            }, uniquingKeysWith: { a, _ in a })
        func withIcon(_ app: QuestApp) -> AppView {
            var view = AppView(app)
            view.iconURL = icons[app.token]
            view.rate = l("quests.child.rate", ["rate": .number(app.pointsPerMinute)])
            return view
        }
        let chosen = Set(board.apps.map(\.token))
        let offered = deviceApps.filter { !chosen.contains($0.app.token) }
        live = liveEventsPath(viewer)
        self.child = ChildRef(child)
        childName = l.isolated(child.displayName)
        balance = l.render(.number(board.balance))
        balanceLabel = l("quests.board.pointsLabel", ["count": .number(board.balance)])
        guardian = QuestsPages.manages(viewer, child)
        learningApps = board.apps.filter { $0.role == .learning }.map(withIcon)
        rewardApps = board.apps.filter { $0.role == .reward }.map(withIcon)
        self.deviceApps = offered.map {
            DeviceAppView(
                token: $0.app.token, name: $0.app.name, category: l(Self.category($0.app.category)),
                iconURL: icons[$0.app.token])
        }
        hasDeviceApps = !offered.isEmpty
        noApps = board.apps.isEmpty
        quests = board.quests.map { QuestCardView($0, apps: board.apps, localizer: l) }
        noQuests = board.quests.isEmpty
        shield = ShieldView(board, now: now, localizer: l)
        errors = form.errors
        values = form.values
        self.notice = notice
    }

    /// An installed app's category (`DeviceCatalog.categories`) in words.
    static func category(_ category: String) -> Message {
        switch category {
        case "education": Message("quests.category.education")
        case "reading": Message("quests.category.reading")
        case "games": Message("quests.category.games")
        case "entertainment": Message("quests.category.entertainment")
        case "social": Message("quests.category.social")
        case "creativity": Message("quests.category.creativity")
        case "productivity": Message("quests.category.productivity")
        default: Message("quests.category.other")
        }
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
    /// The child's name for the page's sentences, isolated from their direction.
    let childName: String
    let range: String
    let charts: [Chart]
    let totals: String
    let previous: String
    let next: String?

    init(
        _ report: WeeklyReport, child: MemberRecord, today: LocalDay, localizer l: Localizer = RequestLanguage.localizer
    ) {
        self.child = ChildRef(child)
        childName = l.isolated(child.displayName)
        range = l("quests.report.range", ["from": .day(report.first, .short), "to": .day(report.last, .short)])
        let labels = report.days.map { l.format($0.day, .short) }
        charts = [
            BarChart(
                title: l("quests.report.chart.minutes"), labels: labels,
                series: [
                    .init(
                        name: l("quests.report.series.minutes"), style: "bar--a",
                        values: report.days.map(\.learningMinutes))
                ]),
            BarChart(
                title: l("quests.report.chart.quests"), labels: labels,
                series: [
                    .init(
                        name: l("quests.report.series.quests"), style: "bar--a",
                        values: report.days.map(\.questsCompleted))
                ]),
            BarChart(
                title: l("quests.report.chart.points"), labels: labels,
                series: [
                    .init(
                        name: l("quests.report.series.earned"), style: "bar--a", values: report.days.map(\.pointsEarned)
                    ),
                    .init(
                        name: l("quests.report.series.spent"), style: "bar--b", values: report.days.map(\.pointsSpent)),
                ]),
        ].map { Chart(svg: $0.svg, title: $0.title) }
        totals = l(
            "quests.report.totals",
            [
                "minutes": .message(.count(report.learningMinutes, .minutes)),
                "quests": .message(.count(report.questsCompleted, .quests)),
                "points": .message(.count(report.pointsEarned, .points)), "spent": .number(report.pointsSpent),
            ])
        previous = report.first.adding(days: -7).iso
        next = report.last < today ? report.first.adding(days: 7).iso : nil
    }
}
