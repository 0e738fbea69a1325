import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The child's device in the browser (`quests-device.mustache`): what it enforces now (the
/// shield policy), reported use, requests for more time, and for guardians the screen-time
/// rules and the child's time zone. Each form's errors carry names of their own (`use…`,
/// `ask…`), so an error shows (and takes focus) under its own form only.
struct DevicePage: Equatable {
    struct App: Equatable {
        let name: String
        let icon: String
        let blocked: Bool
        let state: String
    }

    struct Request: Equatable {
        let id: String
        let minutes: Int
        let note: String
        let app: String
        /// "🎮 Minecraft · 10 min".
        let title: String
        let state: String
        let pending: Bool
        let when: String
    }

    /// What each refusal of the shield says on the device.
    static let reasons: [ShieldPolicy.Reason: Message] = [
        .noGrant: Message("quests.device.blocked.noGrant"), .downtime: Message("quests.device.blocked.downtime"),
        .notToday: Message("quests.device.blocked.notToday"),
    ]
    static let requestStates: [TimeRequest.State: Message] = [
        .pending: Message("quests.device.request.pending"), .approved: Message("quests.device.request.approved"),
        .denied: Message("quests.device.request.denied"),
    ]

    let live: String?
    let child: ChildRef
    /// The child's name for the page's sentences, isolated from their direction.
    let childName: String
    let isChild: Bool
    let guardian: Bool
    let apps: [App]
    let noRewardApps: Bool
    let shield: ShieldView
    let rewardApps: [AppView]
    let requests: [Request]
    let hasRequests: Bool
    let nextChange: String?
    let usageApps: [AppView]
    let days: [WeekdayOption]
    let downtime: Bool
    let startHours: [HourOption]
    let endHours: [HourOption]
    let errors: [String: String]
    let values: [String: String]
    let timeZones: [String]
    let notice: String?

    init(
        board: QuestBoard, policy: ShieldPolicy, rules: ShieldRules, requests: [TimeRequest], viewer: MemberRecord,
        now: Date, form: FormState, notice: String?, localizer l: Localizer
    ) {
        let child = board.child
        let zone = child.zoneID
        let names = Dictionary(board.apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        live = liveEventsPath(viewer)
        self.child = ChildRef(child)
        childName = l.isolated(child.displayName)
        isChild = viewer.id == child.id
        guardian = QuestsPages.manages(viewer, child)
        apps = policy.apps.map { app in
            App(
                name: names[app.token]?.name ?? app.token, icon: names[app.token]?.icon ?? "🎮", blocked: app.blocked,
                state: app.blocked
                    ? l(Self.reasons[app.reason] ?? Message("quests.device.blocked"))
                    : app.unlockedUntil.map {
                        l(
                            "quests.device.unlocked",
                            ["until": .message(.until($0, now: now, in: zone)), "minutes": .number(app.minutesLeft)])
                    } ?? l("quests.device.unlockedNoEnd", ["minutes": .number(app.minutesLeft)]))
        }
        noRewardApps = policy.apps.isEmpty
        shield = ShieldView(board, now: now, localizer: l)
        rewardApps = board.apps.filter { $0.role == .reward }.map(AppView.init)
        self.requests = requests.prefix(10).map { request in
            let app = names[request.appToken].map { "\($0.icon) \($0.name)" } ?? request.appToken
            return Request(
                id: request.id, minutes: request.minutes, note: request.note, app: app,
                title: l("quests.device.requestTitle", ["app": .text(app), "minutes": .number(request.minutes)]),
                state: Self.requestStates[request.state].map { l($0) } ?? "", pending: request.state == .pending,
                when: l(Message.at(request.createdAt, now: now, in: zone)))
        }
        hasRequests = !requests.isEmpty
        nextChange = policy.nextChange.map {
            l("quests.device.nextChange", ["at": .message(.at($0, now: now, in: zone))])
        }
        usageApps = board.apps.map(AppView.init)
        days = WeekdayOption.week(checking: rules.rewardDays, localizer: l)
        downtime = rules.downtime != nil
        startHours = HourOption.day(selecting: rules.downtime?.start ?? 20, localizer: l)
        endHours = HourOption.day(selecting: rules.downtime?.end ?? 7, localizer: l)
        errors = form.errors
        values = form.values.merging(["timeZone": child.timeZone]) { typed, _ in typed }
        timeZones = TimeZoneNames.all
        self.notice = notice
    }

    /// What the redirect back to the page came from (`?zone=1`, `?reported=1`…), in words.
    static func notice(
        _ query: Set<String>, child: MemberRecord, localizer l: Localizer = RequestLanguage.localizer
    ) -> String? {
        if query.contains("zone") { return l("quests.notice.zoneSaved", ["name": .text(child.displayName)]) }
        if query.contains("reported") { return l("quests.notice.useReported") }
        if query.contains("rules") { return l("quests.notice.rulesSaved") }
        if query.contains("asked") { return l("quests.notice.asked") }
        if query.contains("answered") { return l("quests.notice.answered") }
        return nil
    }
}
