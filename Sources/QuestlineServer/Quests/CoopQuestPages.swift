import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// One co-op quest as its card shows it: the target together, everyone's share, what it pays.
struct CoopCard: Equatable {
    struct Share: Equatable {
        let name: String
        let value: String
        let percent: Int
        let bonus: String?
    }

    let id: String
    let title: String
    let week: String
    let phase: String
    let phaseLabel: String
    let progress: String
    let percent: Int
    /// The percentage in words ("40%").
    let percentText: String
    /// What it pays (the full page; the board's and the console's cards leave it out).
    let pays: String?
    let shares: [Share]
    let canCancel: Bool

    init(
        _ view: QuestsFeature.CoopQuestView, appNames: [String: String], compact: Bool = false, localizer l: Localizer
    ) {
        let spec = view.quest.spec
        func count(_ value: Int) -> Message { .count(value, spec.goal == .minutes ? .minutes : .learningDays) }
        id = view.quest.id.rawValue
        title = spec.title
        week = l(
            "quests.coop.week",
            [
                "from": .day(spec.weekStart, .short), "to": .day(spec.weekEnd, .short),
                "month": .day(spec.weekEnd, .month),
            ])
        phase = view.phase.rawValue
        switch view.phase {
        case .upcoming: phaseLabel = l("quests.coop.phase.upcoming")
        case .running: phaseLabel = l("quests.coop.phase.running")
        case .completed:
            // "Together" only when more than one child helped.
            let helpers = view.progress.shares.filter { $0.value > 0 }
            if helpers.count > 1 {
                phaseLabel = l("quests.coop.phase.together")
            } else if let name = helpers.first.flatMap({ view.names[$0.child] }) {
                phaseLabel = l("quests.coop.phase.reachedBy", ["name": .text(name)])
            } else {
                phaseLabel = l("quests.coop.phase.reachedByFamily")
            }
        case .missed: phaseLabel = l("quests.coop.phase.missed")
        case .cancelled: phaseLabel = l("quests.coop.phase.cancelled")
        }
        progress = l(
            "quests.coop.progress", ["value": .number(view.progress.value), "target": .message(count(spec.target))])
        percent = view.progress.percent
        percentText = l.render(.percent(view.progress.percent))
        let apps = spec.rewardApps.map {
            Message.Argument.message(
                Message(
                    "quests.coop.appFor",
                    ["app": .text(appNames[$0.token] ?? $0.token), "minutes": .message(.count($0.minutes, .minutes))]))
        }
        let bonus = Message.Argument.percent(spec.bonusPercent)
        pays =
            compact
            ? nil
            : apps.isEmpty
                ? l("quests.coop.pays", ["bonus": bonus])
                : l("quests.coop.paysAndApps", ["bonus": bonus, "apps": .list(apps)])
        let total = max(view.progress.value, 1)
        shares = view.progress.shares.map { share in
            Share(
                name: view.names[share.child] ?? l("quests.coop.formerMember"), value: l(count(share.value)),
                percent: share.value * 100 / total,
                bonus: share.paid.map { l("quests.coop.shareBonus", ["points": .message(.count($0, .points))]) })
        }
        canCancel = view.canCancel
    }
}

/// The co-op quests page (`coop.mustache`): the household's co-op quests and, for a guardian,
/// the form to set one (kept as typed when refused).
struct CoopPage: Equatable {
    struct Choice: Equatable {
        let value: String
        let label: String
        let selected: Bool
    }

    struct Form: Equatable {
        var title = ""
        var goal = "minutes"
        var target = "120"
        var dailyMinimum = "15"
        var week = ""
        var children: Set<String> = []
        var bonus = "10"
        var apps: Set<String> = []
        var unlockMinutes = "30"
    }

    let cards: [CoopCard]
    let empty: Bool
    let canSet: Bool
    let tooFewChildren: Bool
    let goals: [Choice]
    let weeks: [Choice]
    let children: [Choice]
    let bonuses: [Choice]
    let apps: [Choice]
    let hasApps: Bool
    let form: Form
    let errors: [String: String]
    let notice: String?
    let live: String?

    init(
        _ board: QuestsFeature.CoopBoard, me: MemberRecord, form: Form?, errors: [String: String], notice: String?,
        localizer l: Localizer
    ) {
        cards = board.quests.map { CoopCard($0, appNames: board.appNames, localizer: l) }
        empty = board.quests.isEmpty
        canSet = board.canSet
        tooFewChildren = board.children.count < CoopQuestSpec.children.lowerBound
        var form = form ?? Form()
        if form.week.isEmpty { form.week = board.thisWeek.iso }
        goals = [
            Choice(value: "minutes", label: l("quests.coop.goal.minutes"), selected: form.goal == "minutes"),
            Choice(value: "days", label: l("quests.coop.goal.days"), selected: form.goal == "days"),
        ]
        weeks = [board.thisWeek, board.thisWeek.adding(days: 7)].enumerated().map { index, monday in
            Choice(
                value: monday.iso,
                label: l(index == 0 ? "quests.coop.thisWeek" : "quests.coop.nextWeek", ["day": .day(monday, .short)]),
                selected: form.week == monday.iso)
        }
        children = board.children.map {
            Choice(value: $0.id.rawValue, label: $0.displayName, selected: form.children.contains($0.id.rawValue))
        }
        bonuses = QuestSpec.bonusChoices.map {
            Choice(value: String($0), label: l.render(.percent($0)), selected: form.bonus == String($0))
        }
        apps = board.rewardApps.map {
            Choice(
                value: $0.token,
                label: $0.ofEveryChild ? $0.name : l("quests.coop.appNotEveryChild", ["app": .text($0.name)]),
                selected: form.apps.contains($0.token))
        }
        hasApps = !apps.isEmpty
        self.form = form
        self.errors = errors
        self.notice = notice
        live = liveEventsPath(me)
    }
}

extension QuestsPages {
    func registerCoop(on router: Router<AppRequestContext>) {
        router.get("/quests/family/coop") { request, context in try await self.coop(request, context) }
        router.post("/quests/family/coop") { request, context in try await self.createCoop(request, context) }
        router.post("/quests/family/coop/:quest/cancel") { request, context in
            try await self.cancelCoop(request, context)
        }
    }

    private func coop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/coop")
        let message = flash.message(in: request)
        return try await coopPage(
            me, context, form: nil, errors: message?.kind == .error ? ["form": message!.text] : [:],
            notice: message?.kind == .notice ? message?.text : nil)
    }

    private func coopPage(
        _ me: MemberRecord, _ context: AppRequestContext, form: CoopPage.Form?, errors: [String: String],
        notice: String?, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let board = try await family.quests.coopBoard(try sharedHousehold(of: me), as: me)
        return pages.page(
            "coop", title: context.localizer("quests.coop.title"),
            model: CoopPage(board, me: me, form: form, errors: errors, notice: notice, localizer: context.localizer),
            context: context,
            path: "/quests", status: status, back: me.role == .child ? "/quests" : "/quests/family")
    }

    private func createCoop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/coop")
        let body = try await Form(request)
        var typed = CoopPage.Form()
        typed.title = body["title"]
        typed.goal = body["goal"]
        typed.target = body["target"]
        typed.dailyMinimum = body["dailyMinimum"]
        typed.week = body["week"]
        typed.children = Set(body.values("child"))
        typed.bonus = body["bonus"]
        typed.apps = Set(body.values("app"))
        typed.unlockMinutes = body["unlockMinutes"]
        return try await submitting {
            let spec = try Self.coopSpec(body)
            let view = try await family.quests.createCoopQuest(
                try sharedHousehold(of: me), spec: spec, as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/quests/family/coop", .notice,
                view.phase == .completed
                    ? context.localizer("quests.notice.coopDone")
                    : context.localizer("quests.notice.coopSet", ["quest": .text(view.quest.spec.title)]))
        } refused: { error in
            try await coopPage(
                me, context, form: typed, errors: FieldErrors.of(error), notice: nil, status: .badRequest)
        }
    }

    /// The form's fields as the core's spec; a number that is not one is refused by its field.
    static func coopSpec(_ body: Form) throws(DomainError) -> CoopQuestSpec {
        func number(_ field: String, _ name: String) throws(DomainError) -> Int {
            guard let value = Int(body[field].trimmingCharacters(in: .whitespaces)) else {
                throw .invalid(field: name, Message("quests.error.wholeNumber"))
            }
            return value
        }
        var v = FieldValidation()
        let target = v.check { () throws(DomainError) in try number("target", "target") }
        let minimum =
            body["goal"] == "days"
            ? v.check { () throws(DomainError) in try number("dailyMinimum", "dailyMinimumMinutes") } : 15
        let unlock =
            body.values("app").isEmpty
            ? 0 : v.check { () throws(DomainError) in try number("unlockMinutes", "rewardApps") }
        let week = LocalDay(iso: body["week"])
        if week == nil { v.add(field: "weekStart", Message("quests.error.coopWeekChoice")) }
        var children: [MemberID] = []
        for child in body.values("child") {
            if let id = MemberID(child) {
                children.append(id)
            } else {
                v.add(field: "children", Message("quests.error.coopChildrenHousehold"))
            }
        }
        try v.finish()
        guard let target, let minimum, let unlock, let week else {
            throw .invalid(field: "form", Message("quests.error.checkForm"))
        }
        return CoopQuestSpec(
            title: body["title"], goal: CoopGoal(rawValue: body["goal"]) ?? .minutes, target: target,
            dailyMinimumMinutes: minimum, weekStart: week, children: children, bonusPercent: Int(body["bonus"]) ?? 0,
            rewardApps: body.values("app").map { RewardUnlock(token: $0, minutes: unlock) })
    }

    private func cancelCoop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/coop")
        let id = try CoopQuestID.parse(context.parameters.get("quest") ?? "", field: "quest")
        try await family.quests.cancelCoopQuest(id, as: me, scope: context.scope.write)
        return flash.redirect(to: "/quests/family/coop", .notice, context.localizer("quests.notice.coopCancelled"))
    }
}
