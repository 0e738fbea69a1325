public import Foundation

/// A child's request for more time with a reward app, and the guardian's answer.
public struct TimeRequest: Sendable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case pending, approved, denied
    }

    public let id: String
    public let child: MemberID
    public let appToken: String
    public let minutes: Int
    public let note: String
    public let state: State
    public let createdAt: Date
    public let decidedAt: Date?

    public init(
        id: String, child: MemberID, appToken: String, minutes: Int, note: String, state: State, createdAt: Date,
        decidedAt: Date?
    ) {
        self.id = id
        self.child = child
        self.appToken = appToken
        self.minutes = minutes
        self.note = note
        self.state = state
        self.createdAt = createdAt
        self.decidedAt = decidedAt
    }

    /// Minutes a child may ask for at once.
    public static let minutes = 5...120
    /// At most this many requests wait for an answer at a time…
    public static let maxPending = 3
    /// …and at most this many are made in one local day.
    public static let maxPerDay = 5

    /// Checks a new request: the app is one of the child's reward apps, the minutes and note fit,
    /// and the child has not asked too often (`pending` waiting now, `today` made this local day;
    /// `secondsToTomorrow` until the child's next local day).
    public static func check(
        appToken: String, minutes: Int, note: String, rewardApps: Set<String>, pending: Int, today: Int,
        secondsToTomorrow: Int
    ) throws(DomainError) -> (minutes: Int, note: String) {
        var issues: [FieldIssue] = []
        if !rewardApps.contains(appToken) {
            issues.append(FieldIssue(field: "appToken", message: Message("quests.error.chooseRewardApp")))
        }
        if !Self.minutes.contains(minutes) {
            issues.append(
                FieldIssue(
                    field: "minutes",
                    message: Message(
                        "quests.error.askMinutes",
                        [
                            "min": .number(Self.minutes.lowerBound),
                            "max": .message(.count(Self.minutes.upperBound, .minutes)),
                        ])))
        }
        let note = note.trimmed()
        if note.count > 200 {
            issues.append(
                FieldIssue(field: "note", message: Message("quests.error.maxCharacters", ["max": .number(200)])))
        }
        if !issues.isEmpty { throw .invalid(issues) }
        if pending >= maxPending {
            throw .tooManyRequests(
                retryAfter: 300, Message("quests.error.requestsWaiting", ["count": .number(pending)]))
        }
        if today >= maxPerDay {
            throw .tooManyRequests(
                retryAfter: max(secondsToTomorrow, 1), Message("quests.error.requestsToday", ["count": .number(today)]))
        }
        return (minutes, note)
    }
}
