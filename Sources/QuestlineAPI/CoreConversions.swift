import Foundation
public import QuestlineCore

// The contract's types from the core's and back: shared by the server, which answers with
// them, and QuestlineKit, which turns them back into the core's types to apply its rules
// offline. One conversion each, so the two sides cannot read a field differently.

extension Components.Schemas.Campaign {
    public init(_ campaign: Campaign) {
        self.init(
            id: campaign.id, title: campaign.title, startDay: campaign.startDay.iso, endDay: campaign.endDay.iso,
            goalDays: campaign.goalDays,
            claimUntilDay: campaign.claimUntilDay.iso, removeAfterDay: campaign.removeAfterDay.iso,
            continueActiveStreakAfterEnd: campaign.continueActiveStreakAfterEnd, freezes: campaign.freezes,
            freezeEveryDays: campaign.freezeEveryDays, maxFreezesHeld: campaign.maxFreezesHeld)
    }
}

extension Campaign {
    /// The campaign the contract describes (absent settings take their defaults); a day that is
    /// not a date names its field.
    public init(_ body: Components.Schemas.Campaign) throws(DomainError) {
        func day(_ raw: String, _ field: String) throws(DomainError) -> LocalDay {
            try DateWindow.day(raw, field: field)
        }
        self.init(
            id: body.id, startDay: try day(body.startDay, "startDay"), endDay: try day(body.endDay, "endDay"),
            goalDays: body.goalDays, claimUntilDay: try day(body.claimUntilDay, "claimUntilDay"),
            removeAfterDay: try day(body.removeAfterDay, "removeAfterDay"),
            continueActiveStreakAfterEnd: body.continueActiveStreakAfterEnd ?? false, freezes: body.freezes ?? 0,
            freezeEveryDays: body.freezeEveryDays ?? 0, maxFreezesHeld: body.maxFreezesHeld ?? 2, title: body.title)
    }
}

extension Components.Schemas.ShieldRules {
    public init(_ rules: ShieldRules) {
        self.init(
            rewardDays: rules.rewardDays.sorted(), downtime: rules.downtime.map { .init(start: $0.start, end: $0.end) })
    }
}

extension ShieldRules {
    /// The rules the contract describes, checked as a guardian's are.
    public init(_ body: Components.Schemas.ShieldRules) throws(DomainError) {
        self = try ShieldRules.validated(
            rewardDays: body.rewardDays, downtimeStart: body.downtime?.start, downtimeEnd: body.downtime?.end)
    }
}

extension Components.Schemas.ShieldPolicy {
    public init(_ policy: ShieldPolicy, computedAt: Date) {
        self.init(
            apps: policy.apps.map {
                .init(
                    appToken: $0.token, blocked: $0.blocked, reason: .init(rawValue: $0.reason.rawValue) ?? .noGrant,
                    unlockedUntil: $0.unlockedUntil, minutesLeft: $0.minutesLeft)
            }, nextChange: policy.nextChange, computedAt: computedAt)
    }
}

extension Components.Schemas.StreakSettings {
    /// The member's rest days and pauses as of their local `today`; `earliestChange`: the first
    /// day a new pause or rest-day schedule may reach.
    public init(_ allowances: StreakAllowances, today: LocalDay, earliestChange: LocalDay? = nil) {
        let waiting = allowances.restDays.last { $0.from > today }
        self.init(
            restDays: allowances.restWeekdays(on: today),
            nextRestDays: waiting.map { .init(weekdays: $0.weekdays, from: $0.from.iso) },
            schedule: allowances.restDays.map { .init(weekdays: $0.weekdays, from: $0.from.iso) },
            earliestChange: earliestChange?.iso,
            pauses: allowances.pauses.map { .init(start: $0.start.iso, end: $0.end.iso) },
            pausedDaysLeft: max(StreakAllowances.maxPauseDaysPerYear - allowances.pausedDays(inYear: today.year), 0))
    }
}

extension StreakAllowances {
    /// The allowances the contract describes (a device rebuilding them offline); a day that is
    /// not a date names its field.
    public init(_ body: Components.Schemas.StreakSettings) throws(DomainError) {
        var schedules: [RestDays] = []
        for entry in body.schedule {
            schedules.append(
                RestDays(weekdays: entry.weekdays, from: try DateWindow.day(entry.from, field: "schedule")))
        }
        var pauses: [Pause] = []
        for pause in body.pauses {
            pauses.append(
                Pause(
                    start: try DateWindow.day(pause.start, field: "pauses"),
                    end: try DateWindow.day(pause.end, field: "pauses")))
        }
        self.init(restDays: schedules, pauses: pauses)
    }
}
