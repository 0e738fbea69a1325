import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Family quests in the web app: the guardian's console (children, app catalogs, the
/// quest builder, quest detail) and the child's quest board. Pages listen to the
/// household's live events and refresh themselves when something changes.
struct QuestsPages {
    let family: FamilyFeatures
    /// A child's time zone is a guardian's setting of the child's profile.
    let accounts: AccountsFeature
    let pages: PageRenderer
    /// Messages for the page after a redirect.
    let flash: Flash

    func register(on router: Router<AppRequestContext>) {
        router.get("/quests/family") { request, context in try await self.console(request, context) }
        registerFamilyStreak(on: router)
        registerCoop(on: router)
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

    func childID(_ context: AppRequestContext) throws -> MemberID {
        guard let raw = context.parameters.get("child"), let id = MemberID(raw) else {
            throw DomainError.notFound(Message("quests.error.noSuchChild"))
        }
        return id
    }

    func questID(_ context: AppRequestContext) throws -> QuestID {
        guard let raw = context.parameters.get("quest"), let id = QuestID(raw) else {
            throw DomainError.notFound(Message("quests.error.noSuchQuest"))
        }
        return id
    }

    // MARK: Guardian console

    func console(_ request: Request, _ context: AppRequestContext, errors: [String: String] = [:]) async throws
        -> Response
    {
        let me = try context.requireWebMember(next: "/quests/family")
        if me.role == .child { return Response.redirect(to: "/quests", type: .normal) }
        guard let household = me.householdID else {
            return pages.page(
                "quests-family", title: context.localizer("quests.family.title"),
                model: FamilyConsolePage.withoutHousehold, context: context,
                path: "/quests", back: "/")
        }
        let summaries = try await family.quests.household(as: me)
        var page = FamilyConsolePage(
            viewer: me, household: household, children: summaries,
            rules: try await family.points.rules(household, as: me),
            errors: errors, saved: request.uri.queryParameters["saved"] != nil,
            notice: flash.text(of: .notice, in: request), localizer: context.localizer)
        (page.family, page.coop) = try await together(for: me, localizer: context.localizer)
        let waiting = try await family.shield.waitingRequests(as: me, children: summaries.map(\.child))
        page.show(
            WaitingRequests(
                waiting, viewer: me, now: family.clock.now(), back: "/quests/family", localizer: context.localizer),
            of: waiting, localizer: context.localizer)
        return pages.page(
            "quests-family", title: context.localizer("quests.family.title"), model: page, context: context,
            path: "/quests",
            status: errors.isEmpty ? .ok : .badRequest, back: "/")
    }

    func setRules(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let form = try await Form(request)
        guard let household = me.householdID else {
            throw DomainError.notFound(Message("quests.error.createHousehold"))
        }
        return try await submitting {
            _ = try await family.points.setRules(
                household, as: me, pointsPerMinute: Int(form["pointsPerMinute"]) ?? 0,
                minMinutes: Int(form["minMinutes"]) ?? 0, maxMinutes: Int(form["maxMinutes"]) ?? 0,
                scope: context.scope.write)
            return Response.redirect(to: "/quests/family?saved=1", type: .normal)
        } refused: { error in
            try await console(request, context, errors: FieldErrors.of(error))
        }
    }

    // MARK: A child, seen by a guardian

    func childPage(_ request: Request, _ context: AppRequestContext, form: FormState = FormState()) async throws
        -> Response
    {
        let me = try context.requireWebMember(next: request.uri.path)
        let board = try await family.quests.board(try childID(context), as: me)
        let notice =
            flash.text(of: .notice, in: request)
            ?? (request.uri.queryParameters["deleted"] != nil
                ? context.localizer("quests.notice.questDeleted") : nil)
        let page = ChildQuestsPage(
            board: board, deviceApps: try await family.shield.deviceApps(board.child.id, as: me), viewer: me,
            now: family.clock.now(), form: form, notice: notice, localizer: context.localizer)
        return pages.page(
            "quests-child", title: board.child.displayName, model: page, context: context, path: "/quests",
            status: form.error.map { Problem.from($0).httpStatus } ?? .ok, back: "/quests/family")
    }

    func putApp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        return try await submitting {
            let app = try await family.shield.putApp(
                id, as: me, token: form["token"], name: form["name"], icon: form["icon"], role: form["role"],
                pointsPerMinute: form["pointsPerMinute"].isEmpty ? nil : Int(form["pointsPerMinute"]) ?? 0,
                scope: context.scope.write)
            return flash.redirect(
                to: "/quests/children/\(id.rawValue)", .notice,
                context.localizer(
                    app.role == .learning ? "quests.notice.learningAppAdded" : "quests.notice.rewardAppAdded",
                    ["app": .text(app.name)]))
        } refused: { error in
            let values = [
                "token": form["token"], "name": form["name"], "icon": form["icon"],
                "pointsPerMinute": form["pointsPerMinute"],
            ]
            return try await childPage(request, context, form: FormState(values: values, error: error))
        }
    }

    func deleteApp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        return try await submitting {
            try await family.shield.deleteApp(id, token: form["token"], as: me, scope: context.scope.write)
            return Response.redirect(to: "/quests/children/\(id.rawValue)", type: .normal)
        } refused: { error in
            try await childPage(request, context, form: FormState(error: error))
        }
    }

    func adjust(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        return try await submitting {
            let points = Int(form["points"]) ?? 0
            _ = try await family.points.adjust(
                id, points: points, reason: form["reason"], as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/quests/children/\(id.rawValue)", .notice,
                context.localizer(
                    points >= 0 ? "quests.notice.pointsAdded" : "quests.notice.pointsTaken",
                    ["points": .message(.count(abs(points), .points))]))
        } refused: { error in
            let values = ["points": form["points"], "reason": form["reason"]]
            return try await childPage(request, context, form: FormState(values: values, error: error))
        }
    }
}
