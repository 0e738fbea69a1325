public import Foundation
public import QuestlineCore
public import QuestlineStore

/// Track stories: content import (validated as a whole, all or nothing) and the content the
/// screens read.
public struct StoryContentFeature: Sendable {
    private let store: Store
    public let clock: any WallClock

    public init(store: Store, configuration: FeatureConfiguration) {
        self.store = store
        clock = configuration.clock
    }

    /// An image or video of the content, by its path under `assets/`.
    public func asset(_ path: String) async throws -> StoryAsset? {
        guard !path.isEmpty, !path.contains("..") else { return nil }
        return try await store.stories.asset(path)
    }

    /// The content bundled with the server (demo content).
    public static var bundledContent: URL { Bundle.module.bundleURL.appendingPathComponent("Resources/stories") }

    /// Asset types the content may ship, by file extension.
    static let contentTypes = [
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp",
        "mp4": "video/mp4", "webm": "video/webm",
    ]

    /// What an import did.
    public struct ImportSummary: Sendable {
        public let stories: Int
        public let tracks: Int
        public let cards: Int
        public let assets: Int
    }

    /// Reads a content directory (the JSON files and `assets/`), validates everything and
    /// stores it, replacing what was there; any problem (listed with file and path) and
    /// nothing is stored.
    public func importContent(from directory: URL) async throws -> ImportSummary {
        var files: [String: Data] = [:]
        for name in StoryContent.files {
            if let data = try? Data(contentsOf: directory.appendingPathComponent(name)) { files[name] = data }
        }
        let assetsRoot = directory.appendingPathComponent("assets")
        var assets: [String: StoryAsset] = [:]
        var unreadable: [ContentIssue] = []
        if let walker = FileManager.default.enumerator(at: assetsRoot, includingPropertiesForKeys: [.isRegularFileKey])
        {
            for case let url as URL in walker
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let relative = String(
                    url.standardizedFileURL.path.dropFirst(assetsRoot.standardizedFileURL.path.count + 1))
                guard let type = Self.contentTypes[url.pathExtension.lowercased()] else {
                    unreadable.append(
                        ContentIssue(
                            file: "assets/" + relative, path: "",
                            message: "Ship images as SVG, PNG, JPEG or WebP, videos as MP4 or WebM."))
                    continue
                }
                guard let bytes = try? Data(contentsOf: url), bytes.count <= 5 << 20 else {
                    unreadable.append(
                        ContentIssue(file: "assets/" + relative, path: "", message: "Unreadable, or larger than 5 MiB.")
                    )
                    continue
                }
                assets[relative] = StoryAsset(path: relative, contentType: type, bytes: [UInt8](bytes))
            }
        }
        let content: StoryContent
        switch StoryContent.load(files: files, assetExists: { assets[$0] != nil }) {
        case .success(let loaded) where unreadable.isEmpty: content = loaded
        case .success: throw ContentIssues(issues: unreadable)
        case .failure(let problems): throw ContentIssues(issues: problems.issues + unreadable)
        }
        try await store.stories.replaceContent(
            content, assets: assets.values.sorted { $0.path < $1.path }, now: clock.now())
        return ImportSummary(
            stories: content.stories.count, tracks: content.tracks.count, cards: content.cards.count,
            assets: assets.count)
    }

    /// Imports the bundled demo content when the store has none yet.
    public func installBundledContentIfEmpty() async throws {
        if try await store.stories.content() == nil { _ = try await importContent(from: Self.bundledContent) }
    }
}
