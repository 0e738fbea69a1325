public import Foundation

/// One usage report as the device sends it, before validation.
public struct UsageReportInput: Sendable {
    public let id: String
    public let appToken: String
    public let startedAt: Date
    public let durationSeconds: Int
    public let timeZone: String

    public init(id: String, appToken: String, startedAt: Date, durationSeconds: Int, timeZone: String) {
        self.id = id
        self.appToken = appToken
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.timeZone = timeZone
    }
}

/// A usage report as stored: its device-chosen id (the per-report idempotency key) and content.
public struct StoredUsageReport: Sendable, Equatable {
    public let id: String
    public let record: UsageRecord

    public init(id: String, record: UsageRecord) {
        self.id = id
        self.record = record
    }
}

/// The rules a child's device's usage reports meet before they count: a report id the device
/// chose (its idempotency key), an app of the child's catalog, 1 second to 12 hours, an IANA
/// zone, and an end no more than 5 minutes ahead of the server's clock and a start no more than
/// `lateLimitDays` back. A report id seen twice in one batch counts once.
public enum UsageReports {
    /// How far back a report may start.
    public static let lateLimitDays = 30
    /// The longest report: 12 hours.
    public static let maxSeconds = 43_200

    /// A session of `minutes` that ends at `end`, as a person reports it ("I used Duolingo for
    /// 20 minutes"), in the child's zone: the same limit as a device's report, in minutes, on
    /// the field the person filled in.
    public static func session(
        id: String, appToken: String, minutes: Int?, endingAt end: Date, timeZone: String
    ) throws(DomainError) -> UsageReportInput {
        guard let minutes, (1...maxSeconds / 60).contains(minutes) else {
            throw .invalid(
                field: "minutes",
                Message("quests.error.sessionMinutes", ["min": .number(1), "max": .number(maxSeconds / 60)]))
        }
        return UsageReportInput(
            id: id, appToken: appToken, startedAt: end.addingTimeInterval(-Double(minutes * 60)),
            durationSeconds: minutes * 60, timeZone: timeZone)
    }

    public static func validate(_ reports: [UsageReportInput], catalog: [QuestApp], now: Date) throws(DomainError)
        -> [StoredUsageReport]
    {
        let tokens = Set(catalog.map(\.token))
        var v = FieldValidation()
        var records: [StoredUsageReport] = []
        var seen = Set<String>()
        for (index, report) in reports.enumerated() {
            let field = "reports[\(index)]"
            v.check { () throws(DomainError) in
                guard (1...128).contains(report.id.utf8.count),
                    report.id.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
                else {
                    throw .invalid(field: "\(field).id", Message("quests.error.reportID"))
                }
            }
            v.check { () throws(DomainError) in
                guard tokens.contains(report.appToken) else {
                    throw .invalid(field: "\(field).appToken", Message("quests.error.reportApp"))
                }
            }
            v.check { () throws(DomainError) in
                guard (1...maxSeconds).contains(report.durationSeconds) else {
                    throw .invalid(
                        field: "\(field).durationSeconds",
                        Message("quests.error.reportSeconds", ["min": .number(1), "max": .number(maxSeconds)]))
                }
            }
            let zone = v.check { () throws(DomainError) -> TimeZoneID in
                guard let zone = TimeZoneID(report.timeZone) else {
                    throw .invalid(field: "\(field).timeZone", Message("quests.error.reportZone"))
                }
                return zone
            }
            v.check { () throws(DomainError) in
                let end = report.startedAt.addingTimeInterval(TimeInterval(max(report.durationSeconds, 0)))
                if end > now.addingTimeInterval(300) {
                    throw .invalid(field: "\(field).startedAt", Message("quests.error.reportFuture"))
                }
                if report.startedAt < now.addingTimeInterval(-Double(lateLimitDays) * 86_400) {
                    throw .invalid(
                        field: "\(field).startedAt",
                        Message("quests.error.reportTooOld", ["age": .message(.count(lateLimitDays, .days))]))
                }
            }
            if let zone, seen.insert(report.id).inserted {
                records.append(
                    StoredUsageReport(
                        id: report.id,
                        record: UsageRecord(
                            token: report.appToken, start: report.startedAt,
                            seconds: report.durationSeconds, zone: zone)))
            }
        }
        try v.finish()
        return records
    }
}
