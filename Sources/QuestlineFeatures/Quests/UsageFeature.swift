import Foundation
public import QuestlineCore
import QuestlineStore

/// What one usage upload did.
public struct UsageOutcome: Sendable {
    public let accepted: Int
    public let duplicates: Int
    public let pointsEarned: Int
    public let completed: [(quest: QuestID, periodKey: String, bonus: Int)]
    public let badges: [String]
    /// Use in these reports of a reward app while it was shielded (`RewardUse`).
    public let blocked: [BlockedUse]
}

/// Usage: what the child's device reports, settled into progress, completions, points and
/// unlocks (`Settlement`) in the report's transaction; the weekly report of it.
public struct UsageFeature: FamilyPart {
    let parts: FamilyFeatures.Parts
    /// Reports older than this are refused: progress periods that long ago are settled.
    public static let maxReports = 500

    init(_ parts: FamilyFeatures.Parts) { self.parts = parts }

    /// A session of one app that ends now, as a person reports it on the child's device page
    /// (`UsageReports.session`): the child's zone, whoever reports it, since the device is the
    /// child's.
    public func reportSession(
        _ childID: MemberID, appToken: String, minutes: Int?, as actor: MemberRecord, scope: WriteScope
    )
        async throws -> UsageOutcome
    {
        let child = try await access.child(childID, as: actor)
        let report = try UsageReports.session(
            id: UUID.random().uuidString.lowercased(), appToken: appToken, minutes: minutes, endingAt: clock.now(),
            timeZone: child.timeZone)
        return try await reportUsage(childID, reports: [report], as: actor, scope: scope)
    }

    /// Records usage reports and settles what they change. Reports are validated first (all
    /// or nothing); a report id seen before is a duplicate and changes nothing.
    public func reportUsage(_ childID: MemberID, reports: [UsageReportInput], as actor: MemberRecord, scope: WriteScope)
        async throws
        -> UsageOutcome
    {
        let child = try await access.child(childID, as: actor)
        try AccessPolicy.check(actor.actor, .reportUsage(child.scope))
        guard !reports.isEmpty, reports.count <= Self.maxReports else {
            throw DomainError.invalid(
                field: "reports",
                Message("quests.error.reportsCount", ["min": .number(1), "max": .number(Self.maxReports)]))
        }
        let now = clock.now()
        // Checked against the catalogue inside the write, which settlement then reuses: one
        // read of it, not two (each statement is a round trip; docs/performance.md).
        return try await store.quests.write(scope) { q -> UsageOutcome in
            let catalog = try await q.apps(child.id)
            let records = try UsageReports.validate(reports, catalog: catalog, now: now)
            let (new, conflicting) = try await q.insertReports(child.id, records, now: now)
            if let id = conflicting.first, let index = reports.firstIndex(where: { $0.id == id }) {
                throw DomainError.conflict(
                    field: "reports[\(index)].id", message: Message("quests.error.reportConflict", ["id": .text(id)]))
            }
            guard !new.isEmpty else {
                return UsageOutcome(
                    accepted: 0, duplicates: reports.count, pointsEarned: 0, completed: [], badges: [], blocked: [])
            }
            let days = Set(records.filter { new.contains($0.id) }.flatMap(\.record.localDays))
            let plan = try await settlement.settle(q, child: child, touching: days, now: now, catalog: catalog)
            try await q.announce(.progress, child: child, now: now)
            return UsageOutcome(
                accepted: new.count, duplicates: reports.count - new.count, pointsEarned: plan.earned,
                completed: plan.completions.map { ($0.quest, $0.periodKey, $0.bonus) }, badges: plan.badges,
                blocked: try await blockedUse(
                    q, child: child, of: records.filter { new.contains($0.id) }.map(\.record), catalog: catalog,
                    now: now))
        }
    }

    /// The blocked use among `reports` (new reports of reward apps only: learning apps are never
    /// blocked; nothing is read when there are none).
    private func blockedUse(
        _ q: QuestQueries, child: MemberRecord, of reports: [UsageRecord], catalog: [QuestApp], now: Date
    ) async throws -> [BlockedUse] {
        let rewardApps = Set(catalog.filter { $0.role == .reward }.map(\.token))
        let rewardReports = reports.filter { rewardApps.contains($0.token) }
        guard let since = rewardReports.map(\.start).min() else { return [] }
        let account = try await q.rewardAccount(child: child, since: since, now: now, needsBlocked: true, apps: catalog)
        let ends = Set(rewardReports.map { "\($0.token)|\($0.end.timeIntervalSince1970)" })
        return account.blocked.filter { ends.contains("\($0.token)|\($0.at.timeIntervalSince1970)") }
    }

    /// Settles a child's current periods again after its time zone was set: a period that the
    /// new zone's today makes complete pays now, not at the next upload.
    func childZoneChanged(_ child: MemberRecord, scope: WriteScope) async throws {
        guard child.role == .child, child.householdID != nil else { return }
        let now = clock.now()
        try await store.quests.write(scope) { q in
            let plan = try await settlement.settle(q, child: child, touching: [], now: now)
            if !plan.writesNothing { try await q.announce(.progress, child: child, now: now) }
        }
    }

    // MARK: Weekly report

    /// The week ending on `last` (the child's today when nil), for the household.
    /// The child's week (Monday to Sunday) holding `day` (today when nil; never a week to come).
    public func weeklyReport(_ childID: MemberID, as actor: MemberRecord, week day: LocalDay?) async throws
        -> WeeklyReport
    {
        let child = try await access.child(childID, as: actor)
        let zone = child.zone
        let today = LocalDay(clock.now(), in: zone)
        let first = min(day ?? today, today).monday
        let last = first.adding(days: 6)
        let rows = try await store.quests.read { q in
            try await q.reportRows(
                child.id, first: first, last: last, from: first.start(in: zone),
                to: last.adding(days: 1).start(in: zone))
        }
        return WeeklyReport(
            week: first, zone: zone, learning: rows.learning, completions: rows.completions, ledger: rows.ledger)
    }
}
