import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The child's device in the browser (the stand-in for the phone): what it enforces, reported
/// use, requests for more time, and the guardian's screen-time rules and time zone.
extension QuestsPages {
    // MARK: The device stand-in

    /// The child's device in the browser: what it enforces now (the shield policy), a way to
    /// report use of the child's apps, and (for guardians) the screen-time rules.
    func device(_ request: Request, _ context: AppRequestContext, form: FormState = FormState()) async throws
        -> Response
    {
        let me = try context.requireWebMember(next: request.uri.path)
        let id = try childID(context)
        let board = try await family.quests.board(id, as: me)
        let query = Set(request.uri.queryParameters.map { String($0.key) })
        let page = DevicePage(
            board: board, policy: try await family.shield.policy(id, as: me),
            rules: try await family.shield.shieldRules(id, as: me),
            requests: try await family.shield.timeRequests(id, as: me), viewer: me, now: family.clock.now(), form: form,
            notice: DevicePage.notice(query, child: board.child, localizer: context.localizer),
            localizer: context.localizer)
        return pages.page(
            "quests-device", title: context.localizer("quests.device.title", ["name": .text(board.child.displayName)]),
            model: page, context: context,
            path: "/quests", status: form.error.map { Problem.from($0).httpStatus } ?? .ok,
            back: me.id == id ? "/quests" : "/quests/children/\(id.rawValue)")
    }

    /// The guardian's weekly report: three charts drawn as SVG, a week at a time.
    func report(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let id = try childID(context)
        var asked: LocalDay?
        if let raw = request.uri.queryParameters["week"] {
            guard let day = LocalDay(iso: raw) else {
                throw DomainError.invalid(field: "week", Message("quests.error.weekFormat"))
            }
            asked = day
        }
        let child = try await family.quests.child(id, as: me)
        let report = try await family.usage.weeklyReport(id, as: me, week: asked)
        let page = WeeklyReportPage(
            report, child: child, today: LocalDay(family.clock.now(), in: child.zone), localizer: context.localizer)
        return pages.page(
            "quests-report", title: context.localizer("quests.report.title", ["name": .text(child.displayName)]),
            model: page, context: context, path: "/quests",
            back: "/quests/children/\(id.rawValue)")
    }

    /// The device reports use of one of the child's apps, ending now.
    func reportUse(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await family.usage.reportSession(
                id, appToken: form["appToken"], minutes: Int(form["minutes"]), as: me, scope: context.scope.write)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?reported=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            var refused = FormState(values: ["minutes": form["minutes"], "appToken": form["appToken"]], error: error)
            refused.errors = FieldErrors.prefixed(
                refused.errors.reduce(into: [:]) { errors, issue in
                    // The one report's fields (`reports[0].appToken`) are the form's.
                    errors[String(issue.key.split(separator: ".").last ?? "form")] = issue.value
                }, "use")
            return try await device(request, context, form: refused)
        }
    }

    /// The child asks for more time from the device page.
    func askForTime(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await family.shield.askForTime(
                id, as: me, appToken: form["appToken"], minutes: Int(form["minutes"]) ?? 0, note: form["note"],
                scope: context.scope.write)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?asked=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            // Each form's errors under names of its own: the report form's fields have the same
            // names, and their errors must not show (or take focus) there.
            var refused = FormState(values: ["askMinutes": form["minutes"], "note": form["note"]], error: error)
            refused.errors = FieldErrors.prefixed(refused.errors, "ask")
            // A refusal of the whole request (asked too often) shows by the ask form.
            if let whole = refused.errors.removeValue(forKey: "askForm") { refused.errors["ask"] = whole }
            return try await device(request, context, form: refused)
        }
    }

    /// A guardian answers a request (from the child's device page, the family console or the
    /// home page: `back` says which, and the answer returns there).
    func decide(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let form = try await Form(request)
        let approve = form["approve"] == "1"
        let answered = try await family.shield.decide(
            context.parameters.get("request") ?? "", approve: approve, as: me, scope: context.scope.write)
        let back = form["back"]
        guard WaitingRequests.returns.contains(back) else {
            return Response.redirect(
                to: "/quests/children/\(answered.child.rawValue)/device?answered=1", type: .normal)
        }
        return flash.redirect(
            to: back, .notice, context.localizer(approve ? "quests.notice.approved" : "quests.notice.declined"))
    }

    /// A guardian sets the child's time zone: the child's days (downtime, reward days, quest
    /// periods) follow it (`AccessPolicy`'s `changeTimeZone`: the child cannot).
    func setTimeZone(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await accounts.updateProfile(
                id, as: me, displayName: nil, timeZone: form["timeZone"], scope: context.scope.write)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?zone=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(
                request, context, form: FormState(values: ["timeZone": form["timeZone"]], error: error))
        }
    }

    func setShieldRules(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            let downtime = form["downtime"] == "on"
            _ = try await family.shield.setShieldRules(
                id, as: me, rewardDays: form.values("rewardDays").compactMap { Int($0) },
                downtimeStart: downtime ? Int(form["downtimeStart"]) : nil,
                downtimeEnd: downtime ? Int(form["downtimeEnd"]) : nil, scope: context.scope.write)
            return Response.redirect(to: "/quests/children/\(id.rawValue)/device?rules=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await device(request, context, form: FormState(error: error))
        }
    }
}
