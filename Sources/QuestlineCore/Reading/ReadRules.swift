public import Foundation

/// A read as a client sends it, before validation.
public struct ReadInput: Sendable {
    public var eventId: String
    public var articleId: String
    public var title: String
    public var language: String
    public var at: Date
    public var timeZone: String
    public var thumbnailUrl: String?

    public init(
        eventId: String, articleId: String, title: String, language: String, at: Date, timeZone: String,
        thumbnailUrl: String? = nil
    ) {
        self.eventId = eventId
        self.articleId = articleId
        self.title = title
        self.language = language
        self.at = at
        self.timeZone = timeZone
        self.thumbnailUrl = thumbnailUrl
    }
}

/// One article open, validated.
public struct NewRead: Sendable, Equatable {
    public let eventID: String
    public let articleID: String
    public let title: String
    public let language: String
    public let at: Date
    public let timeZone: String
    public let localDay: LocalDay
    public let thumbnailURL: String?

    public init(
        eventID: String, articleID: String, title: String, language: String, at: Date, timeZone: String,
        localDay: LocalDay, thumbnailURL: String?
    ) {
        self.eventID = eventID
        self.articleID = articleID
        self.title = title
        self.language = language
        self.at = at
        self.timeZone = timeZone
        self.localDay = localDay
        self.thumbnailURL = thumbnailURL
    }
}

/// The rules a read meets before it counts toward streaks and insights.
public enum ReadRules {
    /// Validates reads; every problem names its field (`reads[3].timeZone`). A read more than
    /// a few minutes in the future of the server's clock is refused, and so is a read whose
    /// zone puts it on a local day more than one day ahead of the reader's own today (in
    /// `readerZone`, the member's profile zone): travel moves a day by at most one, a device
    /// claiming a far zone to bank tomorrow's streak day does not.
    public static func validate(
        _ inputs: [ReadInput], now: Date, readerZone: TimeZoneID? = nil, fieldPrefix: (Int) -> String
    )
        throws(DomainError) -> [NewRead]
    {
        var issues: [FieldIssue] = []
        var reads: [NewRead] = []
        let latestDay = readerZone.map { LocalDay(now, in: $0.timeZone).adding(days: 1) }
        for (index, input) in inputs.enumerated() {
            let prefix = fieldPrefix(index)
            func issue(_ field: String, _ message: Message) {
                issues.append(FieldIssue(field: prefix + field, message: message))
            }
            let eventID = input.eventId.trimmed(newlines: false)
            if eventID.isEmpty || eventID.count > 64 {
                issue("eventId", Message("reading.error.eventId", ["min": .number(1), "max": .number(64)]))
            } else if eventID.containsControlCharacter {
                issue("eventId", Message("reading.error.controlCharacters"))
            }
            let article = input.articleId.trimmed(newlines: false)
            if article.isEmpty || article.count > 300 {
                issue("articleId", Message("reading.error.articleId", ["min": .number(1), "max": .number(300)]))
            } else if article.containsControlCharacter {
                issue("articleId", Message("reading.error.controlCharacters"))
            }
            let title = input.title.trimmed()
            if title.isEmpty || title.count > 300 {
                issue("title", Message("reading.error.articleTitle", ["min": .number(1), "max": .number(300)]))
            } else if title.containsControlCharacter {
                issue("title", Message("reading.error.titleControlCharacters"))
            }
            var language = input.language.lowercased()
            do { language = try WikiLanguage.validate(input.language, field: prefix + "language") } catch {
                if case .invalid(let found) = error { issues += found }
            }
            if input.at.timeIntervalSince(now) > ReadingHistory.allowedClockSkew {
                issue("at", Message("reading.error.readInFuture"))
            } else if let found = DateWindow.readingIssue(input.at, field: prefix + "at") {
                issues.append(found)
            }
            if let thumbnail = input.thumbnailUrl,
                !(thumbnail.hasPrefix("https://") || thumbnail.hasPrefix("http://")) || thumbnail.count > 2000
                    || thumbnail.containsControlCharacter
            {
                issue("thumbnailUrl", Message("reading.error.thumbnailUrl"))
            }
            guard let zone = TimeZoneID(input.timeZone) else {
                issue("timeZone", Message("reading.error.timeZone", ["example": .text("Europe/Berlin")]))
                continue
            }
            let localDay = LocalDay(input.at, in: zone.timeZone)
            if let latestDay, localDay > latestDay {
                issue("timeZone", Message("reading.error.zoneAhead", ["day": .day(localDay, .long)]))
                continue
            }
            reads.append(
                NewRead(
                    eventID: eventID, articleID: article, title: title, language: language, at: input.at,
                    timeZone: zone.identifier, localDay: localDay,
                    thumbnailURL: input.thumbnailUrl))
        }
        if !issues.isEmpty { throw .invalid(issues) }
        return reads
    }
}
