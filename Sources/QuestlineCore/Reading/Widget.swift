import Foundation

/// The widget's states, with the spec's names (the QA preview prints these exactly).
public enum WidgetState: String, Codable, Sendable, CaseIterable {
    case removed, notLiveYet, completed, notEnrolled, notEnrolledWithStreak, concludedNoStreak, concludedIncomplete
    case enrolledNotStarted, freezeApplied, enrolledWithStreakNotReadToday, streakReadToday, streakNotReadToday
    /// Forgiving streaks (#39): three reads today would repair yesterday's break; a paused day;
    /// a rest day (each while today is unread).
    case repairable, paused, restDay
    /// The goal can no longer be reached by the last day (too few days are left): a reader who
    /// has not joined is offered to join and read along, told what streak is still possible
    /// (`reachableStreak`). A joined reader keeps the spec's states, with copy that says so.
    case notEnrolledOutOfReach

    /// The colour family.
    public var family: String {
        switch self {
        case .streakReadToday: return "readToday"
        case .completed: return "completed"
        case .removed, .concludedNoStreak, .concludedIncomplete: return "concluded"
        case .paused, .restDay: return "resting"
        default: return "notYetRead"
        }
    }
}

/// Where a reader stands, as far as the widget cares.
public struct ReaderStatus: Sendable, Equatable {
    public var loggedIn: Bool
    /// The local day the member joined, nil when not joined.
    public var joinDay: LocalDay?
    /// Completion as recorded (terminal), if any.
    public var completedOn: LocalDay?
    public var claimed: Bool
    /// Local days with at least one read.
    public var readDays: Set<LocalDay>
    /// Local days with at least three reads (they can repair a break).
    public var repairDays: Set<LocalDay>
    /// The member's rest days and pauses.
    public var allowances: StreakAllowances

    public init(
        loggedIn: Bool = true, joinDay: LocalDay? = nil, completedOn: LocalDay? = nil, claimed: Bool = false,
        readDays: Set<LocalDay> = [], repairDays: Set<LocalDay> = [], allowances: StreakAllowances = .none
    ) {
        self.loggedIn = loggedIn
        self.joinDay = joinDay
        self.completedOn = completedOn
        self.claimed = claimed
        self.readDays = readDays
        self.repairDays = repairDays
        self.allowances = allowances
    }
}

public struct WidgetCTA: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case join, login, search, random, claim, share }
    public let kind: Kind
    public let label: String
    /// Where it leads in the web app (the API operation is named in the contract).
    public let target: String
}

public struct WidgetColor: Codable, Sendable, Equatable {
    public let family: String
    public let background: String
    public let foreground: String
}

public struct WidgetCopy: Codable, Sendable, Equatable {
    public let title: String
    public let body: String
}

/// Everything the widget shows on one day.
public struct WidgetModel: Codable, Sendable, Equatable {
    public let campaignId: String
    public let state: WidgetState
    /// The count the widget shows (for concludedIncomplete, the best streak).
    public let streak: Int
    public let goalDays: Int
    public let freezesLeft: Int
    public let readToday: Bool
    public let copy: WidgetCopy
    public let illustration: String
    public let color: WidgetColor
    public let ctas: [WidgetCTA]
    /// Which daily variant is shown: (days since start day) mod (variants of the state).
    public let variant: Int
    public let today: LocalDay
    /// Completion as this model sees it (the caller records it the first time).
    public let completedOn: LocalDay?
    /// The perfect tier: the live streak has no freeze, pause or repair in it.
    public let perfect: Bool
    /// Whether the goal can still be reached by the last day (or has been).
    public let goalInReach: Bool
    /// The longest streak still possible by the last day (nil when the campaign lets a streak
    /// go on after its end, or after it ended).
    public let reachableStreak: Int?
}

/// The widget state machine (spec "Widget states": the first rule that holds wins) and its
/// daily content.
public enum ReadingWidget {
    /// Completion: as recorded, or as the history shows it for a member who has joined (reads
    /// before joining count towards it, but only a joined member completes).
    public static func completion(status: ReaderStatus, summary: StreakSummary) -> LocalDay? {
        status.completedOn ?? (status.joinDay != nil ? summary.completedOn : nil)
    }

    public static func state(campaign: Campaign, status: ReaderStatus, summary: StreakSummary, today: LocalDay)
        -> WidgetState
    {
        let completed = completion(status: status, summary: summary)
        if today > campaign.removeAfterDay { return .removed }
        if today < campaign.startDay { return .notLiveYet }
        if completed != nil { return .completed }
        let joined = status.joinDay != nil
        let inReach = summary.goalInReach(campaign)
        if !joined, today <= campaign.endDay {
            if !inReach { return .notEnrolledOutOfReach }
            return summary.current >= 2 ? .notEnrolledWithStreak : .notEnrolled
        }
        if today > campaign.endDay {
            if !joined || summary.readDays == 0 { return .concludedNoStreak }
            let alive = summary.readToday || summary.readYesterday || summary.yesterdayFrozen
            if !(campaign.continueActiveStreakAfterEnd && alive && summary.current > 0) { return .concludedIncomplete }
        }
        if summary.repairable != nil { return .repairable }
        if summary.current == 0 { return .enrolledNotStarted }
        if !summary.readToday, summary.pausedToday != nil { return .paused }
        if !summary.readToday, summary.restToday { return .restDay }
        if summary.yesterdayFrozen, !summary.readToday { return .freezeApplied }
        if status.joinDay == today, summary.streakStartedBeforeJoining, !summary.readToday {
            return .enrolledWithStreakNotReadToday
        }
        return summary.readToday ? .streakReadToday : .streakNotReadToday
    }

    public static func model(campaign: Campaign, status: ReaderStatus, today: LocalDay) -> WidgetModel {
        let summary = StreakSummary(campaign: campaign, status: status, today: today)
        let state = state(campaign: campaign, status: status, summary: summary, today: today)
        let shown: Int
        switch state {
        case .removed, .notLiveYet, .concludedNoStreak: shown = 0
        case .concludedIncomplete: shown = summary.best
        case .completed: shown = max(summary.best, campaign.goalDays)  // the goal reached, even after a cleared history
        default: shown = summary.current
        }
        let restart = state == .enrolledNotStarted && summary.best > 0
        // A joined reader whose goal no longer fits before the end: the state is the spec's,
        // the words say so (never "{remaining} to go" when it cannot be gone).
        let outOfReach =
            !summary.goalInReach(campaign) && today <= campaign.endDay
            && [
                .enrolledNotStarted, .enrolledWithStreakNotReadToday, .streakReadToday, .streakNotReadToday,
                .freezeApplied,
            ]
            .contains(state)
        let variants = WidgetContent.variants(for: state, restart: restart, outOfReach: outOfReach)
        let offset = campaign.startDay.days(until: today)
        let index = ((offset % variants.count) + variants.count) % variants.count
        let variant = variants[index]
        let palette = WidgetContent.palette[state.family]!
        let colors = palette[((offset % palette.count) + palette.count) % palette.count]
        let values: [String: String] = [
            // Counts and dates as sentences read them (`Wording`): "1 day", "14 December 2026".
            "streak": String(shown), "goal": String(campaign.goalDays),
            "remaining": Wording.count(max(campaign.goalDays - shown, 0), "day"),
            "freezes": String(summary.freezesLeft), "start": Wording.date(campaign.startDay),
            "end": Wording.date(campaign.endDay), "claimUntil": Wording.date(campaign.claimUntilDay),
            "daysToStart": Wording.count(max(today.days(until: campaign.startDay), 0), "day"),
            "days": shown == 1 ? "day" : "days",
            "repairStreak": String(summary.repairable?.streak ?? 0),
            "missedDay": summary.repairable.map { Wording.date($0.missed) } ?? "",
            "pausedUntil": summary.pausedToday.map { Wording.date($0.end) } ?? "",
            "possible": String(summary.reachableStreak ?? 0),
            "daysLeft": Wording.count(
                max(today.days(until: campaign.endDay) + 1 - (summary.readToday ? 1 : 0), 0), "day"),
        ]
        return WidgetModel(
            campaignId: campaign.id, state: state, streak: shown, goalDays: campaign.goalDays,
            freezesLeft: summary.freezesLeft,
            readToday: summary.readToday,
            copy: WidgetCopy(title: fill(variant.title, values), body: fill(variant.body, values)),
            illustration: variant.illustration,
            color: WidgetColor(family: state.family, background: colors.background, foreground: colors.foreground),
            ctas: ctas(state: state, campaign: campaign, status: status, today: today),
            variant: index, today: today, completedOn: completion(status: status, summary: summary),
            perfect: summary.perfect && shown > 0 && ![.removed, .notLiveYet, .concludedNoStreak].contains(state),
            goalInReach: summary.goalInReach(campaign),
            reachableStreak: today <= campaign.endDay ? summary.reachableStreak : nil)
    }

    static func ctas(state: WidgetState, campaign: Campaign, status: ReaderStatus, today: LocalDay) -> [WidgetCTA] {
        let read = [
            WidgetCTA(kind: .search, label: "Search Wikipedia", target: "/reading/search"),
            WidgetCTA(kind: .random, label: "Random article", target: "/reading/random"),
        ]
        switch state {
        case .notEnrolled, .notEnrolledWithStreak, .notEnrolledOutOfReach:
            return status.loggedIn
                ? [WidgetCTA(kind: .join, label: "Join the challenge", target: "/reading/join")]
                : [WidgetCTA(kind: .login, label: "Log in to join", target: "/login?next=/reading/join")]
        case .enrolledNotStarted, .freezeApplied, .enrolledWithStreakNotReadToday, .streakNotReadToday, .repairable,
            .paused, .restDay:
            return read
        case .completed:
            var ctas: [WidgetCTA] = []
            if !status.claimed, today <= campaign.claimUntilDay {
                ctas.append(WidgetCTA(kind: .claim, label: "Claim your prize", target: "/reading/claim"))
            }
            ctas.append(WidgetCTA(kind: .share, label: "Share", target: "/reading/share.svg"))
            return ctas
        case .streakReadToday, .removed, .notLiveYet, .concludedNoStreak, .concludedIncomplete:
            return []
        }
    }

    /// Replaces `{name}` placeholders in one pass (unknown names are kept as they are).
    static func fill(_ text: String, _ values: [String: String]) -> String {
        guard text.utf8.contains(UInt8(ascii: "{")) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            result += values[name] ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }
}

/// The daily copy, illustration and colours. Each state has several variants; the colour
/// pairs of a family all meet WCAG AA contrast (4.5:1) for their text.
public enum WidgetContent {
    public struct Variant: Sendable {
        public let title: String
        public let body: String
        public let illustration: String
    }

    static func variants(for state: WidgetState, restart: Bool, outOfReach: Bool = false) -> [Variant] {
        if outOfReach { return outOfReachVariants }
        if restart { return restartVariants }
        return table[state] ?? restartVariants
    }

    public static let illustrations = [
        "globe-wave", "globe-sleep", "globe-book", "globe-flame", "globe-trophy", "globe-ice",
        "globe-calendar", "globe-star", "globe-moon",
    ]

    static let restartVariants = [
        Variant(
            title: "Start again today",
            body: "Your streak ended, but the challenge goes on. Read an article to start a new one.",
            illustration: "globe-book"),
        Variant(
            title: "A fresh start", body: "Streaks can restart any day until {end}. Open an article today.",
            illustration: "globe-star"),
    ]

    /// A joined reader whose goal no longer fits before the end.
    static let outOfReachVariants = [
        Variant(
            title: "Keep reading along",
            body:
                "The {goal}-day goal is out of reach this time: {daysLeft} left until {end}. You can still make a {possible}-day streak.",
            illustration: "globe-book"),
        Variant(
            title: "Your streak: {streak}",
            body: "{goal} days can't fit before {end} any more, but every day you read still counts.",
            illustration: "globe-flame"),
    ]

    static let table: [WidgetState: [Variant]] = [
        .removed: [
            Variant(title: "The challenge is over", body: "Thanks for reading with us.", illustration: "globe-moon")
        ],
        .notLiveYet: [
            Variant(
                title: "A reading challenge is coming",
                body: "It starts on {start}: read every day, {goal} days in a row.", illustration: "globe-calendar"),
            Variant(
                title: "Get ready to read", body: "{daysToStart} until the challenge starts on {start}.",
                illustration: "globe-book"),
        ],
        .completed: [
            Variant(
                title: "Challenge complete!", body: "You read {goal} days in a row. Claim your prize by {claimUntil}.",
                illustration: "globe-trophy"),
            Variant(
                title: "You did it!", body: "{streak} days of reading. Your badge is in Activity.",
                illustration: "globe-star"),
            Variant(
                title: "A reading champion", body: "Goal reached: {goal} days. Well read!", illustration: "globe-trophy"
            ),
        ],
        .notEnrolled: [
            Variant(
                title: "Join the reading challenge",
                body: "Read an article every day, {goal} days in a row, before {end}.", illustration: "globe-wave"),
            Variant(
                title: "Can you read {goal} days in a row?", body: "Join the challenge and build a daily habit.",
                illustration: "globe-book"),
            Variant(
                title: "A challenge for curious minds", body: "One article a day. {goal} days. Join now.",
                illustration: "globe-star"),
        ],
        .notEnrolledWithStreak: [
            Variant(
                title: "You're on a {streak}-day streak",
                body: "It counts for the challenge. Join to keep it going to {goal}.", illustration: "globe-flame"),
            Variant(
                title: "{streak} days and counting",
                body: "Join the challenge: your streak since {start} already counts.", illustration: "globe-flame"),
        ],
        .notEnrolledOutOfReach: [
            Variant(
                title: "Read along this time",
                body:
                    "The {goal}-day goal is out of reach: {daysLeft} left until {end}. Join anyway and make a {possible}-day streak.",
                illustration: "globe-book"),
            Variant(
                title: "Join to read along",
                body:
                    "There isn't time for {goal} days in a row before {end}, but a {possible}-day streak is still yours to make.",
                illustration: "globe-wave"),
        ],
        .concludedNoStreak: [
            Variant(
                title: "The challenge has ended", body: "Keep reading: there will be other challenges.",
                illustration: "globe-moon"),
            Variant(title: "That's a wrap", body: "The reading challenge ended on {end}.", illustration: "globe-sleep"),
        ],
        .concludedIncomplete: [
            Variant(
                title: "The challenge has ended",
                body: "Your best streak was {streak} {days}. That's something to be proud of.",
                illustration: "globe-star"),
            Variant(
                title: "Well read", body: "You reached {streak} {days} in a row. See you at the next challenge.",
                illustration: "globe-book"),
        ],
        .enrolledNotStarted: [
            Variant(
                title: "You're in! Start reading", body: "Open an article today to start your streak.",
                illustration: "globe-book"),
            Variant(
                title: "Day one starts with one article",
                body: "Read anything you like to begin your {goal}-day streak.", illustration: "globe-wave"),
        ],
        .freezeApplied: [
            Variant(
                title: "Streak saved: {streak} {days}",
                body: "You missed yesterday, so a freeze kept your streak. {freezes} left. Read today to keep going.",
                illustration: "globe-ice"),
            Variant(
                title: "A freeze saved your streak",
                body: "Still {streak} {days}. Freezes left: {freezes}. Don't miss today.", illustration: "globe-ice"),
        ],
        .enrolledWithStreakNotReadToday: [
            Variant(
                title: "Keep your {streak}-day streak rolling",
                body: "You've joined with a streak already going. Read today to add to it.", illustration: "globe-flame"
            ),
            Variant(
                title: "You're on a roll", body: "{streak} days so far. One article today keeps it alive.",
                illustration: "globe-flame"),
        ],
        .streakReadToday: [
            Variant(
                title: "{streak} {days} in a row", body: "Today's read is done. {remaining} to go.",
                illustration: "globe-flame"),
            Variant(
                title: "Done for today", body: "Streak: {streak} of {goal}. See you tomorrow.",
                illustration: "globe-star"),
            Variant(
                title: "Nice reading!", body: "{streak} {days} down, {remaining} to go.", illustration: "globe-book"),
        ],
        .repairable: [
            Variant(
                title: "Read 3 today to save your {repairStreak}-day streak",
                body: "You missed {missedDay}. Three articles today earn it back.", illustration: "globe-ice"),
            Variant(
                title: "Save your {repairStreak}-day streak",
                body: "Read three articles today and {missedDay} is repaired. One repair every 30 days.",
                illustration: "globe-book"),
        ],
        .paused: [
            Variant(
                title: "Paused until {pausedUntil}",
                body: "Your {streak}-day streak is safe. Reading still counts if you want to.",
                illustration: "globe-sleep"),
            Variant(
                title: "Your streak is on pause", body: "{streak} {days}, kept until {pausedUntil}.",
                illustration: "globe-moon"),
        ],
        .restDay: [
            Variant(
                title: "A rest day", body: "Your {streak}-day streak waits for tomorrow. Reading today still counts.",
                illustration: "globe-sleep"),
            Variant(
                title: "Rest well", body: "Rest days keep your streak: {streak} {days} so far.",
                illustration: "globe-moon"),
        ],
        .streakNotReadToday: [
            Variant(
                title: "{streak}-day streak", body: "Read an article today to keep it going.",
                illustration: "globe-flame"),
            Variant(
                title: "Don't break the chain", body: "{streak} {days} so far. Today's article is waiting.",
                illustration: "globe-book"),
            Variant(
                title: "Your streak: {streak}", body: "{remaining} to go. Read something today.",
                illustration: "globe-wave"),
        ],
    ]

    /// Colour pairs (background, foreground) per family.
    public static let palette: [String: [(background: String, foreground: String)]] = [
        "readToday": [("#0b6e4f", "#ffffff"), ("#1f5fbf", "#ffffff"), ("#5b2a86", "#ffffff")],
        "resting": [("#e6eef6", "#17324d"), ("#eaf2e6", "#1f3a17")],
        "notYetRead": [("#fff4d6", "#4a3200"), ("#e7f0ff", "#0d2c5a"), ("#fde8e1", "#5a1d0b")],
        "completed": [("#3a4ccf", "#ffffff"), ("#8a4b00", "#ffffff"), ("#0b6e4f", "#ffffff")],
        "concluded": [("#e9eaee", "#23262d"), ("#eef3ee", "#1f3323"), ("#f3eef5", "#33233d")],
    ]
}
