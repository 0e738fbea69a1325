import ArgumentParser
import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// `questline saved-import`: import a device's saved history for a member, from a file, in
/// batches of 500, with progress; resumable (committed batches are skipped).
struct SavedImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "saved-import",
        abstract: "Import legacy saved articles for a member from a JSON file, in batches of 500, with progress.",
        discussion: """
            ITEMS.json: [{"language": "en", "title": "Octopus", "savedAt": instant or null, \
            "readingListCreatedAt": instant or null, "readingList": "name"}, …]. An item without \
            savedAt uses readingListCreatedAt; with neither it is reported and not imported. Running \
            the same file again with the same --import-id changes nothing.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("The items file.", valueName: "ITEMS.json")) var file: String
    @Option(help: "The member's e-mail or username.") var member: String
    @Option(help: "Names this import; the same id resumes it.") var importId = "cli"

    func run() async throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let items: [LegacySavedItem]
        do {
            items = try decoder.decode([LegacySavedItem].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw CommandFailure("Cannot read \(file): \(error)")
        }
        let opened = try await Store.open(store.location)
        do {
            guard let (record, _) = try await opened.accounts.credentials(login: member) else {
                throw CommandFailure("No member \(member).")
            }
            let service = ActivityFeature(store: opened, configuration: FeatureConfiguration())
            var imported = 0
            var needsDate: [(Int, String)] = []
            for start in stride(from: 0, to: items.count, by: ActivityFeature.maxBatch) {
                let batch = Array(items[start..<min(start + ActivityFeature.maxBatch, items.count)])
                let report = try await service.importBatch(
                    record, importID: importId, total: items.count, offset: start, items: batch,
                    scope: .member(record.id))
                imported += report.outcome.imported
                needsDate += report.needsDate
                say(
                    "Progress: \(report.outcome.done) / \(report.outcome.total)\(report.outcome.alreadyCommitted ? " (batch already imported)" : "")"
                )
            }
            say("Imported \(imported) saved articles for \(member).")
            if !needsDate.isEmpty {
                say("\(needsDate.count) items have no saved date and no reading-list date and were not imported:")
                for (index, title) in needsDate.prefix(50) { say("  #\(index): \(title)") }
            }
        } catch {
            await opened.shutdown()
            throw CommandFailure(GameQuestionsCommand.message(error))
        }
        await opened.shutdown()
    }
}
