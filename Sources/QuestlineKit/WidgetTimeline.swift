public import Foundation
internal import OpenAPIRuntime
public import QuestlineAPI
internal import QuestlineClient
public import QuestlineCore
public import QuestlineL10n

/// The reading widget's facts as last fetched, kept on disk (`widget.json`) so a widget
/// extension draws its timeline without the network.
public struct WidgetSnapshot: Sendable, Equatable, Codable {
    public let basis: Components.Schemas.WidgetBasis
    public let fetchedAt: Date

    public init(basis: Components.Schemas.WidgetBasis, fetchedAt: Date) {
        self.basis = basis
        self.fetchedAt = fetchedAt
    }

    /// One entry of a widget's timeline: what it shows from `date` on, its words in the reader's
    /// language.
    public struct Entry: Sendable, Equatable {
        public let date: Date
        public let model: WidgetModel
        public let title: String
        public let body: String
        /// The buttons' labels, in the order of `model.ctas`.
        public let labels: [String]
    }

    /// The reader's language, as the server last said it (English when it said none, or one
    /// this build does not speak).
    public var language: Language { basis.language.flatMap(Language.init) ?? .english }

    /// The widget from `now` and at each of the next `days` local midnights, computed with the
    /// core's widget rules (`ReadingWidget.model`): the state, streak and copy change with the
    /// day exactly as the server's would, given the reads the server had plus `localReads` (reads
    /// made on this device since, e.g. waiting in the outbox), and the reader's rest days and
    /// pauses (the widget's resting and paused states). Days are the reader's local
    /// days, in the zone the server counted them in; midnights follow that zone's DST rules.
    public func timeline(
        from now: Date, days: Int = 7, localReads: [Date] = [], localizer: Localizer? = nil
    ) throws(DomainError) -> [Entry] {
        let l = localizer ?? Localizer(language)
        let campaign = try Campaign(basis.campaign)
        let zone = (TimeZoneID(basis.timeZone) ?? .utc).timeZone
        var status = ReaderStatus(loggedIn: basis.loggedIn)
        status.joinDay = basis.joinDay.flatMap { LocalDay(iso: $0) }
        status.completedOn = basis.completedOn.flatMap { LocalDay(iso: $0) }
        status.claimed = basis.claimed
        status.readDays = Set(basis.readDays.compactMap { LocalDay(iso: $0) })
        status.repairDays = Set((basis.repairDays ?? []).compactMap { LocalDay(iso: $0) })
        if let streak = basis.streak { status.allowances = try StreakAllowances(streak) }
        let today = LocalDay(now, in: zone)
        var entries: [Entry] = []
        for offset in 0...max(days, 0) {
            let day = today.adding(days: offset)
            let start = offset == 0 ? now : day.start(in: zone)
            var facts = status
            facts.readDays.formUnion(localReads.filter { $0 <= start }.map { LocalDay($0, in: zone) })
            let model = ReadingWidget.model(campaign: campaign, status: facts, today: day)
            entries.append(
                Entry(
                    date: start, model: model, title: l(model.copy.title), body: l(model.copy.body),
                    labels: model.ctas.map { l($0.label) }))
        }
        return entries
    }
}

/// Fetches the widget's facts and keeps them on disk for the widget extension.
public actor WidgetKeeper {
    private let session: QuestlineSession
    private let file: URL
    private let clock: @Sendable () -> Date
    private let deviceID: String?
    public private(set) var snapshot: WidgetSnapshot?

    public init(
        session: QuestlineSession, directory: URL, deviceID: String? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.session = session
        self.deviceID = deviceID
        self.clock = clock
        file = directory.appendingPathComponent("widget.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        snapshot = Self.saved(in: directory)
    }

    /// The snapshot kept in `directory` (what a widget extension reads, without a session).
    public static func saved(in directory: URL) -> WidgetSnapshot? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent("widget.json").path)
        else { return nil }
        return try? Snapshots.decoder.decode(WidgetSnapshot.self, from: data)
    }

    /// Fetches the facts again (after a read, or once a day) and keeps them.
    @discardableResult
    public func refresh(timeZone: String? = nil) async throws -> WidgetSnapshot {
        let output = try await session.client.getReadingWidgetBasis(
            headers: .init(X_hyphen_Device_hyphen_Id: deviceID, X_hyphen_Time_hyphen_Zone: timeZone))
        let basis = try output.ok.body.json
        let fresh = WidgetSnapshot(basis: basis, fetchedAt: clock().wholeSeconds)
        try Snapshots.encoder.encode(fresh).write(to: file, options: .atomic)
        snapshot = fresh
        return fresh
    }
}

extension Date {
    /// This instant without its fraction of a second (when a snapshot was fetched).
    var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

/// How snapshots (`shield.json`, `widget.json`) are kept: instants as seconds since 1970, which
/// read back exactly as they were written.
enum Snapshots {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
