import ArgumentParser
import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// `questline content-import`: loads a track-stories content directory into the store.
struct ContentImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content-import",
        abstract:
            "Import track-stories content (states, tracks, stories, cards, badges, achievements, daily tasks, help and their assets).",
        discussion: """
            The directory holds states.json, tracks.json, stories.json, badges.json, achievements.json, \
            cards.json, daily-tasks.json, help.json and an assets/ folder with every image and video they \
            name. Everything is checked first; every problem is listed with its file and path, and then \
            nothing is imported. A valid import replaces the current content as a whole. Without --dir, \
            the content bundled with the server is imported.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("The content directory.", valueName: "DIR")) var dir: String?

    func run() async throws {
        let directory = dir.map { URL(fileURLWithPath: $0) } ?? StoryContentFeature.bundledContent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw ValidationError("--dir: \(directory.path) is not a directory.")
        }
        let opened = try await Store.open(store.location)
        do {
            say("Checking \(directory.path)...")
            let summary = try await StoryContentFeature(store: opened, configuration: FeatureConfiguration())
                .importContent(from: directory)
            say(
                "Imported \(summary.stories) stories, \(summary.tracks) tracks, \(summary.cards) cards and \(summary.assets) assets into \(store.location)."
            )
        } catch let problems as ContentIssues {
            await opened.shutdown()
            for issue in problems.issues { FileHandle.standardError.write(Data("  \(issue)\n".utf8)) }
            throw CommandFailure(
                "Nothing imported: \(problems.issues.count) problem\(problems.issues.count == 1 ? "" : "s") in the content."
            )
        } catch {
            await opened.shutdown()
            throw error
        }
        await opened.shutdown()
    }
}
