public import Foundation
public import QuestlineCore
public import QuestlineStore

/// Everything the Activity tab shows.
public struct ActivityView: Sendable {
    public let saved: SavedModule
    public let insights: ReadingInsights
    public let badges: [Badge]
}

/// The result of one import batch.
public struct ImportReport: Sendable {
    public let outcome: ImportOutcome
    /// Items with neither a saved date nor a reading-list date: reported, not imported.
    public let needsDate: [(index: Int, title: String)]
}

/// Activity use cases: save and unsave, the insights, reading time, and saved-history import.
public struct ActivityFeature: Sendable {
    private let store: Store
    public let clock: any WallClock
    /// Summaries, for the images of saved articles.
    let wiki: WikiContent
    public static let maxBatch = 500
    /// The largest import a device may announce (`total`), and so the largest `offset`.
    public static let maxImportItems = 10_000_000

    public init(store: Store, configuration: FeatureConfiguration, wiki: WikiContent? = nil) {
        self.store = store
        clock = configuration.clock
        self.wiki = wiki ?? WikiContent(store: store, configuration: configuration)
    }

    // MARK: Saving

    public func save(
        _ member: MemberRecord, language: String, title: String, list: String?, thumbnailURL: String?, scope: WriteScope
    )
        async throws -> Bool
    {
        var validation = FieldValidation()
        let language = validation.check { () throws(DomainError) in
            try WikiLanguage.validate(language, field: "language")
        }
        let title = validation.check { () throws(DomainError) in try Self.title(title, field: "title") }
        let list = validation.check { () throws(DomainError) in try Self.list(list, field: "readingList") }
        validation.check { () throws(DomainError) in
            if let thumbnailURL,
                !(thumbnailURL.hasPrefix("https://") || thumbnailURL.hasPrefix("http://")) || thumbnailURL.count > 2000
            {
                throw .invalid(field: "thumbnailUrl", Message("activity.error.thumbnailURL"))
            }
        }
        let (checkedLanguage, checkedTitle, checkedList) = try validation.finish(language, title, list)
        // Without an image from the app, the article's own (its summary's), when at hand.
        let image: String?
        if let thumbnailURL {
            image = thumbnailURL
        } else {
            image = await wiki.summary(checkedTitle, language: checkedLanguage, wait: false)?.thumbnail?.source
        }
        return try await store.activity.save(
            member.id, language: checkedLanguage, title: checkedTitle, list: checkedList, thumbnailURL: image,
            at: clock.now(), scope: scope)
    }

    /// Whether the member saved this article (the article page then offers no Save).
    public func isSaved(_ member: MemberRecord, language: String, title: String) async throws -> Bool {
        try await store.activity.isSaved(member.id, language: language, title: title)
    }

    public func unsave(_ member: MemberRecord, language: String, title: String, list: String?, scope: WriteScope)
        async throws -> Int
    {
        let language = try WikiLanguage.validate(language, field: "language")
        let title = try Self.title(title, field: "title")
        let list = try list.map { list throws(DomainError) in try Self.list(list, field: "readingList") }
        let removed = try await store.activity.unsave(
            member.id, language: language, title: title, list: list, scope: scope)
        guard removed > 0 else {
            guard let list, !list.isEmpty else {
                throw DomainError.notFound(Message("activity.error.notSaved", ["title": .text(title)]))
            }
            throw DomainError.notFound(
                Message("activity.error.notSavedInList", ["title": .text(title), "list": .text(list)]))
        }
        return removed
    }

    static func title(_ raw: String, field: String) throws(DomainError) -> String {
        let title = raw.trimmed()
        guard !title.isEmpty, title.count <= 300 else {
            throw .invalid(field: field, Message("activity.error.articleTitle", ["max": .number(300)]))
        }
        return title
    }

    /// "Use 1 to 64 characters."
    static func length(_ max: Int) -> Message {
        Message("input.error.length", ["min": .number(1), "count": .number(max)])
    }

    static func list(_ raw: String?, field: String) throws(DomainError) -> String {
        let list = (raw ?? "").trimmed()
        guard list.count <= 100 else {
            throw .invalid(field: field, Message("input.error.tooLong", ["count": .number(100)]))
        }
        return list
    }

    // MARK: The year (or month) in review

    /// The member's recap of `period` (`YYYY-MM` or `YYYY`; this month when nil), in their local
    /// days: their own data only; a child's includes their quests.
    public func recap(_ member: MemberRecord, period text: String?) async throws -> Recap {
        let zone = member.zone
        let today = clock.today(in: zone)
        let period = try RecapPeriod.validated(text, today: today)
        let last = min(period.last, today)
        let from = period.first.start(in: zone)
        let to = last.adding(days: 1).start(in: zone)
        var facts = try await store.activity.recapFacts(
            member.id, first: period.first, last: last, from: from, to: to, zone: zone)
        if member.role == .child {
            let (rows, app) = try await store.quests.read { q in
                (
                    try await q.reportRows(member.id, first: period.first, last: last, from: from, to: to),
                    try await q.topLearningApp(member.id, first: period.first, last: last)
                )
            }
            facts.child = Recap.Child(
                learningMinutes: rows.learning.values.reduce(0, +), questsCompleted: rows.completions.count,
                pointsEarned: rows.ledger.filter { $0.points > 0 }.reduce(0) { $0 + $1.points },
                pointsSpent: rows.ledger.filter { $0.points < 0 }.reduce(0) { $0 - $1.points }, topApp: app)
        }
        let seconds = facts.intervals.reduce(0) { $0 + min(max($1.seconds, 0), ReadingInterval.maxSeconds) }
        let comparison = try await store.activity.readingComparison(first: period.first, last: last, seconds: seconds)
        return Recap(period: period, today: today, facts: facts, comparison: comparison)
    }

    // MARK: Insights

    public func view(_ member: MemberRecord, locale: Locale) async throws -> ActivityView {
        let now = clock.now()
        let zone = member.zone
        let today = LocalDay(now, in: zone)
        let owner = ReadOwner.member(member.id)
        // 32 days back covers the 30-day window in any zone.
        let since = now.addingTimeInterval(-32 * 86_400)
        let entries = try await withSummaryImages(
            try await store.activity.savedEntries(member.id, since: since, newest: 20))
        let reads = try await store.activity.reads(owner, since: since)
        let intervals = try await store.activity.intervals(owner, from: today.adding(days: -7))
        // The streak can be longer than the window: its days come from the per-day summary.
        let history = try await store.reading.readHistory(owner, from: today.adding(days: -400), through: today)
        let allowances = try await store.reading.streakAllowances(member.id)
        return ActivityView(
            saved: SavedModule(entries: entries, now: now, timeZone: zone, locale: locale),
            insights: ReadingInsights(
                reads: reads, intervals: intervals, saves: entries, streakDays: Array(history.days),
                repairDays: history.repairDays, allowances: allowances, today: today, timeZone: zone),
            badges: try await store.reading.badges(member.id))
    }

    /// Saved entries without an image take their article's summary image: from the cache or
    /// the pack, else fetched in the background for the next visit (never waited for). An
    /// article with no image keeps none.
    func withSummaryImages(_ entries: [SavedEntry]) async throws -> [SavedEntry] {
        var images: [String: String?] = [:]
        var result: [SavedEntry] = []
        for entry in entries {
            guard entry.thumbnailURL == nil else {
                result.append(entry)
                continue
            }
            if images[entry.articleKey] == nil {
                let parts = entry.articleKey.split(separator: "/", maxSplits: 1)
                images[entry.articleKey] =
                    parts.count == 2
                    ? await wiki.summary(String(parts[1]), language: String(parts[0]), wait: false)?.thumbnail?.source
                    : nil
            }
            result.append(
                SavedEntry(
                    articleKey: entry.articleKey, savedAt: entry.savedAt, thumbnailURL: images[entry.articleKey] ?? nil)
            )
        }
        return result
    }

    /// Reading intervals from a client; each is capped at an hour and never negative, and may
    /// name the article it was spent on (the year in review ranks articles by it).
    public func recordTime(
        _ owner: ReadOwner,
        intervals: [(eventID: String, start: Date, end: Date, timeZone: String, article: String?)], scope: WriteScope
    ) async throws -> Int {
        var issues: [FieldIssue] = []
        var rows: [(eventID: String, start: Date, seconds: Int, day: LocalDay, article: String?)] = []
        for (index, interval) in intervals.enumerated() {
            if interval.eventID.isEmpty || interval.eventID.count > 64 {
                issues.append(FieldIssue(field: "intervals[\(index)].eventId", message: Self.length(64)))
            }
            if interval.end.timeIntervalSince(clock.now()) > ReadingHistory.allowedClockSkew {
                issues.append(
                    FieldIssue(field: "intervals[\(index)].end", message: Message("activity.error.intervalInFuture")))
            }
            if let found = DateWindow.readingIssue(interval.start, field: "intervals[\(index)].start") {
                issues.append(found)
            }
            if let article = interval.article, article.isEmpty || article.count > 300 {
                issues.append(
                    FieldIssue(field: "intervals[\(index)].articleId", message: Self.length(300)))
            }
            guard let zone = TimeZoneID(interval.timeZone) else {
                issues.append(
                    FieldIssue(field: "intervals[\(index)].timeZone", message: Message("input.error.timeZoneName")))
                continue
            }
            rows.append(
                (
                    interval.eventID, interval.start, ReadingInterval.clamp(start: interval.start, end: interval.end),
                    LocalDay(interval.start, in: zone.timeZone), interval.article
                ))
        }
        if !issues.isEmpty { throw DomainError.invalid(issues) }
        return try await store.activity.recordIntervals(owner, rows, scope: scope)
    }

    /// A page of the member's saved articles, newest first, and how many there are in all.
    public func saved(_ member: MemberRecord, page: Paging) async throws -> (total: Int, articles: [SavedArticle]) {
        (
            try await store.activity.savedCount(member.id),
            try await store.activity.savedArticles(member.id, limit: page.limit, offset: page.offset)
        )
    }

    // MARK: Import

    /// Validates and commits one batch of a device's saved history. Structural problems refuse
    /// the whole batch naming the item; items without any date are reported back, not guessed.
    public func importBatch(
        _ member: MemberRecord, importID: String, total: Int, offset: Int, items: [LegacySavedItem], scope: WriteScope
    )
        async throws -> ImportReport
    {
        var issues: [FieldIssue] = []
        if importID.isEmpty || importID.count > 64 {
            issues.append(FieldIssue(field: "importId", message: Self.length(64)))
        }
        if items.count > Self.maxBatch {
            issues.append(
                FieldIssue(
                    field: "items", message: Message("activity.error.importBatch", ["count": .number(Self.maxBatch)])))
        }
        if total < items.count || total > Self.maxImportItems {
            issues.append(FieldIssue(field: "total", message: Message("activity.error.importTotal")))
        }
        // `offset` is checked against its range before any arithmetic: Int.max + 1 traps.
        if !(0...Self.maxImportItems).contains(offset) || offset + items.count > max(total, items.count) {
            issues.append(FieldIssue(field: "offset", message: Message("activity.error.importOffset")))
        }
        let now = clock.now()
        var valid: [ImportItem] = []
        var needsDate: [(Int, String)] = []
        for (index, item) in items.enumerated() where issues.count < 50 {
            let field = "items[\(index)]"
            var validation = FieldValidation()
            let language = validation.check { () throws(DomainError) in
                try WikiLanguage.validate(item.language, field: field + ".language")
            }
            let title = validation.check { () throws(DomainError) in try Self.title(item.title, field: field + ".title")
            }
            let list = validation.check { () throws(DomainError) in
                try Self.list(item.readingList, field: field + ".readingList")
            }
            for (date, name) in [(item.savedAt, "savedAt"), (item.readingListCreatedAt, "readingListCreatedAt")] {
                if let date, date.timeIntervalSince(now) > ReadingHistory.allowedClockSkew {
                    issues.append(
                        FieldIssue(field: "\(field).\(name)", message: Message("activity.error.instantInFuture")))
                } else if let date, let found = DateWindow.readingIssue(date, field: "\(field).\(name)") {
                    issues.append(found)
                }
            }
            issues += validation.issues
            guard let language, let title, let list else { continue }
            guard let savedAt = item.effectiveSavedAt else {
                needsDate.append((offset + index, title))
                continue
            }
            valid.append(ImportItem(language: language, title: title, list: list, savedAt: savedAt))
        }
        if !issues.isEmpty { throw DomainError.invalid(issues) }
        let outcome = try await store.activity.importBatch(
            member.id, importID: importID, batchStart: offset, total: total, items: valid,
            batchSize: items.count, now: now, scope: scope)
        return ImportReport(outcome: outcome, needsDate: needsDate)
    }
}
