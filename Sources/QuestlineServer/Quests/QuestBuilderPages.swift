import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The quest builder (new and edit) and a quest's page.
extension QuestsPages {
    // MARK: Builder

    func builder(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let child = try await family.quests.child(try childID(context), as: me, manage: true)
        let today = LocalDay(family.clock.now(), in: child.zone)
        let draft = QuestDraft(
            title: "", goalType: GoalType.dailyMinutes.rawValue, target: 30, bonusPercent: 10, startDate: today.iso)
        return try await builderPage(
            context, child: child, draft: draft, action: "/quests/children/\(child.id.rawValue)/quests", editing: false)
    }

    func editor(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let (view, child, _) = try await family.quests.quest(try questID(context), as: me)
        _ = try await family.quests.child(child.id, as: me, manage: true)
        return try await builderPage(
            context, child: child, draft: QuestDraft(view.quest.spec),
            action: "/quests/\(view.quest.id.rawValue)", editing: true)
    }

    func builderPage(
        _ context: AppRequestContext, child: MemberRecord, draft: QuestDraft, action: String, editing: Bool,
        errors: [String: String] = [:]
    ) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let page = QuestBuilderPage(
            child: child, apps: try await family.shield.apps(child.id, as: me), draft: draft, action: action,
            editing: editing,
            errors: errors, localizer: context.localizer)
        return pages.page(
            "quest-builder", title: context.localizer(editing ? "quests.builder.editTitle" : "quests.builder.newTitle"),
            model: page, context: context,
            path: "/quests", status: errors.isEmpty ? .ok : .badRequest,
            back: editing ? action : "/quests/children/\(child.id.rawValue)")
    }

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
        let child = try await family.quests.child(try childID(context), as: me, manage: true)
        let form = try await Form(request)
        let draft = Self.draft(form)
        do {
            let view = try await family.quests.createQuest(
                for: child.id, draft: draft, as: me, scope: context.scope.write)
            return Response.redirect(to: "/quests/\(view.quest.id.rawValue)?created=1", type: .normal)
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
            _ = try await family.quests.updateQuest(id, draft: draft, as: me, scope: context.scope.write)
            return Response.redirect(to: "/quests/\(id.rawValue)?saved=1", type: .normal)
        } catch let error as DomainError where error.isFormProblem {
            let (_, child, _) = try await family.quests.quest(id, as: me)
            return try await builderPage(
                context, child: child, draft: draft, action: "/quests/\(id.rawValue)", editing: true,
                errors: FieldErrors.of(error))
        }
    }

    // MARK: Quest detail

    func detail(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: request.uri.path)
        let (view, child, apps) = try await family.quests.quest(try questID(context), as: me)
        let notice =
            request.uri.queryParameters["created"] != nil
            ? context.localizer("quests.notice.questCreated", ["name": .text(child.displayName)])
            : request.uri.queryParameters["saved"] != nil ? context.localizer("quests.notice.saved") : nil
        return pages.page(
            "quest-detail", title: view.quest.spec.title,
            model: QuestDetailPage(
                view, child: child, apps: apps, viewer: me, notice: notice, localizer: context.localizer),
            context: context,
            path: "/quests", back: me.role == .guardian ? "/quests/children/\(child.id.rawValue)" : "/quests")
    }

    func status(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let form = try await Form(request)
        _ = try await family.quests.setStatus(
            id, form["status"] == "paused" ? .paused : .active, as: me, scope: context.scope.write)
        return Response.redirect(to: "/quests/\(id.rawValue)", type: .normal)
    }

    func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family")
        let id = try questID(context)
        let (_, child, _) = try await family.quests.quest(id, as: me)
        try await family.quests.deleteQuest(id, as: me, scope: context.scope.write)
        return Response.redirect(to: "/quests/children/\(child.id.rawValue)?deleted=1", type: .normal)
    }
}
