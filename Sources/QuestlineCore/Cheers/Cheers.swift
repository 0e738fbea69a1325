/// A kid-safe cheer one household member sends another: a preset, never free text.
public enum Cheer: String, CaseIterable, Codable, Sendable {
    case greatJob, keepGoing, proud, readingStar, highFive, thanks

    /// The cheer's words, in the reader's language.
    public var text: Message {
        switch self {
        case .greatJob: Message("quests.cheer.greatJob")
        case .keepGoing: Message("quests.cheer.keepGoing")
        case .proud: Message("quests.cheer.proud")
        case .readingStar: Message("quests.cheer.readingStar")
        case .highFive: Message("quests.cheer.highFive")
        case .thanks: Message("quests.cheer.thanks")
        }
    }

    public var emoji: String {
        switch self {
        case .greatJob: "👏"
        case .keepGoing: "💪"
        case .proud: "🌟"
        case .readingStar: "📚"
        case .highFive: "🙌"
        case .thanks: "💛"
        }
    }
}

/// Who may cheer whom, how often: the one rule the API and the pages ask.
public enum CheerRules {
    /// Cheers a member may send in one of their local days.
    public static let maxPerDay = 5

    /// The cheer `raw` from `sender` to `recipient` (both of one household, checked by the
    /// caller), naming the field at fault: a preset, not to oneself, while the household has
    /// cheers on, within the day's allowance.
    public static func check(
        _ raw: String, from sender: MemberID, to recipient: MemberID, enabled: Bool, sentToday: Int,
        secondsToTomorrow: Int
    ) throws(DomainError) -> Cheer {
        guard let cheer = Cheer(rawValue: raw) else {
            throw .invalid(
                field: "cheer",
                Message(
                    "quests.error.chooseOneOf",
                    ["choices": .text(Cheer.allCases.map(\.rawValue).joined(separator: ", "))]))
        }
        guard sender != recipient else { throw .invalid(field: "to", Message("quests.error.cheerSelf")) }
        guard enabled else {
            throw .conflict(field: nil, message: Message("quests.error.cheersOff"))
        }
        guard sentToday < maxPerDay else {
            throw .tooManyRequests(
                retryAfter: max(secondsToTomorrow, 1),
                Message("quests.error.cheersPerDay", ["count": .number(maxPerDay)]))
        }
        return cheer
    }
}
