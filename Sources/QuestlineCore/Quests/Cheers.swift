/// A kid-safe cheer one household member sends another: a preset, never free text (#39).
public enum Cheer: String, CaseIterable, Codable, Sendable {
    case greatJob, keepGoing, proud, readingStar, highFive, thanks

    public var text: String {
        switch self {
        case .greatJob: "Great job!"
        case .keepGoing: "Keep going!"
        case .proud: "So proud of you!"
        case .readingStar: "Reading star!"
        case .highFive: "High five!"
        case .thanks: "Thank you!"
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
                field: "cheer", "Choose one of: \(Cheer.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard sender != recipient else { throw .invalid(field: "to", "Cheer someone else in your household.") }
        guard enabled else {
            throw .conflict(field: nil, message: "Cheers are turned off in this household.")
        }
        guard sentToday < maxPerDay else {
            throw .tooManyRequests(
                retryAfter: max(secondsToTomorrow, 1), "You have sent \(maxPerDay) cheers today: send more tomorrow.")
        }
        return cheer
    }
}
