public import Foundation
import NIOConcurrencyHelpers
public import QuestlineCore
public import QuestlineStore

/// Who is looking at the widget: a member, or a device not signed in.
public struct ReaderIdentity: Sendable {
    public let member: MemberRecord?
    public let deviceID: String?
    /// The zone "today" is computed in: the member's, else the device's own, else UTC.
    public let timeZone: TimeZoneID

    public init(member: MemberRecord?, deviceID: String?, timeZone: TimeZoneID) {
        self.member = member
        self.deviceID = deviceID
        self.timeZone = timeZone
    }

    var owner: ReadOwner? {
        if let member { return .member(member.id) }
        return deviceID.map { .device($0) }
    }

    public var subject: String? { owner?.key }

    /// A signed-in member reads in their own zone.
    public init(_ member: MemberRecord) {
        self.init(member: member, deviceID: nil, timeZone: member.zoneID)
    }

    /// Who reads, for the API and the pages alike: the signed-in member in their own zone,
    /// whatever the request says; else the device it names (`validDeviceID`), in the zone it
    /// gives (UTC when none). `deviceField` and `zoneField` name what the caller read them from.
    public static func resolve(
        member: MemberRecord?, device: String?, timeZone: String?, deviceField: String, zoneField: String
    ) throws(DomainError) -> ReaderIdentity {
        if let member { return ReaderIdentity(member) }
        if let device, !ReadingFeature.validDeviceID(device) {
            throw DomainError.invalid(
                field: deviceField, Message("reading.error.deviceId", ["min": .number(8), "max": .number(64)]))
        }
        let zone =
            try timeZone.map { zone throws(DomainError) in try AccountRules.timeZone(zone, field: zoneField) } ?? .utc
        return ReaderIdentity(member: nil, deviceID: device, timeZone: zone)
    }
}

/// Campaigns held in memory for a few seconds. A lock, not an actor: every widget asks, and
/// the critical section is a copy, so no request should suspend for it.
///
/// Its lifetime is elapsed time on the monotonic clock, not the product's (injected) wall clock:
/// a test that pins or moves the wall clock neither freezes nor expires it.
final class CampaignCache: Sendable {
    private let state = NIOLockedValueBox<(campaigns: [Campaign]?, loadedAt: ContinuousClock.Instant)>(
        (nil, .now))
    static let lifetime: Duration = .seconds(10)

    func get(now: ContinuousClock.Instant) -> [Campaign]? {
        state.withLockedValue { state in
            guard let campaigns = state.campaigns, now - state.loadedAt < Self.lifetime else {
                return nil
            }
            return campaigns
        }
    }

    func set(_ campaigns: [Campaign], now: ContinuousClock.Instant) {
        state.withLockedValue { $0 = (campaigns, now) }
    }

    func invalidate() { state.withLockedValue { $0.campaigns = nil } }
}

/// One step of the challenge funnel.
public struct FunnelStep: Sendable, Equatable {
    /// The step's name (`reading.funnel.step.<event>`).
    public let name: Message
    public let event: String
    public let members: Int
}

/// Reading events, the challenge (join, claim, completion, badge), the widget, search and
/// random over the reader's articles, instrumentation and the funnel.
public struct ReadingFeature: Sendable {
    private let store: Store
    public let clock: any WallClock
    let ids: any IDGenerator
    /// Wikipedia's articles, and the offline pack.
    public let wiki: WikiContent
    let campaignCache = CampaignCache()
    /// Each member's widget for their local today, kept between the writes that change it.
    let keptWidgets: KeptAnswers<MemberID, KeptWidget>
    let analytics: AnalyticsBuffer
    let milestones = MilestoneMemo()

    /// The measurement plan's events (docs/measurement-plan.md), in funnel order where they are steps.
    public enum Event: String, CaseIterable, Sendable {
        case impression = "reading_widget_impression"
        case ctaTap = "reading_cta_tap"
        case join = "reading_challenge_join"
        case firstRead = "reading_first_read"
        case streak7 = "reading_streak_7"
        case completion = "reading_challenge_complete"
        case claim = "reading_prize_claim"
        case share = "reading_share"
    }

    static let funnel: [(String, Event)] = [
        ("impression", .impression), ("join", .join), ("firstRead", .firstRead), ("streak7", .streak7),
        ("completion", .completion), ("claim", .claim),
    ]

    /// Events a client may report itself (the rest are recorded by the server).
    public static let clientEvents: Set<Event> = [.ctaTap, .share]

    public init(store: Store, configuration: FeatureConfiguration, wiki: WikiContent? = nil) {
        self.store = store
        clock = configuration.clock
        ids = configuration.ids
        self.wiki = wiki ?? WikiContent(store: store, configuration: configuration)
        analytics = AnalyticsBuffer(
            store: store.reading, executor: store.database.writerExecutor, buffered: configuration.bufferAnalytics)
        let kept = KeptAnswers<MemberID, KeptWidget>(capacity: configuration.keptWidgets)
        keptWidgets = kept
        store.live.watchAnswers { change in
            switch change {
            case .member(let id): kept.forget([id])
            case .everyone: kept.forgetAll()
            }
        }
    }

    /// A member's widget as computed for `today` from `campaign`: true while both are still
    /// today's and no write forgot it.
    struct KeptWidget: Sendable {
        let today: LocalDay
        let campaign: Campaign
        let status: ReaderStatus
        let model: WidgetModel
    }

    /// What `member`'s widget is computed from changed (reads, a join, a claim, a completion,
    /// their rest days and pauses, a device handed over): forgotten here, and on every instance.
    private func widgetChanged(_ member: MemberID) async throws {
        keptWidgets.forget([member])
        try await store.live.announceStale([member])
    }

    // MARK: Campaigns

    /// Loads the bundled campaign files (kept if already stored) and, when asked, a demo
    /// campaign relative to today (replaced at every start).
    /// The service that writes buffered analytics events (run it beside the server when the
    /// configuration buffers them).
    public var analyticsFlusher: AnalyticsFlushService { AnalyticsFlushService(buffer: analytics) }
    /// Analytics events waiting to be written (`questline_analytics_backlog`).
    public var analyticsBacklog: Int { analytics.pendingCount }

    public func installCampaigns(demo: Bool) async throws {
        let folder = Bundle.module.bundleURL.appendingPathComponent("Resources/campaigns")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.pathExtension == "json" {
            try await store.reading.saveCampaign(
                try Campaign.decode(Data(contentsOf: file)), replace: false, now: clock.now(), scope: .system)
        }
        if demo {
            try await store.reading.saveCampaign(
                Campaign.demo(today: clock.today(in: .gmt)), replace: true, now: clock.now(), scope: .system)
        }
        campaignCache.invalidate()
    }

    /// An administrator adds or changes a campaign.
    public func saveCampaign(_ campaign: Campaign, as actor: MemberRecord, scope: WriteScope) async throws {
        try AccessPolicy.check(actor.actor, .administer)
        try campaign.validate()
        try await store.reading.saveCampaign(campaign, replace: true, now: clock.now(), scope: scope)
        campaignCache.invalidate()
    }

    /// Every campaign, from memory for up to 10 seconds (they change rarely; each instance
    /// re-reads them, so a change made on another instance shows within 10 seconds).
    public func campaigns() async throws -> [Campaign] {
        let now = ContinuousClock.now
        if let cached = campaignCache.get(now: now) { return cached }
        let loaded = try await store.reading.campaigns()
        campaignCache.set(loaded, now: now)
        return loaded
    }

    public func campaign(for today: LocalDay) async throws -> Campaign? {
        Campaign.current(try await campaigns(), today: today)
    }

    public func campaign(id: String) async throws -> Campaign {
        guard let campaign = try await campaigns().first(where: { $0.id == id }) else {
            throw DomainError.notFound(Message("reading.error.noSuchCampaign", ["id": .text(id)]))
        }
        return campaign
    }

    // MARK: Reads

    /// Validates reads against the server's clock (`ReadRules.validate`).
    public func validate(_ inputs: [ReadInput], readerZone: TimeZoneID? = nil, fieldPrefix: (Int) -> String)
        throws(DomainError) -> [NewRead]
    {
        try ReadRules.validate(inputs, now: clock.now(), readerZone: readerZone, fieldPrefix: fieldPrefix)
    }

    /// Records validated reads for the reader; then, when they add a read day (nothing else
    /// moves a streak), records the completion, badge and funnel events that follow. Returns
    /// the event ids newly recorded.
    public func record(_ reads: [NewRead], for reader: ReaderIdentity, scope: WriteScope) async throws -> Set<String> {
        guard let owner = reader.owner else {
            throw DomainError.unauthenticated(Message("reading.error.readerUnknown"))
        }
        // A member's reads carry the completion check of the campaign of their today, so that a
        // read that completes it records the completion in the same transaction.
        var check: CompletionCheck?
        if let member = reader.member {
            let today = clock.today(in: member.zone)
            if let campaign = try await campaign(for: today) {
                check = CompletionCheck(
                    member: member.id, campaign: campaign, today: today, badge: Self.badge(campaign))
            }
        }
        let recorded = try await store.reading.record(
            reads, owner: owner, now: clock.now(), completion: check, scope: scope)
        // The other instances were told in the reads' own transaction.
        if let member = reader.member, recorded.changedFacts { keptWidgets.forget([member.id]) }
        if let member = reader.member, let completedOn = recorded.completedOn, let campaign = check?.campaign {
            try await track(
                .completion, subject: ReadOwner.member(member.id).key, campaign: campaign.id, ["day": completedOn.iso])
        }
        if !recorded.newDays.isEmpty, let member = reader.member { try await updateProgress(member, scope: scope) }
        return recorded.eventIDs
    }

    // MARK: Widget

    /// The widget model for a reader now: one query after authentication (enrollment and the
    /// read days since the campaign's start, from the per-day summary). It writes nothing but
    /// the impression, when asked; milestones are recorded where the history changes.
    public func widget(for reader: ReaderIdentity, impression: Bool, surface: String = "api") async throws
        -> WidgetModel?
    {
        guard let (campaign, _, _, model) = try await widgetAnswer(for: reader) else { return nil }
        if impression, let subject = reader.subject {
            try await track(
                .impression, subject: subject, campaign: campaign.id,
                ["state": model.state.rawValue, "surface": surface])
        }
        return model
    }

    /// What the reader's widget is computed from today: the current campaign and the reader's
    /// facts (nil when there is no campaign). A device keeps it to draw the coming days offline.
    public func widgetBasis(for reader: ReaderIdentity) async throws -> (
        campaign: Campaign, status: ReaderStatus, today: LocalDay
    )? {
        try await widgetAnswer(for: reader).map { ($0.campaign, $0.status, $0.today) }
    }

    /// The widget and what it is computed from: a member's as kept (`keptWidgets`) while it is
    /// still today's, for today's campaign; else computed, and kept for the next ask.
    private func widgetAnswer(for reader: ReaderIdentity) async throws -> (
        campaign: Campaign, status: ReaderStatus, today: LocalDay, model: WidgetModel
    )? {
        let today = clock.today(in: reader.timeZone.timeZone)
        guard let campaign = try await campaign(for: today) else { return nil }
        if let member = reader.member, let kept = keptWidgets.answer(member.id), kept.today == today,
            kept.campaign == campaign
        {
            return (campaign, kept.status, today, kept.model)
        }
        let ticket = keptWidgets.ticket()
        let (status, _) = try await readerStatus(reader, campaign: campaign, today: today)
        let model = ReadingWidget.model(campaign: campaign, status: status, today: today)
        if let member = reader.member, store.live.mayKeepAnswers {
            keptWidgets.keep(
                KeptWidget(today: today, campaign: campaign, status: status, model: model), for: member.id,
                ticket: ticket)
        }
        return (campaign, status, today, model)
    }

    // MARK: Forgiving streaks

    /// A member's rest days and pauses, their local today (what the settings are read against),
    /// and the first day a change may reach (`StreakAllowances.earliestChange`).
    public struct StreakSettings: Sendable {
        public let allowances: StreakAllowances
        public let today: LocalDay
        public let earliestChange: LocalDay

        init(_ allowances: StreakAllowances, member: MemberRecord, now: Date) {
            self.allowances = allowances
            today = LocalDay(now, in: member.zone)
            earliestChange = StreakAllowances.earliestChange(at: now)
        }
    }

    public func streakAllowances(_ member: MemberRecord) async throws -> StreakSettings {
        StreakSettings(try await store.reading.streakAllowances(member.id), member: member, now: clock.now())
    }

    /// Chooses the member's rest weekdays, in force from the first Monday that has not begun
    /// anywhere (`StreakAllowances`).
    public func setRestDays(_ member: MemberRecord, weekdays: [Int], scope: WriteScope) async throws -> StreakSettings {
        let now = clock.now()
        let changed = try await store.reading.changeStreakAllowances(member.id, now: now, scope: scope) { current in
            try current.settingRestDays(weekdays, at: now)
        }
        try await widgetChanged(member.id)
        return StreakSettings(changed, member: member, now: now)
    }

    /// Pauses the member's streak from `start` through `end` (local days, ISO), as the core's
    /// rule allows; each refusal names its field.
    public func pauseStreak(_ member: MemberRecord, start: String, end: String, scope: WriteScope) async throws
        -> StreakSettings
    {
        var validation = FieldValidation()
        let first = validation.check { () throws(DomainError) in try DateWindow.day(start, field: "start") }
        let last = validation.check { () throws(DomainError) in try DateWindow.day(end, field: "end") }
        try validation.finish()
        guard let first, let last else { throw DomainError.invalid(field: "start", Message("reading.error.pauseDays")) }
        let now = clock.now()
        let changed = try await store.reading.changeStreakAllowances(member.id, now: now, scope: scope) { current in
            try current.pausing(from: first, through: last, at: now)
        }
        try await widgetChanged(member.id)
        return StreakSettings(changed, member: member, now: now)
    }

    /// Ends the member's pause in force (or cancels the one to come).
    public func endStreakPause(_ member: MemberRecord, scope: WriteScope) async throws -> StreakSettings {
        let now = clock.now()
        let today = LocalDay(now, in: member.zone)
        let changed = try await store.reading.changeStreakAllowances(member.id, now: now, scope: scope) { current in
            try current.endingPause(today: today)
        }
        try await widgetChanged(member.id)
        return StreakSettings(changed, member: member, now: now)
    }

    /// What the web QA preview asks for: a campaign (the first when absent), an instant (the
    /// clock's now) and zone (UTC), and the reader's `ReadingHistory` (the shape the CLI's
    /// preview takes from a file).
    public struct PreviewQuery: Sendable {
        public var campaign: String?
        public var now: String?
        public var timeZone: String?
        public var history = ReadingHistory()

        public init() {}
    }

    /// The widget for any campaign, date, zone and history, without waiting for the day (QA):
    /// the model (`ReadingHistory.preview`, what `questline widget-preview` prints), and the
    /// campaigns there are to choose from. Each value refused names its field.
    public func preview(_ query: PreviewQuery) async throws -> (model: WidgetModel, campaigns: [String]) {
        let campaigns = try await campaigns()
        let id = query.campaign ?? campaigns.first?.id ?? ""
        var validation = FieldValidation()
        let campaign = validation.check { () throws(DomainError) in
            guard let found = campaigns.first(where: { $0.id == id }) else {
                throw .invalid(field: "campaign", Message("reading.error.noSuchCampaign", ["id": .text(id)]))
            }
            return found
        }
        let zone = validation.check { () throws(DomainError) in try AccountRules.timeZone(query.timeZone ?? "UTC") }
        let now = validation.check { () throws(DomainError) in
            guard let raw = query.now else { return clock.now() }
            guard let instant = try? Date(raw, strategy: .iso8601) else {
                throw .invalid(
                    field: "now", Message("reading.error.history.instant", ["example": .text("2026-05-10T08:30:00Z")]))
            }
            return instant
        }
        try validation.finish()
        guard let campaign, let zone, let now else {
            throw DomainError.invalid(field: "campaign", Message("reading.error.noCampaign"))
        }
        return (try query.history.preview(campaign: campaign, now: now, timeZone: zone), campaigns.map(\.id))
    }

    /// The live campaign to announce to a member who has not joined it: once per member and
    /// campaign (recorded as it is shown, on every instance alike); nil otherwise.
    public func joinAnnouncement(for member: MemberRecord, scope: WriteScope) async throws -> Campaign? {
        let today = clock.today(in: member.zone)
        guard let campaign = try await campaign(for: today), campaign.startDay <= today, today <= campaign.endDay,
            try await store.reading.enrollment(member.id, campaign: campaign.id) == nil
        else { return nil }
        return try await store.reading.announceOnce(member.id, campaign: campaign.id, now: clock.now(), scope: scope)
            ? campaign : nil
    }

    /// The streak calendar of a month (today's when nil; never a month to come): the days
    /// read, the days the current campaign's freezes kept, rest, paused and repaired days, the
    /// days missed since the first read.
    public func streakCalendar(for reader: ReaderIdentity, month: LocalDay? = nil) async throws -> StreakCalendar {
        let today = clock.today(in: reader.timeZone.timeZone)
        var history: (days: Set<LocalDay>, repairDays: Set<LocalDay>) = ([], [])
        if let owner = reader.owner {
            // One row a day read: a few hundred a year at most.
            history = try await store.reading.readHistory(owner, from: LocalDay(dayNumber: 0), through: today)
        }
        var allowances = StreakAllowances.none
        if let member = reader.member { allowances = try await store.reading.streakAllowances(member.id) }
        var frozen: Set<LocalDay> = []
        if reader.member != nil, let campaign = try await campaign(for: today), campaign.startDay <= today {
            let (status, _) = try await readerStatus(reader, campaign: campaign, today: today)
            frozen = Set(
                StreakSummary(campaign: campaign, status: status, today: today).frozenDays)
        }
        return StreakCalendar(
            month: min(month ?? today, today), today: today, readDays: history.days, frozenDays: frozen,
            trackedFrom: history.days.min(), repairDays: history.repairDays, allowances: allowances)
    }

    private func readerStatus(_ reader: ReaderIdentity, campaign: Campaign, today: LocalDay) async throws -> (
        ReaderStatus, Enrollment?
    ) {
        var status = ReaderStatus(loggedIn: reader.member != nil)
        guard today >= campaign.startDay || reader.member != nil else { return (status, nil) }
        let last = max(today, campaign.startDay)
        if let member = reader.member {
            let facts = try await store.reading.widgetFacts(
                member.id, campaign: campaign.id, from: campaign.startDay, through: last)
            let enrollment = facts.enrollment
            status.joinDay = enrollment?.joinDay
            status.completedOn = enrollment?.completedOn
            status.claimed = enrollment?.claimedAt != nil
            status.readDays = facts.days
            status.repairDays = facts.repairDays
            status.allowances = facts.allowances
            return (status, enrollment)
        }
        if let owner = reader.owner {
            status.readDays = try await store.reading.readDays(owner, from: campaign.startDay, through: last)
        }
        return (status, nil)
    }

    /// The badge a completed campaign awards: its title kept as a message (`Message.stored`), so
    /// that each reader reads it in their language.
    static func badge(_ campaign: Campaign) -> Message {
        campaign.title.map { Message("reading.badge.completed", ["title": .text($0)]) }
            ?? Message("reading.badge.completedUntitled")
    }

    /// After the member's history changed (reads, a join, a device handed over): records the
    /// first read after joining, a 7-day streak, and (for a member who joined after reading
    /// enough) completion with its badge, each once: what the history shows now.
    func updateProgress(_ member: MemberRecord, scope: WriteScope) async throws {
        let today = clock.today(in: member.zone)
        guard let campaign = try await campaign(for: today) else { return }
        let reader = ReaderIdentity(member)
        let (status, enrollment) = try await readerStatus(reader, campaign: campaign, today: today)
        guard let enrollment else { return }
        let model = ReadingWidget.model(campaign: campaign, status: status, today: today)
        try await recordProgress(
            member: member, campaign: campaign, enrollment: enrollment, status: status, model: model, today: today,
            scope: scope)
    }

    private func recordProgress(
        member: MemberRecord, campaign: Campaign, enrollment: Enrollment, status: ReaderStatus,
        model: WidgetModel, today: LocalDay, scope: WriteScope
    ) async throws {
        let subject = ReadOwner.member(member.id).key
        if status.readDays.contains(where: { $0 >= enrollment.joinDay }) {
            try await trackMilestone(.firstRead, subject: subject, campaign: campaign.id)
        }
        let summary = StreakSummary(campaign: campaign, status: status, today: today)
        if summary.best >= 7 {
            try await trackMilestone(.streak7, subject: subject, campaign: campaign.id)
        }
        if enrollment.completedOn == nil, let completedOn = model.completedOn {
            if try await store.reading.recordCompletion(
                member.id, campaign: campaign.id, day: completedOn, badgeTitle: Self.badge(campaign).stored,
                now: clock.now(), scope: scope)
            {
                try await widgetChanged(member.id)
                try await track(.completion, subject: subject, campaign: campaign.id, ["day": completedOn.iso])
            }
        }
    }

    // MARK: Join, claim

    /// Joins the current campaign. Logged out: remembers the device's wish and asks to log in.
    public func join(_ reader: ReaderIdentity, source: String = "widget", scope: WriteScope) async throws -> Enrollment?
    {
        let today = clock.today(in: reader.timeZone.timeZone)
        guard let campaign = try await campaign(for: today), campaign.startDay <= today else {
            throw DomainError.conflict(field: nil, message: Message("reading.error.nothingToJoin"))
        }
        guard today <= campaign.endDay else {
            throw DomainError.conflict(
                field: nil, message: Message("reading.error.joinAfterEnd", ["end": .day(campaign.endDay, .long)]))
        }
        guard let member = reader.member else {
            guard let device = reader.deviceID else {
                throw DomainError.unauthenticated(Message("reading.error.logInToJoin"))
            }
            try await store.reading.addPendingJoin(
                device: device, campaign: campaign.id, now: clock.now(), scope: scope)
            return nil
        }
        let (enrollment, created) = try await store.reading.join(
            member.id, campaign: campaign.id, day: today, now: clock.now(), scope: scope)
        if created {
            try await widgetChanged(member.id)
            try await track(.join, subject: ReadOwner.member(member.id).key, campaign: campaign.id, ["source": source])
            try await updateProgress(member, scope: scope)  // reads before joining may already complete it
        }
        return enrollment
    }

    public func claim(_ member: MemberRecord, scope: WriteScope) async throws -> Date {
        let reader = ReaderIdentity(member)
        let today = clock.today(in: reader.timeZone.timeZone)
        guard let campaign = try await campaign(for: today),
            let model = try await widget(for: reader, impression: false),
            let enrollment = try await store.reading.enrollment(member.id, campaign: campaign.id)
        else { throw DomainError.conflict(field: nil, message: Message("reading.error.nothingToClaim")) }
        if let claimed = enrollment.claimedAt {
            throw DomainError.conflict(
                field: nil,
                message: Message(
                    "reading.error.claimedAlready",
                    ["day": .day(LocalDay(claimed, in: member.zone), .long), "time": .time(claimed, member.zoneID)]))
        }
        guard model.completedOn != nil else {
            throw DomainError.conflict(
                field: nil, message: Message("reading.error.notCompleted", ["count": .number(campaign.goalDays)]))
        }
        guard today <= campaign.claimUntilDay else {
            throw DomainError.conflict(
                field: nil, message: Message("reading.error.claimClosed", ["day": .day(campaign.claimUntilDay, .long)]))
        }
        guard try await store.reading.claim(member.id, campaign: campaign.id, now: clock.now(), scope: scope) else {
            throw DomainError.conflict(field: nil, message: Message("reading.error.claimedBefore"))
        }
        try await widgetChanged(member.id)
        try await track(.claim, subject: ReadOwner.member(member.id).key, campaign: campaign.id, [:])
        return clock.now()
    }

    /// After a device signs in: its reads become the member's, and a join it asked for happens.
    public func adoptDevice(_ deviceID: String, member: MemberRecord, scope: WriteScope) async throws {
        guard Self.validDeviceID(deviceID) else { return }
        let pending = try await store.reading.adoptDevice(deviceID, member: member.id, scope: scope)
        try await widgetChanged(member.id)
        let reader = ReaderIdentity(member)
        if !pending.isEmpty {
            _ = try? await join(reader, source: "login", scope: scope)
        }
        try await updateProgress(member, scope: scope)
    }

    public static func validDeviceID(_ id: String) -> Bool {
        (8...64).contains(id.count)
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    // MARK: Articles

    /// Where a list of articles came from.
    public enum ArticleSource: String, Sendable {
        /// The reader's own reads, newest first (no query).
        case history
        /// Wikipedia's search, or a random article from it.
        case wikipedia
        /// The offline pack (Wikipedia is off or did not answer; or suggestions to start with).
        case pack
    }

    /// With a query: Wikipedia's title search, else the pack's. Without: the reader's recent
    /// articles, else suggestions from the pack (a different dozen each day).
    public func search(_ reader: ReaderIdentity, query: String?, language: String = "en", limit: Int = 20)
        async throws -> (articles: [WikiSummary], source: ArticleSource)
    {
        let trimmed = query?.trimmed(newlines: false)
        let limit = min(max(limit, 1), 50)
        if let q = trimmed, !q.isEmpty {
            let (found, source) = await wiki.search(q, language: language, limit: limit)
            return (found, source == .wikipedia ? .wikipedia : .pack)
        }
        if let owner = reader.owner {
            let seen = try await store.reading.seenArticles(owner, matching: nil, limit: limit)
            if !seen.isEmpty {
                var articles: [WikiSummary] = []
                for article in seen {
                    // The summary if it is at hand (cache or pack); never waits for Wikipedia.
                    let known = await wiki.summary(article.title, language: article.language, wait: false)
                    articles.append(
                        known
                            ?? WikiSummary(
                                language: article.language, title: article.title, description: nil, extract: "",
                                thumbnail: article.thumbnailURL.flatMap { WikiImage.secure($0, width: 0, height: 0) }))
                }
                return (articles, .history)
            }
        }
        let day = LocalDay(clock.now(), in: reader.timeZone.timeZone)
        return (await wiki.suggestions(language: language, day: day, count: 12), .pack)
    }

    /// A random article: Wikipedia's, else one from the pack; `pick` is injected for tests.
    public func random(language: String = "en", pick: (Int) -> Int = { Int.random(in: 0..<$0) }) async
        -> WikiSummary?
    {
        await wiki.random(language: language, pick: pick)?.0
    }

    /// An article's summary for its page: cache, pack or Wikipedia (see `WikiContent.summary`).
    /// An article opened now in the reader's zone (the web app's article page reports it): the
    /// read the challenge counts, under the event id the page was given, so that a report sent
    /// twice counts once. Returns whether it was newly recorded.
    @discardableResult
    public func opened(
        _ title: String, language: String, eventID: String, for reader: ReaderIdentity, scope: WriteScope
    ) async throws
        -> Bool
    {
        let summary = await wiki.summary(title, language: language)
        let read = try validate([
            ReadInput(
                eventId: eventID, articleId: WikiSummary.key(summary?.title ?? title),
                title: summary?.title ?? title, language: language, at: clock.now(),
                timeZone: reader.timeZone.identifier, thumbnailUrl: summary?.thumbnail?.source)
        ]) { _ in "" }
        return try await !record(read, for: reader, scope: scope).isEmpty
    }

    public func summary(_ title: String, language: String) async -> WikiSummary? {
        await wiki.summary(title, language: language)
    }

    // MARK: Badges, analytics

    public func badges(_ member: MemberRecord) async throws -> [Badge] { try await store.reading.badges(member.id) }

    /// A tap on one of the widget's actions (`onWidget`), or a share from elsewhere, for the
    /// funnel: under the campaign of the reader's today, with the state the widget showed.
    public func tapped(_ kind: WidgetCTA.Kind, state: String, by reader: ReaderIdentity, onWidget: Bool) async throws {
        guard let subject = reader.subject else { return }
        let campaign = try await campaign(for: clock.today(in: reader.timeZone.timeZone))
        let state = String(state.prefix(40))
        if onWidget {
            try await track(.ctaTap, subject: subject, campaign: campaign?.id, ["cta": kind.rawValue, "state": state])
        }
        if kind == .share { try await track(.share, subject: subject, campaign: campaign?.id, ["state": state]) }
    }

    public func track(_ event: Event, subject: String, campaign: String?, _ properties: [String: String]) async throws {
        try await analytics.add(
            AnalyticsEvent(
                id: ids.makeUUID().uuidString.lowercased(), subject: subject, name: event.rawValue,
                campaign: campaign, properties: properties, at: clock.now()))
    }

    /// Whether a once-only milestone event has been recorded (memo first, then the store).
    private func hasMilestone(_ event: Event, subject: String, campaign: String) async throws -> Bool {
        let key = "\(subject)|\(event.rawValue)|\(campaign)"
        if milestones.contains(key) { return true }
        if try await store.reading.hasEvent(subject: subject, name: event.rawValue, campaign: campaign) {
            milestones.insert(key)
            return true
        }
        return false
    }

    private func trackMilestone(_ event: Event, subject: String, campaign: String) async throws {
        guard !(try await hasMilestone(event, subject: subject, campaign: campaign)) else { return }
        milestones.insert("\(subject)|\(event.rawValue)|\(campaign)")
        try await track(event, subject: subject, campaign: campaign, [:])
    }

    /// The campaign's funnel, for an administrator.
    public func funnel(campaign id: String, as actor: MemberRecord) async throws -> [FunnelStep] {
        try AccessPolicy.check(actor.actor, .administer)
        return try await funnel(campaign: id)
    }

    /// The campaign's funnel for the operator, who holds the database (`questline reading-funnel`).
    public func funnel(campaign id: String) async throws -> [FunnelStep] {
        _ = try await campaign(id: id)
        let counts = try await store.reading.distinctSubjects(campaign: id)
        return Self.funnel.map {
            FunnelStep(
                name: Message("reading.funnel.step.\($0.0)"), event: $0.1.rawValue, members: counts[$0.1.rawValue] ?? 0)
        }
    }
}
