import AsyncAlgorithms
import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Family quests over the API.
extension APIImplementation {
    func getQuestRules(_ input: Operations.getQuestRules.Input) async throws -> Operations.getQuestRules.Output {
        let me = try identity.requireMember()
        let rules = try await family.points.rules(
            try HouseholdID.parse(input.path.householdId, field: "householdId"), as: me)
        return .ok(.init(body: .json(.init(rules))))
    }

    func setQuestRules(_ input: Operations.setQuestRules.Input) async throws -> Operations.setQuestRules.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let rules = try await family.points.setRules(
            try HouseholdID.parse(input.path.householdId, field: "householdId"), as: me,
            pointsPerMinute: body.pointsPerMinute,
            minMinutes: body.minMinutes, maxMinutes: body.maxMinutes, scope: writeScope)
        return .ok(.init(body: .json(.init(rules))))
    }

    func householdEvents(_ input: Operations.householdEvents.Input) async throws -> Operations.householdEvents.Output {
        let me = try identity.requireMember()
        let household = try HouseholdID.parse(input.path.householdId, field: "householdId")
        try AccessPolicy.check(me.actor, .readHousehold(household))
        // A Last-Event-ID that is not an event id starts afresh, as a first connection does.
        let after = (input.headers.Last_hyphen_Event_hyphen_ID ?? input.query.lastEventId).flatMap { Int64($0) }
            .flatMap { $0 >= 0 ? $0 : nil }
        let updates = family.live.subscribe(household, after: after)
        return .ok(
            .init(
                body: .text_event_hyphen_stream(LiveStream.body(updates))))
    }

    func listQuestApps(_ input: Operations.listQuestApps.Input) async throws -> Operations.listQuestApps.Output {
        let me = try identity.requireMember()
        let apps = try await family.shield.apps(try MemberID.parse(input.path.childId, field: "childId"), as: me)
        return .ok(.init(body: .json(apps.map(Components.Schemas.QuestApp.init))))
    }

    func putQuestApp(_ input: Operations.putQuestApp.Input) async throws -> Operations.putQuestApp.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let app = try await family.shield.putApp(
            try MemberID.parse(input.path.childId, field: "childId"), as: me, token: input.path.appToken,
            name: body.name,
            icon: body.icon, role: body.role.rawValue, pointsPerMinute: body.pointsPerMinute, scope: writeScope)
        return .ok(.init(body: .json(.init(app))))
    }

    func deleteQuestApp(_ input: Operations.deleteQuestApp.Input) async throws -> Operations.deleteQuestApp.Output {
        let me = try identity.requireMember()
        try await family.shield.deleteApp(
            try MemberID.parse(input.path.childId, field: "childId"), token: input.path.appToken, as: me,
            scope: writeScope)
        return .noContent(.init())
    }

    func getQuestBoard(_ input: Operations.getQuestBoard.Input) async throws -> Operations.getQuestBoard.Output {
        let me = try identity.requireMember()
        let board = try await family.quests.board(try MemberID.parse(input.path.childId, field: "childId"), as: me)
        return .ok(.init(body: .json(.init(board, localizer: RequestLanguage.localizer))))
    }

    func createQuest(_ input: Operations.createQuest.Input) async throws -> Operations.createQuest.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let view = try await family.quests.createQuest(
            for: try MemberID.parse(input.path.childId, field: "childId"), draft: .init(body), as: me, scope: writeScope
        )
        return .created(.init(body: .json(.init(view, localizer: RequestLanguage.localizer))))
    }

    func getQuest(_ input: Operations.getQuest.Input) async throws -> Operations.getQuest.Output {
        let me = try identity.requireMember()
        return .ok(.init(body: .json(try await quest(try QuestID.parse(input.path.questId, field: "questId"), as: me))))
    }

    func updateQuest(_ input: Operations.updateQuest.Input) async throws -> Operations.updateQuest.Output {
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        return .ok(.init(body: .json(try await update(try QuestID.parse(input.path.questId, field: "questId"), body))))
    }

    func deleteQuest(_ input: Operations.deleteQuest.Input) async throws -> Operations.deleteQuest.Output {
        try await family.quests.deleteQuest(
            try QuestID.parse(input.path.questId, field: "questId"), as: try identity.requireMember(), scope: writeScope
        )
        return .noContent(.init())
    }

    func setQuestStatus(_ input: Operations.setQuestStatus.Input) async throws -> Operations.setQuestStatus.Output {
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let id = try QuestID.parse(input.path.questId, field: "questId")
        return .ok(.init(body: .json(try await setStatus(id, paused: body.status == .paused))))
    }

    // The old addresses under /challenges, kept through API version 1 (docs/decisions.md).

    func getChallenge(_ input: Operations.getChallenge.Input) async throws -> Operations.getChallenge.Output {
        let me = try identity.requireMember()
        return .ok(
            .init(body: .json(try await quest(try QuestID.parse(input.path.challengeId, field: "challengeId"), as: me)))
        )
    }

    func updateChallenge(_ input: Operations.updateChallenge.Input) async throws -> Operations.updateChallenge.Output {
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        return .ok(
            .init(body: .json(try await update(try QuestID.parse(input.path.challengeId, field: "challengeId"), body))))
    }

    func deleteChallenge(_ input: Operations.deleteChallenge.Input) async throws -> Operations.deleteChallenge.Output {
        try await family.quests.deleteQuest(
            try QuestID.parse(input.path.challengeId, field: "challengeId"), as: try identity.requireMember(),
            scope: writeScope)
        return .noContent(.init())
    }

    func setChallengeStatus(_ input: Operations.setChallengeStatus.Input) async throws
        -> Operations.setChallengeStatus.Output
    {
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let id = try QuestID.parse(input.path.challengeId, field: "challengeId")
        return .ok(.init(body: .json(try await setStatus(id, paused: body.status == .paused))))
    }

    private func update(_ id: QuestID, _ body: Components.Schemas.QuestInput) async throws -> Components.Schemas.Quest {
        let me = try identity.requireMember()
        let view = try await family.quests.updateQuest(id, draft: .init(body), as: me, scope: writeScope)
        return .init(view, localizer: RequestLanguage.localizer)
    }

    private func setStatus(_ id: QuestID, paused: Bool) async throws -> Components.Schemas.Quest {
        let me = try identity.requireMember()
        let view = try await family.quests.setStatus(id, paused ? .paused : .active, as: me, scope: writeScope)
        return .init(view, localizer: RequestLanguage.localizer)
    }

    func reportUsage(_ input: Operations.reportUsage.Input) async throws -> Operations.reportUsage.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let reports = body.reports.map {
            UsageReportInput(
                id: $0.id, appToken: $0.appToken, startedAt: $0.startedAt, durationSeconds: $0.durationSeconds,
                timeZone: $0.timeZone)
        }
        let outcome = try await family.usage.reportUsage(
            try MemberID.parse(input.path.childId, field: "childId"), reports: reports, as: me, scope: writeScope)
        return .ok(
            .init(
                body: .json(
                    .init(
                        accepted: outcome.accepted, duplicates: outcome.duplicates, pointsEarned: outcome.pointsEarned,
                        completed: outcome.completed.map {
                            .init(challengeId: $0.quest.rawValue, period: $0.periodKey, bonus: $0.bonus)
                        },
                        badges: outcome.badges, blocked: outcome.blocked.map(Components.Schemas.BlockedUse.init)))))
    }

    func listGrants(_ input: Operations.listGrants.Input) async throws -> Operations.listGrants.Output {
        let me = try identity.requireMember()
        let id = try MemberID.parse(input.path.childId, field: "childId")
        let grants = try await family.points.grants(id, as: me)
        let names = Dictionary(
            try await family.shield.apps(id, as: me).map { ($0.token, $0.name) }, uniquingKeysWith: { a, _ in a })
        return .ok(.init(body: .json(grants.map { .init($0, names: names) })))
    }

    func redeemPoints(_ input: Operations.redeemPoints.Input) async throws -> Operations.redeemPoints.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let (grant, balance) = try await family.points.redeem(
            try MemberID.parse(input.path.childId, field: "childId"), token: body.appToken, minutes: body.minutes,
            as: me, scope: writeScope)
        return .created(.init(body: .json(.init(grant: .init(grant, names: [:]), balance: balance))))
    }

    func adjustPoints(_ input: Operations.adjustPoints.Input) async throws -> Operations.adjustPoints.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let balance = try await family.points.adjust(
            try MemberID.parse(input.path.childId, field: "childId"), points: body.points, reason: body.reason, as: me,
            scope: writeScope)
        return .created(.init(body: .json(.init(balance: balance))))
    }

    func getLedger(_ input: Operations.getLedger.Input) async throws -> Operations.getLedger.Output {
        let me = try identity.requireMember()
        let page = try Paging(limit: input.query.limit, offset: input.query.offset)
        let (entries, balance) = try await family.points.ledger(
            try MemberID.parse(input.path.childId, field: "childId"), as: me, limit: page.limit, offset: page.offset)
        // The reasons kept as messages are read in the reader's language.
        let l = RequestLanguage.localizer
        return .ok(
            .init(
                body: .json(
                    .init(
                        balance: balance,
                        entries: entries.map {
                            .init(
                                id: $0.id, kind: .init(rawValue: $0.kind.rawValue) ?? .adjust, points: $0.points,
                                balanceAfter: $0.balanceAfter, reason: l(Message(stored: $0.reason)),
                                challengeId: $0.questID?.rawValue, createdAt: $0.createdAt)
                        }))))
    }

    // MARK: Helpers

    private func quest(_ id: QuestID, as me: MemberRecord) async throws -> Components.Schemas.Quest {
        try await .init(family.quests.quest(id, as: me).0, localizer: RequestLanguage.localizer)
    }

}

/// Server-sent events from the live hub, framed by the OpenAPI runtime: first a `connected`
/// event with a `retry` hint of 3 seconds for reconnecting after the stream ends, then each
/// update as a typed `LiveEvent` with its id, and a data-less `keep-alive` every 15 seconds
/// (browsers ignore events without data) from the hub's one timer (`LiveKeepAliveService`).
///
/// The body maps the hub's stream as it is read, with no task or timer of its own: at 10,000
/// open streams a task group with a timer per stream was a third of the server's memory
/// (docs/performance.md, "Live subscribers").
enum LiveStream {
    typealias Event = ServerSentEventWithJSONData<Components.Schemas.LiveEvent>
    static let keepAlive = Duration.seconds(15)

    static func body(_ updates: AsyncStream<LiveUpdate>) -> HTTPBody {
        let events = chain([Event(event: "connected", retry: 3_000)].async, updates.map(Self.event))
        return HTTPBody(events.asEncodedServerSentEventsWithJSONData(), length: .unknown, iterationBehavior: .single)
    }

    @Sendable static func event(_ update: LiveUpdate) -> Event {
        switch update {
        case .keepAlive:
            return Event(event: "keep-alive")
        case .refetch:
            return Event(event: "quests", data: .init(kind: .refetch))
        case .event(let event):
            return Event(
                event: "quests",
                data: .init(
                    id: event.id, kind: .init(rawValue: event.kind.rawValue) ?? .refetch, childId: event.childId,
                    challengeId: event.challengeId),
                id: String(event.id))
        }
    }
}

// MARK: Core values to wire types

extension QuestDraft {
    init(_ body: Components.Schemas.QuestInput) {
        self.init(
            title: body.title, description: body.description, goalType: body.goalType, target: body.target,
            period: body.period,
            dailyMinimumMinutes: body.dailyMinimumMinutes, withinMinutes: body.withinMinutes, steps: body.steps ?? [],
            learningApps: body.learningApps ?? [],
            rewardApps: (body.rewardApps ?? []).map { RewardUnlock(token: $0.appToken, minutes: $0.minutes) },
            bonusPercent: body.bonusPercent, weekdays: body.weekdays ?? Array(1...7), windowStart: body.windowStart,
            windowEnd: body.windowEnd, startDate: body.startDate, endDate: body.endDate)
    }
}

extension Components.Schemas.QuestRules {
    init(_ rules: RedemptionRules) {
        self.init(pointsPerMinute: rules.pointsPerMinute, minMinutes: rules.minMinutes, maxMinutes: rules.maxMinutes)
    }
}

extension Components.Schemas.QuestApp {
    init(_ app: QuestApp) {
        self.init(
            token: app.token, name: app.name, icon: app.icon, role: .init(rawValue: app.role.rawValue) ?? .learning,
            pointsPerMinute: app.pointsPerMinute)
    }
}

extension Components.Schemas.Grant {
    init(_ balance: GrantBalance, names: [String: String]) {
        self.init(
            id: balance.grant.id, appToken: balance.grant.token, appName: names[balance.grant.token],
            minutes: balance.grant.minutes,
            minutesLeft: balance.minutesLeft, startsAt: balance.grant.startsAt, expiresAt: balance.grant.expiresAt,
            challengeId: balance.grant.questID?.rawValue)
    }
}

extension Components.Schemas.Quest {
    /// The quest as the contract gives it; its child is the quest's assignee.
    init(_ view: QuestView, localizer l: Localizer) {
        let spec = view.quest.spec
        let draft = QuestDraft(spec)
        self.init(
            id: view.quest.id.rawValue, childId: spec.assignee.rawValue,
            status: view.quest.status == .paused ? .paused : .active,
            state: .init(rawValue: view.card.state.rawValue) ?? .inProgress, summary: l(view.card.summary),
            challenge: .init(
                title: draft.title, description: draft.description, goalType: draft.goalType, target: spec.target,
                period: draft.period, dailyMinimumMinutes: draft.dailyMinimumMinutes,
                withinMinutes: draft.withinMinutes, steps: draft.steps.isEmpty ? nil : draft.steps,
                learningApps: draft.learningApps,
                rewardApps: draft.rewardApps.map { .init(appToken: $0.token, minutes: $0.minutes) },
                bonusPercent: draft.bonusPercent, weekdays: draft.weekdays, windowStart: draft.windowStart,
                windowEnd: draft.windowEnd,
                startDate: draft.startDate, endDate: draft.endDate),
            progress: .init(
                value: view.progress.value, target: view.progress.target,
                unit: .init(rawValue: view.progress.unit.rawValue) ?? .minutes,
                percent: view.card.percent, periodStart: view.progress.period.first.iso,
                periodEnd: view.progress.period.last.iso,
                completed: view.completedThisPeriod, text: l(view.card.progressText),
                steps: view.progress.steps.map { steps in
                    zip(steps, view.card.steps).map { step, line in
                        .init(
                            day: step.day?.iso, target: step.target, minutes: step.minutes,
                            state: .init(rawValue: line.state.rawValue) ?? .upcoming)
                    }
                }),
            completions: view.completions)
    }
}

extension Components.Schemas.QuestBoard {
    init(_ board: QuestBoard, localizer l: Localizer) {
        let names = Dictionary(board.apps.map { ($0.token, $0.name) }, uniquingKeysWith: { a, _ in a })
        self.init(
            childId: board.child.id.rawValue, displayName: board.child.displayName, balance: board.balance,
            currentStreak: board.stats.currentStreak, learningMinutes: board.stats.learningMinutes,
            quests: board.quests.map { .init($0, localizer: l) },
            badges: board.badges.map {
                .init(
                    id: $0.badge.id, title: l($0.badge.title), icon: $0.badge.icon,
                    description: l($0.badge.description),
                    awardedAt: $0.awardedAt)
            },
            grants: board.grants.map { .init($0, names: names) },
            apps: board.apps.map(Components.Schemas.QuestApp.init),
            rules: .init(board.rules), blockedToday: board.blockedToday.map(Components.Schemas.BlockedUse.init))
    }
}

extension Components.Schemas.BlockedUse {
    init(_ use: BlockedUse) {
        self.init(
            appToken: use.token, at: use.at, minutes: use.minutes,
            reason: use.reason == .downtime ? .downtime : use.reason == .notToday ? .notToday : .noGrant)
    }
}
