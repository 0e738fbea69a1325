public import Foundation

/// One article open: the instant and the reader's time zone at that moment. Its local day is
/// fixed then and never re-bucketed after travel.
public struct ReadEvent: Codable, Sendable, Equatable {
    public var at: Date
    public var timeZone: String

    public init(at: Date, timeZone: String) {
        self.at = at
        self.timeZone = timeZone
    }

    public func localDay() throws(DomainError) -> LocalDay {
        LocalDay(at, in: try AccountRules.timeZone(timeZone, field: "timeZone").timeZone)
    }
}

/// A reader's history as the QA preview takes it.
public struct ReadingHistory: Codable, Sendable, Equatable {
    public var joinedAt: Date?
    public var reads: [ReadEvent]
    /// Previews a logged-out device when false.
    public var loggedIn: Bool?

    /// How far ahead of the server's clock a read may claim to be (device clocks drift).
    public static let allowedClockSkew: TimeInterval = 300

    public static func decode(_ data: Data) throws(DomainError) -> ReadingHistory {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do { return try decoder.decode(ReadingHistory.self, from: data) } catch let error as DecodingError {
            throw .invalid(field: "history", OnThisDayFeed.describe(error))
        } catch {
            throw .invalid(field: "history", "The history could not be read.")
        }
    }

    /// The reader status on `now` in `timeZone`; reads in the future are refused.
    public func status(now: Date, timeZone: TimeZoneID) throws(DomainError) -> ReaderStatus {
        var days: Set<LocalDay> = []
        for (index, read) in reads.enumerated() {
            guard read.at.timeIntervalSince(now) <= Self.allowedClockSkew else {
                throw .invalid(field: "reads[\(index)].at", "This read is in the future of --now.")
            }
            do { days.insert(try read.localDay()) } catch {
                throw .invalid(field: "reads[\(index)].timeZone", "\"\(read.timeZone)\" is not an IANA time zone.")
            }
        }
        return ReaderStatus(
            loggedIn: loggedIn ?? true, joinDay: joinedAt.map { LocalDay($0, in: timeZone.timeZone) },
            completedOn: nil, claimed: false, readDays: days)
    }
}
