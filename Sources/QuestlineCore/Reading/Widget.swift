import Foundation

/// The widget's states, with the spec's names (the QA preview prints these exactly).
public enum WidgetState: String, Codable, Sendable, CaseIterable {
    case removed, notLiveYet, completed, notEnrolled, notEnrolledWithStreak, concludedNoStreak, concludedIncomplete
    case enrolledNotStarted, freezeApplied, enrolledWithStreakNotReadToday, streakReadToday, streakNotReadToday
    /// Forgiving streaks: three reads today would repair yesterday's break; a paused day;
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
    /// The button's words (`reading.widget.cta.<kind>`).
    public let label: Message
    /// Where it leads in the web app (the API operation is named in the contract).
    public let target: String

    init(_ kind: Kind, target: String) {
        self.kind = kind
        self.label = Message("reading.widget.cta.\(kind.rawValue)")
        self.target = target
    }
}

public struct WidgetColor: Codable, Sendable, Equatable {
    public let family: String
    public let background: String
    public let foreground: String
}

/// The widget's words of the day, as messages (`reading.widget.<state>.<n>.title` and `.body`):
/// the server renders them in the reader's language, a device's widget in its own.
public struct WidgetCopy: Codable, Sendable, Equatable {
    public let title: Message
    public let body: Message
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
        let daysLeft = max(today.days(until: campaign.endDay) + 1 - (summary.readToday ? 1 : 0), 0)
        var values: [String: Message.Argument] = [
            "streak": .number(shown), "goal": .number(campaign.goalDays),
            "remaining": .message(.count(max(campaign.goalDays - shown, 0), .days)),
            "freezes": .number(summary.freezesLeft), "start": .day(campaign.startDay, .long),
            "end": .day(campaign.endDay, .long), "claimUntil": .day(campaign.claimUntilDay, .long),
            "daysToStart": .message(.count(max(today.days(until: campaign.startDay), 0), .days)),
            "possible": .number(summary.reachableStreak ?? 0), "daysLeft": .message(.count(daysLeft, .days)),
        ]
        if let repair = summary.repairable {
            values["repairStreak"] = .number(repair.streak)
            values["missedDay"] = .day(repair.missed, .long)
            values["reads"] = .number(StreakAllowances.repairReads)
            values["articles"] = .message(.count(StreakAllowances.repairReads, .articles))
            values["window"] = .message(.count(StreakAllowances.repairEveryDays, .days))
        }
        if let pause = summary.pausedToday { values["pausedUntil"] = .day(pause.end, .long) }
        return WidgetModel(
            campaignId: campaign.id, state: state, streak: shown, goalDays: campaign.goalDays,
            freezesLeft: summary.freezesLeft,
            readToday: summary.readToday,
            copy: variant.copy(values),
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
            WidgetCTA(.search, target: "/reading/search"),
            WidgetCTA(.random, target: "/reading/random"),
        ]
        switch state {
        case .notEnrolled, .notEnrolledWithStreak, .notEnrolledOutOfReach:
            return status.loggedIn
                ? [WidgetCTA(.join, target: "/reading/join")]
                : [WidgetCTA(.login, target: "/login?next=/reading/join")]
        case .enrolledNotStarted, .freezeApplied, .enrolledWithStreakNotReadToday, .streakNotReadToday, .repairable,
            .paused, .restDay:
            return read
        case .completed:
            var ctas: [WidgetCTA] = []
            if !status.claimed, today <= campaign.claimUntilDay {
                ctas.append(WidgetCTA(.claim, target: "/reading/claim"))
            }
            ctas.append(WidgetCTA(.share, target: "/reading/share.svg"))
            return ctas
        case .streakReadToday, .removed, .notLiveYet, .concludedNoStreak, .concludedIncomplete:
            return []
        }
    }
}

/// The daily copy, illustration and colours. Each state has several variants; the colour
/// pairs of a family all meet WCAG AA contrast (4.5:1) for their text.
public enum WidgetContent {
    /// One variant of a state's words: its messages are `reading.widget.<name>.title` and
    /// `.body` in the catalog (`name` is `<state>.<n>`, `restart.<n>` or `outOfReach.<n>`). A
    /// message that says a number with a noun ("{streak} days in a row", "the {goal}-day goal")
    /// takes that number as its `count`, so that each language picks its plural form for it.
    public struct Variant: Sendable {
        public let name: String
        public let illustration: String
        /// The argument that is each message's `count` (nil: no number agrees with a word).
        let titleCount: String?
        let bodyCount: String?

        init(_ name: String, _ illustration: String, title: String? = nil, body: String? = nil) {
            self.name = name
            self.illustration = illustration
            titleCount = title
            bodyCount = body
        }

        func copy(_ values: [String: Message.Argument]) -> WidgetCopy {
            func message(_ part: String, _ count: String?) -> Message {
                var arguments = values
                if let count { arguments["count"] = values[count] }
                return Message("reading.widget.\(name).\(part)", arguments)
            }
            return WidgetCopy(title: message("title", titleCount), body: message("body", bodyCount))
        }
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

    static let restartVariants = [Variant("restart.1", "globe-book"), Variant("restart.2", "globe-star")]

    /// A joined reader whose goal no longer fits before the end.
    static let outOfReachVariants = [
        Variant("outOfReach.1", "globe-book", body: "possible"),
        Variant("outOfReach.2", "globe-flame", title: "streak", body: "goal"),
    ]

    /// Every state's variants, in the order the days show them.
    static let table: [WidgetState: [Variant]] = [
        .removed: [Variant("removed.1", "globe-moon")],
        .notLiveYet: [Variant("notLiveYet.1", "globe-calendar", body: "goal"), Variant("notLiveYet.2", "globe-book")],
        .completed: [
            Variant("completed.1", "globe-trophy", body: "goal"), Variant("completed.2", "globe-star", body: "streak"),
            Variant("completed.3", "globe-trophy", body: "goal"),
        ],
        .notEnrolled: [
            Variant("notEnrolled.1", "globe-wave", body: "goal"), Variant("notEnrolled.2", "globe-book", title: "goal"),
            Variant("notEnrolled.3", "globe-star", body: "goal"),
        ],
        .notEnrolledWithStreak: [
            Variant("notEnrolledWithStreak.1", "globe-flame", title: "streak", body: "goal"),
            Variant("notEnrolledWithStreak.2", "globe-flame", title: "streak"),
        ],
        .notEnrolledOutOfReach: [
            Variant("notEnrolledOutOfReach.1", "globe-book", body: "possible"),
            Variant("notEnrolledOutOfReach.2", "globe-wave", body: "possible"),
        ],
        .concludedNoStreak: [
            Variant("concludedNoStreak.1", "globe-moon"), Variant("concludedNoStreak.2", "globe-sleep"),
        ],
        .concludedIncomplete: [
            Variant("concludedIncomplete.1", "globe-star", body: "streak"),
            Variant("concludedIncomplete.2", "globe-book", body: "streak"),
        ],
        .enrolledNotStarted: [
            Variant("enrolledNotStarted.1", "globe-book"), Variant("enrolledNotStarted.2", "globe-wave", body: "goal"),
        ],
        .freezeApplied: [
            Variant("freezeApplied.1", "globe-ice", title: "streak", body: "freezes"),
            Variant("freezeApplied.2", "globe-ice", body: "streak"),
        ],
        .enrolledWithStreakNotReadToday: [
            Variant("enrolledWithStreakNotReadToday.1", "globe-flame", title: "streak"),
            Variant("enrolledWithStreakNotReadToday.2", "globe-flame", body: "streak"),
        ],
        .streakReadToday: [
            Variant("streakReadToday.1", "globe-flame", title: "streak"),
            Variant("streakReadToday.2", "globe-star", body: "goal"),
            Variant("streakReadToday.3", "globe-book", body: "streak"),
        ],
        .repairable: [
            Variant("repairable.1", "globe-ice", title: "repairStreak"),
            Variant("repairable.2", "globe-book", title: "repairStreak"),
        ],
        .paused: [
            Variant("paused.1", "globe-sleep", body: "streak"), Variant("paused.2", "globe-moon", body: "streak"),
        ],
        .restDay: [
            Variant("restDay.1", "globe-sleep", body: "streak"), Variant("restDay.2", "globe-moon", body: "streak"),
        ],
        .streakNotReadToday: [
            Variant("streakNotReadToday.1", "globe-flame", title: "streak"),
            Variant("streakNotReadToday.2", "globe-book", body: "streak"),
            Variant("streakNotReadToday.3", "globe-wave", title: "streak"),
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
