import Foundation
public import Logging
public import QuestlineCore
public import QuestlineStore
public import ServiceLifecycle

/// Reading reminders as events ("streak at risk" in the member's evening, "streak lost" the day
/// after a streak broke), with each member's preferences and children's quiet hours. The
/// product produces the event (`reading.streak_at_risk`, `reading.streak_lost`, to webhooks);
/// pushing it to a phone is the app's job.
public struct NotificationsFeature: Sendable {
    private let store: Store
    let clock: any WallClock
    let ids: any IDGenerator
    /// The local hour from which "streak at risk" is sent (`--streak-reminder-hour`).
    public let reminderHour: Int

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        reminderHour = configuration.streakReminderHour
    }

    /// The member's settings, with the defaults filled in (`NotificationPreferences.defaults`).
    public func preferences(_ actor: MemberRecord) async throws -> NotificationPreferences {
        try await store.notifications.preferences(actor.id)
            ?? .defaults(isChild: actor.role == .child)
    }

    public func setPreferences(
        _ actor: MemberRecord, streakReminders: Bool, questUpdates: Bool, quietStart: Int?, quietEnd: Int?,
        scope: WriteScope
    ) async throws -> NotificationPreferences {
        let quiet = try LocalHours.validated(start: quietStart, end: quietEnd, field: "quietHours")
        let preferences = NotificationPreferences(
            streakReminders: streakReminders, questUpdates: questUpdates, quietHours: quiet)
        try await store.notifications.setPreferences(actor.id, preferences, scope: scope)
        return preferences
    }

    /// One pass over the members who read last month: for each whose month (in their zone) has
    /// closed, the `recap.ready` event of that month, and after December of the year, once each.
    /// Returns how many it sent.
    @discardableResult
    public func sendRecapsReady() async throws -> Int {
        let now = clock.now()
        let utcToday = LocalDay(now, in: .gmt)
        // Members who read from last month (UTC's, a day wider for the zones around it) to today,
        // and whose last month was not decided yet.
        let lastMonth = RecapPeriod.month(of: utcToday.firstOfMonth.adding(days: -1))
        let from = lastMonth.first.adding(days: -1)
        var sent = 0
        var after: MemberID?
        repeat {
            let page = try await store.notifications.recapCandidates(
                from: from, through: utcToday.adding(days: 1), sentSince: from, after: after)
            after = page.next
            for (member, timeZone) in page.members {
                guard let zone = TimeZoneID(timeZone) else { continue }
                let today = LocalDay(now, in: zone.timeZone)
                let closed = RecapPeriod.month(of: today.firstOfMonth.adding(days: -1))
                // An event only for a month the member read in; the log keeps the decision either way.
                let read = try await !store.reading.readHistory(
                    .member(member), from: closed.first, through: closed.last
                ).days.isEmpty
                var periods = [(closed, closed.first)]
                if case .month(let year, 12) = closed { periods.append((.year(year), RecapPeriod.year(year).last)) }
                for (period, day) in periods
                where try await store.notifications.sendRecapReady(
                    member, period: period.key, day: day, event: read, eventID: ids.makeUUID().uuidString.lowercased(),
                    now: now, scope: .system)
                {
                    sent += 1
                }
            }
        } while after != nil
        return sent
    }

    /// One pass over the members who read in the last days: sends each reminder that is due
    /// and was not sent for that local day. Returns how many it sent.
    @discardableResult
    public func sendDueReminders() async throws -> Int {
        let now = clock.now()
        let since = LocalDay(now, in: .gmt).adding(days: -4)
        var sent = 0
        var after: MemberID?
        repeat {
            let page = try await store.notifications.candidates(since: since, after: after)
            after = page.next
            sent += try await sendDue(page.candidates, now: now)
        } while after != nil
        return sent
    }

    /// Sends the reminders due to `candidates` now; returns how many it sent.
    private func sendDue(_ candidates: [ReminderCandidate], now: Date) async throws -> Int {
        var sent = 0
        for candidate in candidates {
            guard let zone = TimeZoneID(candidate.timeZone) else { continue }
            let preferences =
                candidate.preferences ?? .defaults(isChild: candidate.isChild)
            guard preferences.streakReminders else { continue }
            let today = LocalDay(now, in: zone.timeZone)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone.timeZone
            let hour = calendar.component(.hour, from: now)
            guard
                let due = StreakReminder.due(
                    readDays: candidate.readDays, today: today, hour: hour, reminderHour: reminderHour,
                    quiet: preferences.quietHours, repairDays: candidate.repairDays, allowances: candidate.allowances)
            else { continue }
            let (kind, streak): (OutboxEventType, Int) =
                switch due {
                case .atRisk(let streak): (.readingStreakAtRisk, streak)
                case .lost(let streak): (.readingStreakLost, streak)
                }
            if try await store.notifications.send(
                kind, to: candidate.member, day: today, streak: streak, eventID: ids.makeUUID().uuidString.lowercased(),
                now: now, scope: .system)
            {
                sent += 1
            }
        }
        return sent
    }
}

/// Runs `sendDueReminders`, `sendRecapsReady` and the league close every five minutes on
/// every instance (the log makes each reminder happen once; a league week closes once).
public struct ReminderService: Service {
    let notifications: NotificationsFeature
    let leagues: LeaguesFeature?
    let logger: Logger
    static let interval = Duration.seconds(300)

    public init(
        notifications: NotificationsFeature, leagues: LeaguesFeature? = nil,
        logger: Logger = Logger(label: "questline.reminders")
    ) {
        self.notifications = notifications
        self.leagues = leagues
        self.logger = logger
    }

    public func run() async throws {
        while Task.serviceGoesOn {
            do { try await notifications.sendDueReminders() } catch {
                logger.warning("Reminder pass failed; the next one tries again", metadata: ["error": "\(error)"])
            }
            do { try await notifications.sendRecapsReady() } catch {
                logger.warning("Recap pass failed; the next one tries again", metadata: ["error": "\(error)"])
            }
            do { try await leagues?.closeDueWeeks() } catch {
                logger.warning("League close failed; the next pass tries again", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
        }
    }
}
