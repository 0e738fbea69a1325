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

/// A reader's history and streak settings as the QA previews take them: the one input shape of
/// `questline widget-preview` (a JSON file) and the web page `/reading/preview` (its query), and
/// the one function behind both (`preview(campaign:now:timeZone:)`), so two previews of one
/// rule cannot disagree. Every field but `reads` is optional; an unknown key is refused.
///
/// - `joinedAt`: when the reader joined (an instant), or absent: not joined.
/// - `completedOn`: a completion already recorded (a day, `2026-05-25`).
/// - `claimed`: the prize was claimed (default false).
/// - `loggedIn`: false previews a signed-out device (default true).
/// - `reads`: `[{"at": instant, "timeZone": "Europe/Paris"}]`; a day with three reads can repair.
/// - `restDays`: weekdays, 1 (Monday) to 7, at most two, in force on every day previewed.
/// - `pauses`: `[{"start": day, "end": day}]`, under the live rules (never overlapping, at most
///   14 paused days in a calendar year).
public struct ReadingHistory: Sendable, Equatable {
    public var joinedAt: Date?
    public var completedOn: LocalDay?
    public var claimed: Bool
    public var loggedIn: Bool
    public var reads: [ReadEvent]
    public var restDays: [Int]
    public var pauses: [StreakAllowances.Pause]

    /// The keys a history takes, in the order `--help` lists them.
    public static let keys = ["joinedAt", "completedOn", "claimed", "loggedIn", "reads", "restDays", "pauses"]

    public init(
        joinedAt: Date? = nil, completedOn: LocalDay? = nil, claimed: Bool = false, loggedIn: Bool = true,
        reads: [ReadEvent] = [], restDays: [Int] = [], pauses: [StreakAllowances.Pause] = []
    ) {
        self.joinedAt = joinedAt
        self.completedOn = completedOn
        self.claimed = claimed
        self.loggedIn = loggedIn
        self.reads = reads
        self.restDays = restDays
        self.pauses = pauses
    }

    /// How far ahead of the server's clock a read may claim to be (device clocks drift).
    public static let allowedClockSkew: TimeInterval = 300

    /// A history file, every key checked (an unknown key names itself).
    public static func decode(_ data: Data) throws(DomainError) -> ReadingHistory {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw DomainError.invalid(field: "history", Message("reading.error.history.notObject"))
            }
            object = parsed
        } catch let error as DomainError {
            throw error
        } catch {
            throw .invalid(field: "history", Message("reading.error.history.notJSON"))
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw .invalid(
                field: key,
                Message(
                    "reading.error.history.unknownKey",
                    ["key": .text(key), "keys": .list(keys.map { .text($0) })]))
        }
        var history = ReadingHistory()
        var v = FieldValidation()
        func instant(_ value: Any?, _ field: String) -> Date? {
            guard let value, !(value is NSNull) else { return nil }
            return v.check { () throws(DomainError) in
                guard let text = value as? String, let date = try? Date(text, strategy: .iso8601) else {
                    throw .invalid(
                        field: field,
                        Message("reading.error.history.instant", ["example": .text("2026-05-10T08:30:00Z")]))
                }
                return date
            }
        }
        func day(_ value: Any?, _ field: String) -> LocalDay? {
            guard let value, !(value is NSNull) else { return nil }
            return v.check { () throws(DomainError) in
                guard let text = value as? String else {
                    throw .invalid(field: field, Message("reading.error.history.day", ["example": .text("2026-05-08")]))
                }
                return try DateWindow.day(Substring(text), field: field, example: "2026-05-08")
            }
        }
        func flag(_ value: Any?, _ field: String, default fallback: Bool) -> Bool {
            guard let value, !(value is NSNull) else { return fallback }
            guard let bool = value as? Bool else {
                v.add(field: field, Message("reading.error.history.flag"))
                return fallback
            }
            return bool
        }
        func objects(_ value: Any?, _ field: String, keys allowed: [String]) -> [[String: Any]] {
            guard let value, !(value is NSNull) else { return [] }
            guard let list = value as? [[String: Any]] else {
                v.add(field: field, Message("reading.error.history.objects"))
                return []
            }
            for (index, item) in list.enumerated() {
                for key in item.keys.sorted() where !allowed.contains(key) {
                    v.add(
                        field: "\(field)[\(index)].\(key)",
                        Message(
                            "reading.error.history.unknownKey",
                            ["key": .text(key), "keys": .list(allowed.map { .text($0) })]))
                }
            }
            return list
        }
        history.joinedAt = instant(object["joinedAt"], "joinedAt")
        history.completedOn = day(object["completedOn"], "completedOn")
        history.claimed = flag(object["claimed"], "claimed", default: false)
        history.loggedIn = flag(object["loggedIn"], "loggedIn", default: true)
        for (index, read) in objects(object["reads"], "reads", keys: ["at", "timeZone"]).enumerated() {
            let at = instant(read["at"], "reads[\(index)].at")
            guard let zone = read["timeZone"] as? String else {
                v.add(field: "reads[\(index)].timeZone", Message("reading.error.history.readZone"))
                continue
            }
            if let at { history.reads.append(ReadEvent(at: at, timeZone: zone)) }
        }
        if let rest = object["restDays"], !(rest is NSNull) {
            if let weekdays = rest as? [Int] {
                history.restDays = weekdays
            } else {
                v.add(field: "restDays", Message("reading.error.weekdays"))
            }
        }
        for (index, pause) in objects(object["pauses"], "pauses", keys: ["start", "end"]).enumerated() {
            let start = day(pause["start"], "pauses[\(index)].start")
            let end = day(pause["end"], "pauses[\(index)].end")
            if let start, let end { history.pauses.append(.init(start: start, end: end)) }
        }
        try v.finish()
        return history
    }

    /// The reader status on `now` in `timeZone`: reads in the future are refused; days with three
    /// reads can repair; rest days and pauses follow the live rules (`StreakAllowances`).
    public func status(now: Date, timeZone: TimeZoneID) throws(DomainError) -> ReaderStatus {
        var perDay: [LocalDay: Int] = [:]
        var v = FieldValidation()
        for (index, read) in reads.enumerated() {
            guard read.at.timeIntervalSince(now) <= Self.allowedClockSkew else {
                v.add(field: "reads[\(index)].at", Message("reading.error.history.readAfterNow"))
                continue
            }
            do { perDay[try read.localDay(), default: 0] += 1 } catch {
                v.add(
                    field: "reads[\(index)].timeZone",
                    Message("reading.error.history.unknownZone", ["zone": .text(read.timeZone)]))
            }
        }
        var allowances = StreakAllowances.none
        if let weekdays = v.check({ () throws(DomainError) in try StreakAllowances.validatedRestDays(restDays) }),
            !weekdays.isEmpty
        {
            allowances = StreakAllowances(restDays: [.init(weekdays: weekdays, from: LocalDay(dayNumber: 0))])
        }
        for (index, pause) in pauses.enumerated() {
            if let added = v.check({ () throws(DomainError) in
                try allowances.adding(start: pause.start, end: pause.end, field: "pauses[\(index)].")
            }) {
                allowances = added
            }
        }
        try v.finish()
        return ReaderStatus(
            loggedIn: loggedIn, joinDay: joinedAt.map { LocalDay($0, in: timeZone.timeZone) },
            completedOn: completedOn, claimed: claimed, readDays: Set(perDay.keys),
            repairDays: Set(perDay.filter { $0.value >= StreakAllowances.repairReads }.keys), allowances: allowances)
    }

    /// The widget this history shows on `now` in `timeZone`, for `campaign`: what both previews
    /// print.
    public func preview(campaign: Campaign, now: Date, timeZone: TimeZoneID) throws(DomainError) -> WidgetModel {
        ReadingWidget.model(
            campaign: campaign, status: try status(now: now, timeZone: timeZone),
            today: LocalDay(now, in: timeZone.timeZone))
    }
}
