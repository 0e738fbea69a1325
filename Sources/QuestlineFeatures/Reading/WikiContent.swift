public import Foundation
public import Logging
import NIOConcurrencyHelpers
public import QuestlineCore
public import QuestlineStore

/// Articles for reading, saved articles and the game: Wikipedia first (`WikiFetching`), then
/// the offline pack (bundled summaries and those imported with `questline wiki-import`).
///
/// Summaries read from Wikipedia are kept in the database for `lifetime`. A stale one is
/// served at once while a refresh runs in the background, and one that was never read is
/// fetched in the background when the caller cannot wait, so a slow Wikipedia never holds up
/// a page or the widget.
public final class WikiContent: Sendable {
    /// Where a list of articles came from.
    public enum Source: String, Sendable {
        case wikipedia, pack
    }

    let client: (any WikiFetching)?
    let store: WikiStore
    let clock: any WallClock
    let logger: Logger
    let bundled: [WikiSummary]
    /// How long a summary read from Wikipedia is served without asking again.
    public static let lifetime: TimeInterval = 7 * 86_400
    /// The bundled and imported summaries, re-read from the database every minute (an import
    /// on any instance shows everywhere within a minute, and at once on the importing one).
    private let pack = NIOLockedValueBox<(pack: WikiPack, loadedAt: Date?)>((WikiPack([]), nil))
    /// Titles being fetched in the background: one fetch each at a time.
    private let inFlight = NIOLockedValueBox<Set<String>>([])

    public init(store: Store, configuration: FeatureConfiguration, logger: Logger = Logger(label: "questline.wiki")) {
        client = configuration.wikiFetcher
        self.store = store.wiki
        clock = configuration.clock
        self.logger = logger
        bundled = Self.loadBundled()
    }

    /// The bundled pack: `Resources/wiki/*.json` (real summaries from Wikipedia, CC BY-SA 4.0).
    static func loadBundled() -> [WikiSummary] {
        let folder = Bundle.module.bundleURL.appendingPathComponent("Resources/wiki")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }.flatMap { file in
            (try? Data(contentsOf: file)).flatMap { try? WikiPack.decodeFile($0) } ?? []
        }
    }

    /// Whether Wikipedia itself is asked (`--wiki-url` is not `none`).
    public var online: Bool { client != nil }

    func currentPack() async -> WikiPack {
        let now = clock.now()
        let (current, loadedAt) = pack.withLockedValue { $0 }
        if let loadedAt, now.timeIntervalSince(loadedAt) < 60, now >= loadedAt { return current }
        let imported: [WikiSummary]
        do { imported = try await store.imported() } catch {
            logger.warning("Imported summaries unreadable", metadata: ["error": "\(error)"])
            return loadedAt == nil ? WikiPack(bundled) : current
        }
        // Imported summaries replace bundled ones of the same title.
        let importedKeys = Set(imported.map { "\($0.language)|\($0.title.lowercased())" })
        let fresh = WikiPack(
            imported + bundled.filter { !importedKeys.contains("\($0.language)|\($0.title.lowercased())") })
        pack.withLockedValue { $0 = (fresh, now) }
        return fresh
    }

    // MARK: Search and random

    /// Articles matching `query`: Wikipedia's title search, else the pack's.
    public func search(_ query: String, language: String, limit: Int) async -> ([WikiSummary], Source) {
        if let client {
            do {
                return (try await client.search(query, language: language, limit: limit), .wikipedia)
            } catch {
                logger.debug("Search falls back to the pack", metadata: ["error": "\(error)"])
            }
        }
        return (await currentPack().search(query, language: language, limit: limit), .pack)
    }

    /// A random article: Wikipedia's, else one of the pack's. Kept in the cache, since the
    /// reader opens it next.
    public func random(language: String, pick: (Int) -> Int = { Int.random(in: 0..<$0) }) async -> (
        WikiSummary, Source
    )? {
        if let client {
            do {
                let summary = try await client.random(language: language)
                try? await store.cache(summary, now: clock.now())
                return (summary, .wikipedia)
            } catch {
                logger.debug("Random falls back to the pack", metadata: ["error": "\(error)"])
            }
        }
        return await currentPack().random(language: language, pick: pick).map { ($0, .pack) }
    }

    /// A dozen pack articles with images to start from, a different set each day.
    public func suggestions(language: String, day: LocalDay, count: Int) async -> [WikiSummary] {
        let pictured = await currentPack().summaries.filter { $0.language == language && $0.thumbnail != nil }
        guard !pictured.isEmpty else { return [] }
        let start = (day.dayNumber * count) % pictured.count
        return (0..<min(count, pictured.count)).map { pictured[(start + $0) % pictured.count] }
    }

    // MARK: Summaries

    /// The summary of an article: the cache (a stale copy refreshed in the background), else
    /// the pack, else Wikipedia. With `wait` false, a summary that is in neither the cache nor
    /// the pack is fetched in the background and nil is returned now.
    public func summary(_ title: String, language: String, wait: Bool = true) async -> WikiSummary? {
        let now = clock.now()
        let cached = try? await store.summary(title, language: language)
        if let cached {
            if !cached.imported, now.timeIntervalSince(cached.fetchedAt) > Self.lifetime {
                refreshInBackground(title, language: language)
            }
            return cached.summary
        }
        if let packed = await currentPack().summary(title, language: language) { return packed }
        guard client != nil else { return nil }
        if !wait {
            refreshInBackground(title, language: language)
            return nil
        }
        return await fetch(title, language: language)
    }

    /// Asks Wikipedia and keeps the answer; nil when it has no such article or cannot answer.
    @discardableResult
    func fetch(_ title: String, language: String) async -> WikiSummary? {
        guard let client else { return nil }
        do {
            guard let summary = try await client.summary(title, language: language) else { return nil }
            try await store.cache(summary, asked: title, now: clock.now())
            return summary
        } catch {
            logger.debug("Summary not fetched", metadata: ["title": "\(title)", "error": "\(error)"])
            return nil
        }
    }

    private func refreshInBackground(_ title: String, language: String) {
        let key = "\(language)|\(title.lowercased())"
        guard inFlight.withLockedValue({ $0.insert(key).inserted }) else { return }
        Task {
            await self.fetch(title, language: language)
            self.inFlight.withLockedValue { _ = $0.remove(key) }
        }
    }

    /// Waits for the background fetches started so far (tests).
    public func settle() async {
        while !inFlight.withLockedValue({ $0.isEmpty }) { try? await Task.sleep(for: .milliseconds(10)) }
    }

    // MARK: Import

    /// Adds a pack file's summaries to the offline pack; a file with any problem imports nothing.
    public func importPack(_ data: Data) async throws -> Int {
        let summaries: [WikiSummary]
        do { summaries = try WikiPack.decodeFile(data) } catch {
            throw DomainError.invalid(
                field: "file", Message("reading.error.packFile", ["reason": .text(error.description)]))
        }
        try await store.importPack(summaries, now: clock.now())
        pack.withLockedValue { $0.loadedAt = nil }
        return summaries.count
    }
}
