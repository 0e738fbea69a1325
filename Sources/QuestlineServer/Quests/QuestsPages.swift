import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// Family quests in the web app: the guardian's console (children, app catalogs, the
/// challenge builder, quest detail) and the child's quest board. Pages listen to the
/// household's live events and refresh themselves when something changes.
struct QuestsPages {
    let quests: QuestsFeature
    /// A child's time zone is a guardian's setting of the child's profile.
    let accounts: AccountsFeature
    let pages: PageRenderer
    /// Messages for the page after a redirect.
    let flash: Flash

    func register(on router: Router<AppRequestContext>) {
        router.get("/quests/family") { request, context in try await self.console(request, context) }
        router.post("/quests/family/rules") { request, context in try await self.setRules(request, context) }
        router.get("/quests/children/:child") { request, context in try await self.childPage(request, context) }
        router.get("/quests/children/:child/device") { request, context in try await self.device(request, context) }
        router.get("/quests/children/:child/report") { request, context in try await self.report(request, context) }
        router.post("/quests/children/:child/device/usage") { request, context in
            try await self.reportUse(request, context)
        }
        router.post("/quests/children/:child/time-requests") { request, context in
            try await self.askForTime(request, context)
        }
        router.post("/quests/time-requests/:request/decision") { request, context in
            try await self.decide(request, context)
        }
        router.post("/quests/children/:child/time-zone") { request, context in
            try await self.setTimeZone(request, context)
        }
        router.post("/quests/children/:child/shield-rules") { request, context in
            try await self.setShieldRules(request, context)
        }
        router.post("/quests/children/:child/apps") { request, context in try await self.putApp(request, context) }
        router.post("/quests/children/:child/apps/delete") { request, context in
            try await self.deleteApp(request, context)
        }
        router.post("/quests/children/:child/adjust") { request, context in try await self.adjust(request, context) }
        router.get("/quests/children/:child/quests/new") { request, context in try await self.builder(request, context)
        }
        router.post("/quests/children/:child/quests") { request, context in try await self.create(request, context) }
        router.get("/quests/:quest") { request, context in try await self.detail(request, context) }
        router.get("/quests/:quest/edit") { request, context in try await self.editor(request, context) }
        router.post("/quests/:quest") { request, context in try await self.update(request, context) }
        router.post("/quests/:quest/status") { request, context in try await self.status(request, context) }
        router.post("/quests/:quest/delete") { request, context in try await self.delete(request, context) }
        router.get("/quests") { request, context in try await self.board(request, context) }
        router.post("/quests/redeem") { request, context in try await self.redeem(request, context) }
        // The guardian's pages were under /family until the feature took one name everywhere;
        // old bookmarks are sent on (docs/decisions.md, "One name per feature").
        router.get("/family") { _, _ in Response.redirect(to: "/quests/family", type: .permanent) }
        router.get("/family/children/:child") { _, context in
            Response.redirect(to: "/quests/children/\(context.parameters.get("child") ?? "")", type: .permanent)
        }
        router.get("/family/quests/:quest") { _, context in
            Response.redirect(to: "/quests/\(context.parameters.get("quest") ?? "")", type: .permanent)
        }
    }

    private func childID(_ context: AppRequestContext) throws -> MemberID {
        guard let raw = context.parameters.get("child"), let id = MemberID(raw) else {
            throw DomainError.notFound("No such child.")
        }
        return id
    }

    private func questID(_ context: AppRequestContext) throws -> QuestID {
        guard let raw = context.parameters.get("quest"), let id = QuestID(raw) else {
            throw DomainError.notFound("No such quest.")
        }
        return id
    }

    private func live(_ member: MemberRecord) -> Any {
        member.householdID.map { "/api/v1/households/\($0.rawValue)/events" } ?? false
    }

    // MARK: Guardian console

    private func console(_ request: Request, _ context: AppRequestContext, errors: [String: String] = [:]) async throws
        -> Response
    {
        let me = try context.requireWebMember(next: "/quests/family")
        if me.role == .child { return Response.redirect(to: "/quests", type: .normal) }
        guard let household = me.householdID else {
            return pages.page(
                "quests-family", title: "Family", data: ["noHousehold": true], context: context, path: "/quests",
                back: "/")
        }
        var children: [[String: Any]] = []
        for child in try await quests.children(as: me) {
            let board = try await quests.board(child.id, as: me)
            children.append([
                "id": child.id.rawValue, "name": child.displayName, "balance": board.balance,
                "quests": board.quests.count, "done": board.quests.filter { $0.card.state == .completed }.count,
                "streak": board.stats.currentStreak, "apps": board.apps.count,
            ])
        }
        let rules = try await quests.rules(household, as: me)
        return pages.page(
            "quests-family", title: "Family",
            data: [
                "live": live(me), "guardian": AccessPolicy.allows(me.actor, .manageHousehold(household)),
                "children": children,
                "noChildren": children.isEmpty,
                "rules": [
                    "pointsPerMinute": rules.pointsPerMinute, "minMinutes": rules.minMinutes,
                    "maxMinutes": rules.maxMinutes,
                ],
                "errors": errors, "notice": request.uri.queryParameters["saved"] != nil ? "Saved." : false,
            ], context: context, path: "/quests", status: errors.isEmpty ? .ok : .badRequest, back: "/")
    }

    private func setRules(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let form = try await Form(request)
        guard let household = me.householdID else { throw DomainError.notFound("Create a household first.") }
        do {
            _ = try await quests.setRules(
                household, as: me, pointsPerMinute: Int(form["pointsPerMinute"]) ?? 0,
                minMinutes: Int(form["minMinutes"]) ?? 0, maxMinutes: Int(form["maxMinutes"]) ?? 0)
            return Response.redirect(to: "/quests/family?saved=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await console(request, context, errors: AccountsPages.fieldErrors(error))
        }
    }

    // MARK: A child, seen by a guardian

    private func childPage(
        _ request: Request, _ context: AppRequestContext, errors: [String: String] = [:],
        values: [String: String] = [:]
    ) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let board = try await quests.board(try childID(context), as: me)
        let child = board.child
        // What the device reported as installed, with icons, for the guardian to pick from.
        let chosen = Set(board.apps.map(\.token))
        let deviceApps = try await quests.deviceApps(child.id, as: me)
        let icons = Dictionary(
            deviceApps.filter(\.hasIcon).map {
                ($0.app.token, APIImplementation.deviceIconPath(child.id, token: $0.app.token))
            }, uniquingKeysWith: { a, _ in a })
        func withIcon(_ app: QuestApp) -> [String: Any] {
            var data = Self.app(app)
            data["iconURL"] = icons[app.token] ?? false
            return data
        }
        return pages.page(
            "quests-child", title: child.displayName,
            data: [
                "live": live(me), "child": ["id": child.id.rawValue, "name": child.displayName],
                "balance": board.balance,
                "guardian": Self.manages(me, child),
                "learningApps": board.apps.filter { $0.role == .learning }.map(withIcon),
                "rewardApps": board.apps.filter { $0.role == .reward }.map(withIcon),
                "deviceApps": deviceApps.filter { !chosen.contains($0.app.token) }.map { entry -> [String: Any] in
                    [
                        "token": entry.app.token, "name": entry.app.name, "category": entry.app.category,
                        "iconURL": icons[entry.app.token] ?? false,
                    ]
                },
                "hasDeviceApps": deviceApps.contains { !chosen.contains($0.app.token) },
                "noApps": board.apps.isEmpty, "hasLearning": board.apps.contains { $0.role == .learning },
                "quests": board.quests.map { Self.card($0, apps: board.apps) }, "noQuests": board.quests.isEmpty,
                "shield": Self.shield(board, now: quests.clock.now()),
                "errors": errors, "values": values,
                "notice": flash.text(of: .notice, in: request)
                    ?? (request.uri.queryParameters["deleted"] != nil
                        ? "The quest is deleted. Points and unlocks it paid stay." : false as Any)
                    ,
            ], context: context, path: "/quests", status: errors.isEmpty ? .ok : .badRequest, back: "/quests/family")
    }

    // MARK: The device stand-in

    /// The child's device in the browser: what it enforces now (the shield policy), a way to
    /// report use of the child's apps, and (for guardians) the screen-time rules.
    private func device(
        _ request: Request, _ context: AppRequestContext, errors: [String: String] = [:],
        values: [String: String] = [:]
    ) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let id = try childID(context)
        let board = try await quests.board(id, as: me)
        let policy = try await quests.policy(id, as: me)
        let rules = try await quests.shieldRules(id, as: me)
        let zone = board.child.zone
        let names = Dictionary(board.apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let now = quests.clock.now()
        let reasons: [ShieldPolicy.Reason: String] = [
            .noGrant: "Blocked: complete a quest or redeem points to unlock it",
            .downtime: "Blocked: downtime", .notToday: "Blocked: reward apps are off today",
        ]
        let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let requests = try await quests.timeRequests(id, as: me)
        let stateWords: [TimeRequest.State: String] = [
            .pending: "Waiting for an answer", .approved: "Approved", .denied: "Not this time",
        ]
        return pages.page(
            "quests-device", title: "\(board.child.displayName)'s device",
            data: [
                "live": live(me), "child": ["id": id.rawValue, "name": board.child.displayName],
                "isChild": me.id == id, "guardian": Self.manages(me, board.child),
                "apps": policy.apps.map { app -> [String: Any] in
                    [
                        "name": names[app.token]?.name ?? app.token, "icon": names[app.token]?.icon ?? "🎮",
                        "blocked": app.blocked,
                        "state": app.blocked
                            ? reasons[app.reason] ?? "Blocked"
                            : "Unlocked \(app.unlockedUntil.map { Wording.until($0, now: now, in: zone) } ?? "") · \(app.minutesLeft) min left"
                            ,
                    ]
                },
                "noRewardApps": policy.apps.isEmpty,
                "shield": Self.shield(board, now: quests.clock.now()),
                "rewardApps": board.apps.filter { $0.role == .reward }.map {
                    ["token": $0.token, "name": $0.name, "icon": $0.icon]
                },
                "requests": requests.prefix(10).map { request -> [String: Any] in
                    [
                        "id": request.id, "minutes": request.minutes, "note": request.note,
                        "app": names[request.appToken].map { "\($0.icon) \($0.name)" } ?? request.appToken,
                        "state": stateWords[request.state] ?? "", "pending": request.state == .pending,
                        "when": Wording.at(request.createdAt, now: now, in: zone),
                    ]
                },
                "hasRequests": !requests.isEmpty,
                "nextChange": policy.nextChange.map { Wording.at($0, now: now, in: zone) } ?? false,
                "usageApps": board.apps.map { ["token": $0.token, "name": $0.name, "icon": $0.icon] },
                "days": (1...7).map {
                    ["value": $0, "name": weekdayNames[$0 - 1], "checked": rules.rewardDays.contains($0)]
                        as [String: Any]
                },
                "downtime": rules.downtime != nil,
                "startHours": AccountsPages.hourOptions(rules.downtime?.start ?? 20),
                "endHours": AccountsPages.hourOptions(rules.downtime?.end ?? 7),
                "errors": errors, "values": values.merging(["timeZone": board.child.timeZone]) { typed, _ in typed },
                "timeZones": AccountsPages.timeZoneNames,
                "notice": request.uri.queryParameters["zone"] != nil
                    ? "\(board.child.displayName)'s time zone is saved."
                    : request.uri.queryParameters["reported"] != nil
                        ? "Use reported."
                        : request.uri.queryParameters["rules"] != nil
                            ? "The screen-time rules are saved."
                            : request.uri.queryParameters["asked"] != nil
                                ? "Asked. You'll see the answer here."
                                : request.uri.queryParameters["answered"] != nil ? "Answered." : false,
            ], context: context, path: "/quests", status: errors.isEmpty ? .ok : .badRequest,
            back: me.id == id ? "/quests" : "/quests/children/\(id.rawValue)")
    }

    /// The guardian's weekly report: three charts drawn as SVG, a week at a time.
    private func report(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let id = try childID(context)
        var asked: LocalDay?
        if let raw = request.uri.queryParameters["week"] {
            guard let day = LocalDay(iso: raw) else {
                throw DomainError.invalid(field: "week", "Use a date like 2026-05-10.")
            }
            asked = day
        }
        let child = try await quests.child(id, as: me)
        let report = try await quests.weeklyReport(id, as: me, last: asked)
        let today = LocalDay(quests.clock.now(), in: child.zone)
        let labels = report.days.map { Wording.shortDay($0.day) }
        let charts = [
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
        ]
        return pages.page(
            "quests-report", title: "\(child.displayName)'s week",
            data: [
                "child": ["id": id.rawValue, "name": child.displayName],
                "range": "\(Wording.shortDay(report.first)) – \(Wording.shortDay(report.last))",
                "charts": charts.map { ["svg": $0.svg, "title": $0.title] },
                "totals": [
                    "\(report.learningMinutes) minute\(report.learningMinutes == 1 ? "" : "s") learned",
                    "\(report.questsCompleted) quest\(report.questsCompleted == 1 ? "" : "s") completed",
                    "\(report.pointsEarned) points earned", "\(report.pointsSpent) spent",
                ].joined(separator: " · "),
                "previous": report.first.adding(days: -1).iso,
                "next": report.last < today ? min(report.last.adding(days: 7), today).iso : false,
            ], context: context, path: "/quests", back: "/quests/children/\(id.rawValue)")
    }

    /// The device reports use of one of the child's apps, ending now.
    private func reportUse(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let id = try childID(context)
        let form = try await Form(request)
        let now = quests.clock.now()
        // The device is the child's: its clock is in the child's zone, not the viewer's.
        let child = try await quests.child(id, as: me)
        do {
            guard let minutes = Int(form["minutes"]), (1...240).contains(minutes) else {
                throw DomainError.invalid(field: "minutes", "Use 1 to 240 minutes.")
            }
            _ = try await quests.reportUsage(
                id,
                reports: [
                    UsageReportInput(
                        id: UUID.random().uuidString.lowercased(), appToken: form["appToken"],
                        startedAt: now.addingTimeInterval(-Double(minutes * 60)), durationSeconds: minutes * 60,
                        timeZone: child.timeZone)
                ], as: me)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?reported=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(
                request, context,
                errors: Self.prefixed(
                    AccountsPages.fieldErrors(error).reduce(into: [:]) { errors, issue in
                        // The one report's fields (`reports[0].appToken`) are the form's.
                        errors[String(issue.key.split(separator: ".").last ?? "form")] = issue.value
                    }, "use"),
                values: ["minutes": form["minutes"], "appToken": form["appToken"]])
        }
    }

    /// The child asks for more time from the device page.
    private func askForTime(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await quests.askForTime(
                id, as: me, appToken: form["appToken"], minutes: Int(form["minutes"]) ?? 0, note: form["note"])
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?asked=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            // Each form's errors under names of its own: the report form's fields have the same
            // names, and their errors must not show (or take focus) there.
            var errors = Self.prefixed(AccountsPages.fieldErrors(error), "ask")
            // A refusal of the whole request (asked too often) shows by the ask form.
            if let whole = errors.removeValue(forKey: "askForm") { errors["ask"] = whole }
            return try await device(
                request, context, errors: errors, values: ["askMinutes": form["minutes"], "note": form["note"]])
        }
    }

    /// A guardian answers a request (from the child's device page).
    private func decide(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let form = try await Form(request)
        let answered = try await quests.decide(
            context.parameters.get("request") ?? "", approve: form["approve"] == "1", as: me)
        return Response.redirect(
            to: "/quests/children/\(answered.child.rawValue)/device?answered=1", type: .normal)
    }

    /// A guardian sets the child's time zone: the child's days (downtime, reward days, quest
    /// periods) follow it (`AccessPolicy`'s `changeTimeZone`: the child cannot).
    private func setTimeZone(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await accounts.updateProfile(id, as: me, displayName: nil, timeZone: form["timeZone"])
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?zone=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(
                request, context, errors: AccountsPages.fieldErrors(error), values: ["timeZone": form["timeZone"]])
        }
    }

    private func setShieldRules(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            let downtime = form["downtime"] == "on"
            _ = try await quests.setShieldRules(
                id, as: me, rewardDays: form.values("rewardDays").compactMap { Int($0) },
                downtimeStart: downtime ? Int(form["downtimeStart"]) : nil,
                downtimeEnd: downtime ? Int(form["downtimeEnd"]) : nil)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?rules=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(request, context, errors: AccountsPages.fieldErrors(error))
        }
    }

    private func putApp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            let app = try await quests.putApp(
                id, as: me, token: form["token"], name: form["name"], icon: form["icon"], role: form["role"],
                pointsPerMinute: form["pointsPerMinute"].isEmpty ? nil : Int(form["pointsPerMinute"]) ?? 0)
            return flash.redirect(
                to: "/quests/children/\(id.rawValue)", .notice,
                "\(app.name) is added as a \(app.role == .learning ? "learning" : "reward") app.")
        } catch let error as DomainError where error.isFormProblem {
            return try await childPage(
                request, context, errors: AccountsPages.fieldErrors(error),
                values: [
                    "token": form["token"], "name": form["name"], "icon": form["icon"],
                    "pointsPerMinute": form["pointsPerMinute"],
                ])
        }
    }

    private func deleteApp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            try await quests.deleteApp(id, token: form["token"], as: me)
            return Response.redirect(to: "/quests/children/\(id.rawValue)", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await childPage(request, context, errors: AccountsPages.fieldErrors(error))
        }
    }

    private func adjust(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await quests.adjust(id, points: Int(form["points"]) ?? 0, reason: form["reason"], as: me)
            return Response.redirect(to: "/quests/children/\(id.rawValue)", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await childPage(
                request, context, errors: AccountsPages.fieldErrors(error),
                values: ["points": form["points"], "reason": form["reason"]])
        }
    }

    // MARK: Builder

    private func builder(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let child = try await quests.child(try childID(context), as: me, manage: true)
        let today = LocalDay(quests.clock.now(), in: child.zone)
        let draft = QuestDraft(
            title: "", goalType: GoalType.dailyMinutes.rawValue, target: 30, bonusPercent: 10, startDate: today.iso)
        return try await builderPage(
            context, child: child, draft: draft, action: "/quests/children/\(child.id.rawValue)/quests", editing: false)
    }

    private func editor(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let (view, child, _) = try await quests.challenge(try questID(context), as: me)
        _ = try await quests.child(child.id, as: me, manage: true)
        return try await builderPage(
            context, child: child, draft: QuestDraft(view.challenge.spec),
            action: "/quests/\(view.challenge.id.rawValue)", editing: true)
    }

    private func builderPage(
        _ context: AppRequestContext, child: MemberRecord, draft: QuestDraft, action: String, editing: Bool,
        errors: [String: String] = [:]
    ) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let apps = try await quests.apps(child.id, as: me)
        let rewardMinutes = Dictionary(draft.rewardApps.map { ($0.token, $0.minutes) }, uniquingKeysWith: { a, _ in a })
        // A field per step of a milestone chain, filled with the draft's steps.
        let stepFields: [[String: Any]] = (0..<QuestSpec.chainSteps.upperBound).map { index in
            ["number": index + 1, "value": index < draft.steps.count ? String(draft.steps[index]) : ""]
        }
        return pages.page(
            "quest-builder", title: editing ? "Edit quest" : "New quest",
            data: [
                "action": action, "editing": editing, "child": ["id": child.id.rawValue, "name": child.displayName],
                "values": [
                    "title": draft.title, "description": draft.description ?? "",
                    "target": draft.target.map(String.init) ?? "",
                    "dailyMinimumMinutes": draft.dailyMinimumMinutes.map(String.init) ?? "15",
                    "withinMinutes": draft.withinMinutes.map(String.init) ?? "30",
                    "steps": stepFields,
                    "windowStart": draft.windowStart ?? "", "windowEnd": draft.windowEnd ?? "",
                    "startDate": draft.startDate ?? "", "endDate": draft.endDate ?? "",
                ],
                "goals": GoalType.allCases.map { goal in
                    [
                        "value": goal.rawValue, "title": goal.title, "unit": goal.unit.rawValue,
                        "periods": goal.periods.map(\.rawValue).joined(separator: " "),
                        "selected": goal.rawValue == draft.goalType,
                    ] as [String: Any]
                },
                "periods": Self.periodTitles.map {
                    ["value": $0.0, "title": $0.1, "selected": $0.0 == (draft.period ?? "")] as [String: Any]
                },
                // The empty choice says what it means: the goal type's own period.
                "defaultPeriod": Self.periodTitles.first {
                    $0.0 == (GoalType(rawValue: draft.goalType) ?? .dailyMinutes).periods[0].rawValue
                }?.1 ?? "Each day",
                // Every goal but a milestone chain takes a target; a chain's is its number of steps.
                "targetGoals": GoalType.allCases.filter { $0 != .milestones }.map(\.rawValue).joined(separator: " "),
                "bonuses": QuestSpec.bonusChoices.map {
                    ["value": $0, "selected": $0 == (draft.bonusPercent ?? 10)] as [String: Any]
                },
                "weekdays": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].enumerated().map { index, name in
                    ["value": index + 1, "name": name, "checked": draft.weekdays.contains(index + 1)] as [String: Any]
                },
                "learningApps": apps.filter { $0.role == .learning }.map { app -> [String: Any] in
                    var item = Self.app(app)
                    item["checked"] = draft.learningApps.contains(app.token)
                    return item
                },
                "rewardApps": apps.filter { $0.role == .reward }.map { app -> [String: Any] in
                    var item = Self.app(app)
                    item["checked"] = rewardMinutes[app.token] != nil
                    item["minutes"] = rewardMinutes[app.token] ?? 30
                    return item
                },
                "noLearningApps": !apps.contains { $0.role == .learning },
                "noRewardApps": !apps.contains { $0.role == .reward },
                "errors": errors,
            ], context: context, path: "/quests", status: errors.isEmpty ? .ok : .badRequest,
            back: editing ? action : "/quests/children/\(child.id.rawValue)")
    }

    /// How often a quest can complete, as the builder words it.
    static let periodTitles = [
        ("day", "Each day"), ("week", "Each week (Monday to Sunday)"), ("challenge", "Once, by the end date"),
        ("run", "Each streak"), ("chain", "Each chain of steps"),
    ]

    static func draft(_ form: Form) -> QuestDraft {
        let rewards = form.values("rewardApps").map { token in
            RewardUnlock(token: token, minutes: Int(form["unlock-\(token)"]) ?? 0)
        }
        func number(_ name: String) -> Int? { form[name].isEmpty ? nil : Int(form[name]) ?? -1 }
        let chain = form["goalType"] == GoalType.milestones.rawValue
        return QuestDraft(
            title: form["title"], description: form["description"], goalType: form["goalType"],
            target: chain ? nil : number("target"),
            period: form["period"], dailyMinimumMinutes: number("dailyMinimumMinutes"),
            withinMinutes: number("withinMinutes"),
            // The builder offers a field per step; the empty ones are left out.
            steps: chain ? form.values("steps").filter { !$0.isEmpty }.map { Int($0) ?? -1 } : [],
            learningApps: form.values("learningApps"), rewardApps: rewards, bonusPercent: number("bonusPercent"),
            weekdays: form.values("weekdays").compactMap { Int($0) }, windowStart: form["windowStart"],
            windowEnd: form["windowEnd"],
            startDate: form["startDate"], endDate: form["endDate"])
    }

    private func create(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let child = try await quests.child(try childID(context), as: me, manage: true)
        let form = try await Form(request)
        let draft = Self.draft(form)
        do {
            let challenge = try await quests.createQuest(for: child.id, draft: draft, as: me)
            return Response.redirect(to: "/quests/\(challenge.id.rawValue)?created=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await builderPage(
                context, child: child, draft: draft, action: "/quests/children/\(child.id.rawValue)/quests",
                editing: false,
                errors: AccountsPages.fieldErrors(error))
        }
    }

    private func update(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let form = try await Form(request)
        let draft = Self.draft(form)
        do {
            _ = try await quests.updateQuest(id, draft: draft, as: me)
            return Response.redirect(to: "/quests/\(id.rawValue)?saved=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            let (_, child, _) = try await quests.challenge(id, as: me)
            return try await builderPage(
                context, child: child, draft: draft, action: "/quests/\(id.rawValue)", editing: true,
                errors: AccountsPages.fieldErrors(error))
        }
    }

    // MARK: Quest detail

    private func detail(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let (view, child, apps) = try await quests.challenge(try questID(context), as: me)
        let spec = view.challenge.spec
        let byToken = Dictionary(apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let notice =
            request.uri.queryParameters["created"] != nil
            ? "Quest created. \(child.displayName) sees it now."
            : request.uri.queryParameters["saved"] != nil ? "Saved." : ""
        return pages.page(
            "quest-detail", title: spec.title,
            data: [
                "live": live(me), "quest": Self.card(view, apps: apps),
                "child": ["id": child.id.rawValue, "name": child.displayName],
                "guardian": Self.manages(me, child), "paused": view.challenge.status == .paused,
                "description": spec.description ?? false,
                "rewards": spec.rewardApps.map {
                    [
                        "name": byToken[$0.token]?.name ?? $0.token, "icon": byToken[$0.token]?.icon ?? "🎮",
                        "minutes": $0.minutes,
                    ]
                },
                "hasRewards": !spec.rewardApps.isEmpty,
                "countedApps": spec.learningApps.isEmpty
                    ? "All learning apps" : spec.learningApps.map { byToken[$0]?.name ?? $0 }.joined(separator: ", "),
                "days": spec.weekdays.count == 7
                    ? "Every day"
                    : spec.weekdays.sorted().map { ["", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][$0] }.joined(
                        separator: ", "),
                "window": spec.window?.description ?? false,
                "dates": spec.endDay.map { "\(spec.startDay.iso) to \($0.iso)" } ?? "From \(spec.startDay.iso)",
                "bonus": spec.bonusPercent, "completions": view.completions, "notice": notice.isEmpty ? false : notice,
            ], context: context, path: "/quests",
            back: me.role == .guardian ? "/quests/children/\(child.id.rawValue)" : "/quests")
    }

    private func status(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let form = try await Form(request)
        _ = try await quests.setStatus(id, form["status"] == "paused" ? .paused : .active, as: me)
        return Response.redirect(to: "/quests/\(id.rawValue)", type: .normal)
    }

    private func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let (_, child, _) = try await quests.challenge(id, as: me)
        try await quests.deleteQuest(id, as: me)
        return Response.redirect(to: "/quests/children/\(child.id.rawValue)?deleted=1", type: .normal)
    }

    // MARK: The child's board

    private func board(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        guard me.role == .child else { return Response.redirect(to: "/quests/family", type: .normal) }
        let board = try await quests.board(me.id, as: me)
        // A redemption's answer comes from the redirect's flash message.
        var errors: [String: String] = [:]
        var notice = ""
        if let message = flash.message(in: request) {
            if message.kind == .notice { notice = message.text } else { errors[message.field ?? "form"] = message.text }
        }
        return pages.page(
            "quests", title: "Your quests",
            data: [
                "live": live(me), "childId": me.id.rawValue, "balance": board.balance,
                "streak": board.stats.currentStreak,
                "minutes": board.stats.learningMinutes,
                "quests": board.quests.filter { $0.challenge.status == .active }.map {
                    Self.card($0, apps: board.apps)
                },
                "noQuests": !board.quests.contains { $0.challenge.status == .active },
                "badges": board.badges.map {
                    [
                        "title": $0.badge.title, "icon": $0.badge.icon, "description": $0.badge.description,
                        "earned": $0.awardedAt != nil,
                    ]
                },
                "shield": Self.shield(board, now: quests.clock.now()),
                "rewardApps": board.apps.filter { $0.role == .reward }.map(Self.app),
                "canRedeem": board.apps.contains { $0.role == .reward },
                "redeemWaits": board.restriction != nil,
                "rules": [
                    "pointsPerMinute": board.rules.pointsPerMinute, "minMinutes": board.rules.minMinutes,
                    "maxMinutes": board.rules.maxMinutes,
                ],
                "errors": errors, "notice": notice.isEmpty ? false : notice,
            ], context: context, path: "/quests", status: errors.isEmpty ? .ok : .badRequest, back: "/")
    }

    private func redeem(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let form = try await Form(request)
        do {
            _ = try await quests.redeem(me.id, token: form["appToken"], minutes: Int(form["minutes"]) ?? 0, as: me)
            return flash.redirect(to: "/quests", .notice, "Unlocked! Enjoy your reward time.")
        } catch let error as DomainError where error.isFormProblem {
            // Post, redirect, get: Back and reload never send the redemption again.
            return flash.redirect(to: "/quests", refused: error)
        }
    }

    // MARK: View data

    /// A form's field errors under names of its own (`minutes` → `useMinutes`), for pages with
    /// two forms whose fields share names.
    static func prefixed(_ errors: [String: String], _ prefix: String) -> [String: String] {
        Dictionary(
            errors.map { (prefix + $0.key.prefix(1).uppercased() + $0.key.dropFirst(), $0.value) },
            uniquingKeysWith: { first, _ in first })
    }

    /// Whether the page offers a guardian's tools for `child` (`AccessPolicy`, as the use cases
    /// decide).
    static func manages(_ me: MemberRecord, _ child: MemberRecord) -> Bool {
        child.householdID.map { AccessPolicy.allows(me.actor, .manageHousehold($0)) } ?? false
    }

    static func app(_ app: QuestApp) -> [String: Any] {
        [
            "token": app.token, "name": app.name, "icon": app.icon, "role": app.role.rawValue,
            "pointsPerMinute": app.pointsPerMinute,
            "learning": app.role == .learning,
        ]
    }

    static func card(_ view: QuestView, apps: [QuestApp]) -> [String: Any] {
        let names = Dictionary(apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        return [
            "id": view.challenge.id.rawValue, "title": view.challenge.spec.title, "summary": view.card.summary,
            "progress": view.card.progressText, "percent": view.card.percent, "state": view.card.state.rawValue,
            "completed": view.card.state == .completed, "paused": view.card.state == .paused,
            "period": view.card.periodText,
            "stateText": [
                "notStarted": "Starts \(view.challenge.spec.startDay.iso)", "inProgress": "In progress",
                "completed": "Completed!",
                "paused": "Paused", "ended": "Ended",
            ][view.card.state.rawValue] ?? "",
            "goal": view.challenge.spec.goal.title, "bonus": view.challenge.spec.bonusPercent,
            "steps": view.card.steps.map { step -> [String: Any] in
                [
                    "text": step.text, "state": step.state.rawValue, "minutes": step.minutes,
                    "stateText": [
                        "met": "Done", "missed": "Missed", "today": "Today: \(step.minutes) min",
                        "upcoming": "Coming up",
                    ][step.state.rawValue] ?? "",
                ]
            },
            "hasSteps": !view.card.steps.isEmpty,
            // No reward apps: false, so the card says "bonus points" (an empty string would open the section).
            "rewards": view.challenge.spec.rewardApps.isEmpty
                ? false as Any
                : view.challenge.spec.rewardApps.map {
                    "\(names[$0.token]?.icon ?? "🎮") \(names[$0.token]?.name ?? $0.token) · \($0.minutes) min"
                }
                .joined(separator: ", "),
        ]
    }

    /// What a screen says of the reward apps, all from the one shield decision (`ShieldPolicy`,
    /// `RewardUse`): unlocked now with minutes left, unlocked but waiting for downtime or a reward
    /// day to end, why redemption waits, and (for guardians) use while blocked today.
    static func shield(_ board: QuestBoard, now: Date) -> [String: Any] {
        let names = Dictionary(board.apps.map { ($0.token, $0) }, uniquingKeysWith: { a, _ in a })
        let zone = board.child.zone
        let unlocked = board.policy.apps.filter { !$0.blocked }.map { app -> [String: Any] in
            [
                "name": names[app.token]?.name ?? app.token, "icon": names[app.token]?.icon ?? "🎮",
                "minutesLeft": app.minutesLeft,
                "until": app.unlockedUntil.map { Wording.until($0, now: now, in: zone) } ?? "",
            ]
        }
        let blockedTokens = Set(board.policy.apps.filter(\.blocked).map(\.token))
        let restriction = board.restriction.map {
            QuestsFeature.restrictionMessage($0.reason, until: $0.until, zone: zone, now: now)
        }
        let waiting = board.grants.filter { blockedTokens.contains($0.grant.token) }.map { grant -> [String: Any] in
            [
                "name": names[grant.grant.token]?.name ?? grant.grant.token,
                "icon": names[grant.grant.token]?.icon ?? "🎮", "minutesLeft": grant.minutesLeft,
                "until": Wording.until(grant.grant.expiresAt, now: now, in: zone),
            ]
        }
        let reasons: [ShieldPolicy.Reason: String] = [
            .noGrant: "not unlocked", .downtime: "downtime", .notToday: "reward apps off today",
        ]
        let blocked = board.blockedToday.map { use -> [String: Any] in
            [
                "name": names[use.token]?.name ?? use.token, "icon": names[use.token]?.icon ?? "🎮",
                "minutes": use.minutes, "at": Wording.at(use.at, now: now, in: zone),
                "reason": reasons[use.reason] ?? "blocked",
            ]
        }
        return [
            "unlocked": unlocked, "hasUnlocked": !unlocked.isEmpty, "waiting": waiting, "hasWaiting": !waiting.isEmpty,
            "restriction": restriction ?? false, "blockedUse": blocked, "hasBlockedUse": !blocked.isEmpty,
        ]
    }
}
