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
        let state: String
        let pending: Bool
        let when: String
    }

    /// What each refusal of the shield says on the device.
    static let reasons: [ShieldPolicy.Reason: String] = [
        .noGrant: "Blocked: complete a quest or redeem points to unlock it",
        .downtime: "Blocked: downtime", .notToday: "Blocked: reward apps are off today",
    ]
    static let requestStates: [TimeRequest.State: String] = [
        .pending: "Waiting for an answer", .approved: "Approved", .denied: "Not this time",
    ]

    let live: String?
    let child: ChildRef
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
        now: Date, form: FormState, notice: String?
    ) {
        let child = board.child
        let zone = child.zone
        let names = Dictionary(board.apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        live = liveEventsPath(viewer)
        self.child = ChildRef(child)
        isChild = viewer.id == child.id
        guardian = QuestsPages.manages(viewer, child)
        apps = policy.apps.map { app in
            App(
                name: names[app.token]?.name ?? app.token, icon: names[app.token]?.icon ?? "🎮", blocked: app.blocked,
                state: app.blocked
                    ? Self.reasons[app.reason] ?? "Blocked"
                    : "Unlocked \(app.unlockedUntil.map { Wording.until($0, now: now, in: zone) } ?? "") · \(app.minutesLeft) min left"
            )
        }
        noRewardApps = policy.apps.isEmpty
        shield = ShieldView(board, now: now)
        rewardApps = board.apps.filter { $0.role == .reward }.map(AppView.init)
        self.requests = requests.prefix(10).map { request in
            Request(
                id: request.id, minutes: request.minutes, note: request.note,
                app: names[request.appToken].map { "\($0.icon) \($0.name)" } ?? request.appToken,
                state: Self.requestStates[request.state] ?? "", pending: request.state == .pending,
                when: Wording.at(request.createdAt, now: now, in: zone))
        }
        hasRequests = !requests.isEmpty
        nextChange = policy.nextChange.map { Wording.at($0, now: now, in: zone) }
        usageApps = board.apps.map(AppView.init)
        days = WeekdayOption.week(checking: rules.rewardDays)
        downtime = rules.downtime != nil
        startHours = HourOption.day(selecting: rules.downtime?.start ?? 20)
        endHours = HourOption.day(selecting: rules.downtime?.end ?? 7)
        errors = form.errors
        values = form.values.merging(["timeZone": child.timeZone]) { typed, _ in typed }
        timeZones = TimeZoneNames.all
        self.notice = notice
    }

    /// What the redirect back to the page came from (`?zone=1`, `?reported=1`…), in words.
    static func notice(_ query: Set<String>, child: MemberRecord) -> String? {
        if query.contains("zone") { return "\(child.displayName)'s time zone is saved." }
        if query.contains("reported") { return "Use reported." }
        if query.contains("rules") { return "The screen-time rules are saved." }
        if query.contains("asked") { return "Asked. You'll see the answer here." }
        if query.contains("answered") { return "Answered." }
        return nil
    }
}
