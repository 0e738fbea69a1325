import Foundation

/// Which reading reminder is due for a member now, from their read days, their local day and
/// hour: "streak at risk" from the reminder hour on, when they have not read today and read
/// yesterday; "streak lost" on the first day after a day without a read that ended a streak.
/// Pure: the server runs it for members who read lately; an app can run it on cached days.
public enum StreakReminder: Equatable, Sendable {
    case atRisk(streak: Int)
    case lost(streak: Int)

    public static func due(
        readDays: Set<LocalDay>, today: LocalDay, hour: Int, reminderHour: Int, quiet: LocalHours?
    ) -> StreakReminder? {
        if let quiet, quiet.contains(hour: hour) { return nil }
        let yesterday = today.adding(days: -1)
        if !readDays.contains(today), readDays.contains(yesterday), hour >= reminderHour {
            return .atRisk(streak: run(endingOn: yesterday, in: readDays))
        }
        let dayBefore = today.adding(days: -2)
        if !readDays.contains(yesterday), readDays.contains(dayBefore) {
            return .lost(streak: run(endingOn: dayBefore, in: readDays))
        }
        return nil
    }

    /// The number of consecutive read days ending on `day`.
    static func run(endingOn day: LocalDay, in readDays: Set<LocalDay>) -> Int {
        var count = 0
        var current = day
        while readDays.contains(current), count < 3_660 {
            count += 1
            current = current.adding(days: -1)
        }
        return count
    }
}
