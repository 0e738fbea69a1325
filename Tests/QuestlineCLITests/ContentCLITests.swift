import ArgumentParser
import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import Testing

@testable import QuestlineCLI

/// `content-import`: the bundled content imports whole; a broken copy imports nothing.
@Suite struct ContentCLITests {
    @Test func aBrokenContentDirectoryImportsNothingAndAValidOneReplacesTheContent() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "questline-content-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("content.sqlite").path

        // A copy of the bundled content with a dangling track and a missing image.
        let broken = dir.appendingPathComponent("broken")
        try FileManager.default.copyItem(at: StoryContentFeature.bundledContent, to: broken)
        var stories =
            try JSONSerialization.jsonObject(with: Data(contentsOf: broken.appendingPathComponent("stories.json")))
            as! [[String: Any]]
        stories[1]["track"] = "atlantis"
        try JSONSerialization.data(withJSONObject: stories).write(to: broken.appendingPathComponent("stories.json"))
        try FileManager.default.removeItem(at: broken.appendingPathComponent("assets/cards/pit-crew.svg"))

        var command = try #require(
            try QuestlineTools.parseAsRoot(["content-import", "--database", database, "--dir", broken.path])
                as? ContentImportCommand)
        await #expect(throws: CommandFailure.self) { try await command.run() }
        let store = try await Store.open(.sqlite(path: database))
        #expect(try await store.stories.content() == nil)
        let service = StoryContentFeature(store: store, configuration: FeatureConfiguration())
        do {
            _ = try await service.importContent(from: broken)
            Issue.record("expected problems")
        } catch let problems as ContentIssues {
            let places = problems.issues.map { "\($0.file) \($0.path)" }
            #expect(places.contains("stories.json [1].track"))
            #expect(places.contains("cards.json [0].image"))
        }
        await store.shutdown()

        command = try #require(
            try QuestlineTools.parseAsRoot(["content-import", "--database", database]) as? ContentImportCommand)
        try await command.run()
        let reopened = try await Store.open(.sqlite(path: database))
        #expect(try await reopened.stories.content()?.content.stories.count == 8)
        let cover = try #require(try await reopened.stories.asset("covers/daytona.svg"))
        #expect(cover.contentType == "image/svg+xml" && String(decoding: cover.bytes, as: UTF8.self).hasPrefix("<svg"))
        await reopened.shutdown()
    }
}
