import Foundation

/// Which reading reminder is due for a member now, from their read days, their local day and
/// hour: "streak at risk" from the reminder hour on, when they have not read today and read
/// yesterday; "streak lost" on the first day after a day without a read that ended a streak.
/// Rest days, pauses and repairs count as `StreakWalk` says.
/// Pure: the server runs it for members who read lately; an app can run it on cached days.
public enum StreakReminder: Equatable, Sendable {
    case atRisk(streak: Int)
    case lost(streak: Int)

    /// - Parameters:
    ///   - repairDays: days with at least three reads; `allowances`: rest days and pauses. No
    ///     reminder is due on a rest day or a paused day, and a streak that rest, a pause or a
    ///     repair kept is at risk like any other.
    public static func due(
        readDays: Set<LocalDay>, today: LocalDay, hour: Int, reminderHour: Int, quiet: LocalHours?,
        repairDays: Set<LocalDay> = [], allowances: StreakAllowances = .none
    ) -> StreakReminder? {
        if let quiet, quiet.contains(hour: hour) { return nil }
        if allowances.excuses(today) { return nil }
        let walk = StreakWalk(
            from: readDays.min() ?? today, today: today, readDays: readDays, repairDays: repairDays,
            allowances: allowances)
        if !readDays.contains(today), walk.current > 0, hour >= reminderHour {
            return .atRisk(streak: walk.current)
        }
        if let broken = walk.lastBreak, broken.missed == today.adding(days: -1) {
            return .lost(streak: broken.streak)
        }
        return nil
    }
}
