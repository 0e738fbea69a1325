import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore

/// Remembers how far an upload got, so it resumes after an interruption (app killed, network
/// lost) from the first batch the server has not committed.
public protocol UploadProgressStore: Sendable {
    /// How many batches of this import the server has committed.
    func committedBatches(importID: String) async throws -> Int
    func setCommittedBatches(_ count: Int, importID: String) async throws
}

/// Progress kept in memory (tests, or an app that keeps it elsewhere).
public actor InMemoryUploadProgress: UploadProgressStore {
    private var batches: [String: Int] = [:]
    public init() {}
    public func committedBatches(importID: String) -> Int { batches[importID] ?? 0 }
    public func setCommittedBatches(_ count: Int, importID: String) { batches[importID] = count }
}

/// Progress kept in a small JSON file (survives the app being killed).
public actor FileUploadProgress: UploadProgressStore {
    private let url: URL
    public init(url: URL) { self.url = url }

    private func load() -> [String: Int] {
        (try? JSONDecoder().decode([String: Int].self, from: Data(contentsOf: url))) ?? [:]
    }

    public func committedBatches(importID: String) -> Int { load()[importID] ?? 0 }

    public func setCommittedBatches(_ count: Int, importID: String) throws {
        var all = load()
        all[importID] = count
        try JSONEncoder().encode(all).write(to: url, options: .atomic)
    }
}

/// Moves a device's saved history to the server in batches of 500: each batch is committed
/// by the server in one transaction, and only then recorded here as done, so an interrupted
/// upload resumes from the first uncommitted batch and nothing is sent twice to effect (a
/// batch the server already has is acknowledged without change).
public struct SavedHistoryUploader: Sendable {
    public struct Summary: Sendable, Equatable {
        public var batchesSent: Int
        public var imported: Int
        /// Items with neither date, by index in the whole history: shown to the reader, not guessed.
        public var needsDate: [Int]
        public var done: Int
        public var total: Int
    }

    public static let batchSize = 500

    let client: Client
    let importID: String
    let progress: any UploadProgressStore

    /// - Parameter importID: stable for this device's history (e.g. a UUID kept with the progress).
    public init(client: Client, importID: String, progress: any UploadProgressStore) {
        self.client = client
        self.importID = importID
        self.progress = progress
    }

    /// Uploads `items` (the same list, in the same order, on every attempt), calling
    /// `onProgress(done, total)` after each committed batch.
    public func upload(_ items: [LegacySavedItem], onProgress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws
        -> Summary
    {
        let batches = stride(from: 0, to: items.count, by: Self.batchSize).map {
            $0..<min($0 + Self.batchSize, items.count)
        }
        var summary = Summary(batchesSent: 0, imported: 0, needsDate: [], done: 0, total: items.count)
        let start = try await progress.committedBatches(importID: importID)
        for index in batches.indices where index >= start {
            let range = batches[index]
            let body = Components.Schemas.ImportBatch(
                importId: importID, total: items.count, offset: range.lowerBound,
                items: items[range].map {
                    .init(
                        language: $0.language, title: $0.title, savedAt: $0.savedAt,
                        readingListCreatedAt: $0.readingListCreatedAt, readingList: $0.readingList)
                })
            let response = try await client.importSaved(
                headers: .init(Idempotency_hyphen_Key: "\(importID)-\(index)"), body: .json(body))
            let result = try response.ok.body.json
            try await progress.setCommittedBatches(index + 1, importID: importID)
            summary.batchesSent += 1
            summary.imported += result.imported
            summary.needsDate += result.needsDate.map(\.index)
            summary.done = result.progress.done
            onProgress(result.progress.done, result.progress.total)
        }
        if start >= batches.count { summary.done = items.count }
        return summary
    }
}
