import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures

/// The child's device in the browser (the stand-in for the phone): what it enforces, reported
/// use, requests for more time, and the guardian's screen-time rules and time zone.
extension QuestsPages {
    // MARK: The device stand-in

    /// The child's device in the browser: what it enforces now (the shield policy), a way to
    /// report use of the child's apps, and (for guardians) the screen-time rules.
    func device(
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
                "startHours": HourOption.day(selecting: rules.downtime?.start ?? 20),
                "endHours": HourOption.day(selecting: rules.downtime?.end ?? 7),
                "errors": errors, "values": values.merging(["timeZone": board.child.timeZone]) { typed, _ in typed },
                "timeZones": TimeZoneNames.all,
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
    func report(_ request: Request, _ context: AppRequestContext) async throws -> Response {
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
    func reportUse(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await quests.reportSession(id, appToken: form["appToken"], minutes: Int(form["minutes"]), as: me)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?reported=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(
                request, context,
                errors: FieldErrors.prefixed(
                    FieldErrors.of(error).reduce(into: [:]) { errors, issue in
                        // The one report's fields (`reports[0].appToken`) are the form's.
                        errors[String(issue.key.split(separator: ".").last ?? "form")] = issue.value
                    }, "use"),
                values: ["minutes": form["minutes"], "appToken": form["appToken"]])
        }
    }

    /// The child asks for more time from the device page.
    func askForTime(_ request: Request, _ context: AppRequestContext) async throws -> Response {
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
            var errors = FieldErrors.prefixed(FieldErrors.of(error), "ask")
            // A refusal of the whole request (asked too often) shows by the ask form.
            if let whole = errors.removeValue(forKey: "askForm") { errors["ask"] = whole }
            return try await device(
                request, context, errors: errors, values: ["askMinutes": form["minutes"], "note": form["note"]])
        }
    }

    /// A guardian answers a request (from the child's device page).
    func decide(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let form = try await Form(request)
        let answered = try await quests.decide(
            context.parameters.get("request") ?? "", approve: form["approve"] == "1", as: me)
        return Response.redirect(
            to: "/quests/children/\(answered.child.rawValue)/device?answered=1", type: .normal)
    }

    /// A guardian sets the child's time zone: the child's days (downtime, reward days, quest
    /// periods) follow it (`AccessPolicy`'s `changeTimeZone`: the child cannot).
    func setTimeZone(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await accounts.updateProfile(id, as: me, displayName: nil, timeZone: form["timeZone"])
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?zone=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(
                request, context, errors: FieldErrors.of(error), values: ["timeZone": form["timeZone"]])
        }
    }

    func setShieldRules(_ request: Request, _ context: AppRequestContext) async throws -> Response {
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
            return try await device(request, context, errors: FieldErrors.of(error))
        }
    }
}
