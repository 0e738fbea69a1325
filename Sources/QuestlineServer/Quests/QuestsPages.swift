import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures

/// Family quests in the web app: the guardian's console (children, app catalogs, the
/// quest builder, quest detail) and the child's quest board. Pages listen to the
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

    func childID(_ context: AppRequestContext) throws -> MemberID {
        guard let raw = context.parameters.get("child"), let id = MemberID(raw) else {
            throw DomainError.notFound("No such child.")
        }
        return id
    }

    func questID(_ context: AppRequestContext) throws -> QuestID {
        guard let raw = context.parameters.get("quest"), let id = QuestID(raw) else {
            throw DomainError.notFound("No such quest.")
        }
        return id
    }

    func live(_ member: MemberRecord) -> Any {
        member.householdID.map { "/api/v1/households/\($0.rawValue)/events" } ?? false
    }

    // MARK: Guardian console

    func console(_ request: Request, _ context: AppRequestContext, errors: [String: String] = [:]) async throws
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

    func setRules(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let form = try await Form(request)
        guard let household = me.householdID else { throw DomainError.notFound("Create a household first.") }
        do {
            _ = try await quests.setRules(
                household, as: me, pointsPerMinute: Int(form["pointsPerMinute"]) ?? 0,
                minMinutes: Int(form["minMinutes"]) ?? 0, maxMinutes: Int(form["maxMinutes"]) ?? 0)
            return Response.redirect(to: "/quests/family?saved=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await console(request, context, errors: FieldErrors.of(error))
        }
    }

    // MARK: A child, seen by a guardian

    func childPage(
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
        func withIcon(_ app: QuestApp) -> AppView {
            var view = AppView(app)
            view.iconURL = icons[app.token]
            return view
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

    func putApp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
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
                request, context, errors: FieldErrors.of(error),
                values: [
                    "token": form["token"], "name": form["name"], "icon": form["icon"],
                    "pointsPerMinute": form["pointsPerMinute"],
                ])
        }
    }

    func deleteApp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            try await quests.deleteApp(id, token: form["token"], as: me)
            return Response.redirect(to: "/quests/children/\(id.rawValue)", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await childPage(request, context, errors: FieldErrors.of(error))
        }
    }

    func adjust(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try childID(context)
        let form = try await Form(request)
        do {
            _ = try await quests.adjust(id, points: Int(form["points"]) ?? 0, reason: form["reason"], as: me)
            return Response.redirect(to: "/quests/children/\(id.rawValue)", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await childPage(
                request, context, errors: FieldErrors.of(error),
                values: ["points": form["points"], "reason": form["reason"]])
        }
    }
}
