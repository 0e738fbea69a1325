public import Foundation

/// A time-boxed reading challenge. Configuration, never compiled in: loaded from a file or
/// the API. Field names are the spec's (and the QA preview's) wire names.
public struct Campaign: Codable, Sendable, Equatable {
    public var id: String
    public var startDay: LocalDay
    public var endDay: LocalDay
    public var goalDays: Int
    public var claimUntilDay: LocalDay
    public var removeAfterDay: LocalDay
    public var continueActiveStreakAfterEnd: Bool
    public var freezes: Int
    /// Freezes earned by reading: one each time the streak reaches a multiple of this many days
    /// read in a row (0: none are earned), while the member holds fewer than `maxFreezesHeld`.
    public var freezeEveryDays: Int
    /// Earning stops while the member holds this many freezes.
    public var maxFreezesHeld: Int
    /// Shown to readers, e.g. "Read every day in May".
    public var title: String?

    public init(
        id: String, startDay: LocalDay, endDay: LocalDay, goalDays: Int, claimUntilDay: LocalDay,
        removeAfterDay: LocalDay,
        continueActiveStreakAfterEnd: Bool = false, freezes: Int = 0, freezeEveryDays: Int = 0,
        maxFreezesHeld: Int = 2, title: String? = nil
    ) {
        self.id = id
        self.startDay = startDay
        self.endDay = endDay
        self.goalDays = goalDays
        self.claimUntilDay = claimUntilDay
        self.removeAfterDay = removeAfterDay
        self.continueActiveStreakAfterEnd = continueActiveStreakAfterEnd
        self.freezes = freezes
        self.freezeEveryDays = freezeEveryDays
        self.maxFreezesHeld = maxFreezesHeld
        self.title = title
    }

    enum CodingKeys: String, CodingKey {
        case id, startDay, endDay, goalDays, claimUntilDay, removeAfterDay, continueActiveStreakAfterEnd, freezes, title
        case freezeEveryDays, maxFreezesHeld
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        startDay = try c.decode(LocalDay.self, forKey: .startDay)
        endDay = try c.decode(LocalDay.self, forKey: .endDay)
        goalDays = try c.decode(Int.self, forKey: .goalDays)
        claimUntilDay = try c.decode(LocalDay.self, forKey: .claimUntilDay)
        removeAfterDay = try c.decode(LocalDay.self, forKey: .removeAfterDay)
        continueActiveStreakAfterEnd = try c.decodeIfPresent(Bool.self, forKey: .continueActiveStreakAfterEnd) ?? false
        freezes = try c.decodeIfPresent(Int.self, forKey: .freezes) ?? 0
        freezeEveryDays = try c.decodeIfPresent(Int.self, forKey: .freezeEveryDays) ?? 0
        maxFreezesHeld = try c.decodeIfPresent(Int.self, forKey: .maxFreezesHeld) ?? 2
        title = try c.decodeIfPresent(String.self, forKey: .title)
    }

    /// Checks the dates and numbers make a campaign; each problem names its field.
    public func validate() throws(DomainError) {
        var issues: [FieldIssue] = []
        if id.isEmpty || id.count > 64
            || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        {
            issues.append(FieldIssue(field: "id", message: Message("reading.error.campaignId", ["max": .number(64)])))
        }
        if endDay < startDay {
            issues.append(FieldIssue(field: "endDay", message: Message("reading.error.endBeforeStart")))
        }
        if goalDays < 1 || goalDays > startDay.days(until: endDay) + 1 {
            issues.append(
                FieldIssue(
                    field: "goalDays",
                    message: Message(
                        "reading.error.goalDays", ["count": .number(startDay.days(until: endDay) + 1)]))
            )
        }
        if claimUntilDay < endDay {
            issues.append(
                FieldIssue(field: "claimUntilDay", message: Message("reading.error.claimBeforeEnd")))
        }
        if removeAfterDay < claimUntilDay {
            issues.append(FieldIssue(field: "removeAfterDay", message: Message("reading.error.removeBeforeClaim")))
        }
        if freezes < 0 || freezes > 10 {
            issues.append(FieldIssue(field: "freezes", message: Message("reading.error.freezes", ["max": .number(10)])))
        }
        if freezeEveryDays != 0, !(2...60).contains(freezeEveryDays) {
            issues.append(
                FieldIssue(
                    field: "freezeEveryDays",
                    message: Message("reading.error.freezeEveryDays", ["min": .number(2), "max": .number(60)])))
        }
        if !(1...10).contains(maxFreezesHeld) {
            issues.append(
                FieldIssue(
                    field: "maxFreezesHeld", message: Message("reading.error.maxFreezesHeld", ["max": .number(10)])))
        }
        if !issues.isEmpty { throw .invalid(issues) }
    }

    /// Decodes and validates a campaign file.
    public static func decode(_ data: Data) throws(DomainError) -> Campaign {
        let campaign: Campaign
        do { campaign = try JSONDecoder().decode(Campaign.self, from: data) } catch let error as DecodingError {
            throw .invalid(field: "campaign", OnThisDayFeed.describe(error))
        } catch {
            throw .invalid(field: "campaign", Message("reading.error.campaignUnreadable"))
        }
        try campaign.validate()
        return campaign
    }

    /// The campaign to show today: one whose window (start to removal) contains today, the
    /// latest-starting if several; else the next one to start; else the last one that ended.
    public static func current(_ campaigns: [Campaign], today: LocalDay) -> Campaign? {
        let live = campaigns.filter { $0.startDay <= today && today <= $0.removeAfterDay }
        if let latest = live.max(by: { ($0.startDay, $0.id) < ($1.startDay, $1.id) }) { return latest }
        if let next = campaigns.filter({ $0.startDay > today }).min(by: { $0.startDay < $1.startDay }) { return next }
        return campaigns.max { $0.removeAfterDay < $1.removeAfterDay }
    }

    /// A demo campaign around `today` (started 10 days ago, 30 days long, goal 25, 2 freezes),
    /// so a newcomer sees live states.
    public static func demo(today: LocalDay) -> Campaign {
        Campaign(
            id: "demo", startDay: today.adding(days: -10), endDay: today.adding(days: 29), goalDays: 25,
            claimUntilDay: today.adding(days: 60), removeAfterDay: today.adding(days: 60), freezes: 2,
            freezeEveryDays: 7,
            title: "Demo challenge: read 25 days in a row")
    }
}
