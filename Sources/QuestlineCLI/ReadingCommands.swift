import ArgumentParser
import Foundation
import QuestlineCore

/// `questline widget-preview`: the widget model for any campaign, history, time zone and
/// instant, without a server. The interface is fixed for QA scripts.
struct WidgetPreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widget-preview",
        abstract: "Print the reading-challenge widget model for a campaign, a reader's history, a time zone and an instant.",
        discussion: """
            CAMPAIGN.json: {"id", "startDay", "endDay", "goalDays", "claimUntilDay", "removeAfterDay", \
            "continueActiveStreakAfterEnd", "freezes"}. HISTORY.json: {"joinedAt": instant or null, \
            "reads": [{"at": instant, "timeZone": "Europe/Paris"}, …]} (optional "loggedIn": false). \
            Prints one JSON object with state, streak, freezesLeft, copy, illustration, color and ctas. \
            Bad input exits with status 2 and a message on stderr.
            """)

    @Option(help: ArgumentHelp("The campaign file.", valueName: "CAMPAIGN.json")) var campaign: String
    @Option(help: ArgumentHelp("The reader's history file.", valueName: "HISTORY.json")) var history: String
    @Option(help: ArgumentHelp("The instant to preview.", valueName: "2026-05-10T08:30:00Z")) var now: String
    @Option(help: ArgumentHelp("The reader's IANA time zone now.", valueName: "Europe/Paris")) var timeZone: String

    func run() throws {
        guard let instant = try? Date(now, strategy: .iso8601) else { throw ValidationError("--now must be an ISO 8601 instant like 2026-05-10T08:30:00Z.") }
        guard let zone = TimeZoneID(timeZone) else { throw ValidationError("--time-zone \"\(timeZone)\" is not an IANA time zone (e.g. Europe/Paris).") }
        let model: WidgetModel
        do {
            let loaded = try Campaign.decode(try read(campaign))
            let status = try ReadingHistory.decode(try read(history)).status(now: instant, timeZone: zone)
            model = ReadingWidget.model(campaign: loaded, status: status, today: LocalDay(instant, in: zone.timeZone))
        } catch let error as DomainError {
            throw ValidationError(GameQuestionsCommand.message(error))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(model), as: UTF8.self))
    }

    private func read(_ path: String) throws -> Data {
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
        }
    }
}
