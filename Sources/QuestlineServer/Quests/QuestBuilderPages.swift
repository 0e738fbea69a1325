import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures

/// The quest builder (new and edit) and a quest's page.
extension QuestsPages {
    // MARK: Builder

    func builder(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let child = try await quests.child(try childID(context), as: me, manage: true)
        let today = LocalDay(quests.clock.now(), in: child.zone)
        let draft = QuestDraft(
            title: "", goalType: GoalType.dailyMinutes.rawValue, target: 30, bonusPercent: 10, startDate: today.iso)
        return try await builderPage(
            context, child: child, draft: draft, action: "/quests/children/\(child.id.rawValue)/quests", editing: false)
    }

    func editor(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let (view, child, _) = try await quests.quest(try questID(context), as: me)
        _ = try await quests.child(child.id, as: me, manage: true)
        return try await builderPage(
            context, child: child, draft: QuestDraft(view.quest.spec),
            action: "/quests/\(view.quest.id.rawValue)", editing: true)
    }

    func builderPage(
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
                "learningApps": apps.filter { $0.role == .learning }.map { app -> AppView in
                    var item = AppView(app)
                    item.checked = draft.learningApps.contains(app.token)
                    return item
                },
                "rewardApps": apps.filter { $0.role == .reward }.map { app -> AppView in
                    var item = AppView(app)
                    item.checked = rewardMinutes[app.token] != nil
                    item.minutes = rewardMinutes[app.token] ?? 30
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

    func create(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let child = try await quests.child(try childID(context), as: me, manage: true)
        let form = try await Form(request)
        let draft = Self.draft(form)
        do {
            let quest = try await quests.createQuest(for: child.id, draft: draft, as: me)
            return Response.redirect(to: "/quests/\(quest.id.rawValue)?created=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            return try await builderPage(
                context, child: child, draft: draft, action: "/quests/children/\(child.id.rawValue)/quests",
                editing: false,
                errors: FieldErrors.of(error))
        }
    }

    func update(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let form = try await Form(request)
        let draft = Self.draft(form)
        do {
            _ = try await quests.updateQuest(id, draft: draft, as: me)
            return Response.redirect(to: "/quests/\(id.rawValue)?saved=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            let (_, child, _) = try await quests.quest(id, as: me)
            return try await builderPage(
                context, child: child, draft: draft, action: "/quests/\(id.rawValue)", editing: true,
                errors: FieldErrors.of(error))
        }
    }

    // MARK: Quest detail

    func detail(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let (view, child, apps) = try await quests.quest(try questID(context), as: me)
        let spec = view.quest.spec
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
                "guardian": Self.manages(me, child), "paused": view.quest.status == .paused,
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

    func status(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let form = try await Form(request)
        _ = try await quests.setStatus(id, form["status"] == "paused" ? .paused : .active, as: me)
        return Response.redirect(to: "/quests/\(id.rawValue)", type: .normal)
    }

    func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let (_, child, _) = try await quests.quest(id, as: me)
        try await quests.deleteQuest(id, as: me)
        return Response.redirect(to: "/quests/children/\(child.id.rawValue)?deleted=1", type: .normal)
    }
}
