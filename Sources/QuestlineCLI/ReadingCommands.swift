import ArgumentParser
import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// `questline widget-preview`: the widget model for any campaign, history, time zone and
/// instant, without a server. The interface is fixed for QA scripts.
struct WidgetPreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widget-preview",
        abstract:
            "Print the reading-challenge widget model for a campaign, a reader's history, a time zone and an instant.",
        discussion: """
            CAMPAIGN.json: {"id", "startDay", "endDay", "goalDays", "claimUntilDay", "removeAfterDay", \
            "continueActiveStreakAfterEnd", "freezes", "freezeEveryDays", "maxFreezesHeld", "title"}.

            HISTORY.json (the same shape the web preview /reading/preview takes; every key but \
            "reads" is optional, and an unknown key is refused):
              "joinedAt": an instant (2026-05-02T09:00:00Z) or null: when the reader joined;
              "completedOn": a day (2026-05-25): a completion already recorded;
              "claimed": true or false (default false): the prize was claimed;
              "loggedIn": true or false (default true): false previews a signed-out device;
              "reads": [{"at": instant, "timeZone": "Europe/Paris"}, …]: each article read (three \
            on one day can repair a missed day);
              "restDays": [6, 7]: at most two weekdays, 1 = Monday, in force on every day;
              "pauses": [{"start": "2026-05-10", "end": "2026-05-12"}, …]: never overlapping, at \
            most 14 paused days in a calendar year (the live rule).

            Prints one JSON object with state, streak, freezesLeft, copy, illustration, color, ctas, \
            goalInReach and reachableStreak; the copy and the buttons' labels in --language (English by \
            default). Bad input exits with status 2 and a message naming the field.
            """)

    @Option(help: ArgumentHelp("The campaign file.", valueName: "CAMPAIGN.json")) var campaign: String
    @Option(help: ArgumentHelp("The reader's history file.", valueName: "HISTORY.json")) var history: String
    @Option(help: ArgumentHelp("The instant to preview.", valueName: "2026-05-10T08:30:00Z")) var now: String
    @Option(help: ArgumentHelp("The reader's IANA time zone now.", valueName: "Europe/Paris")) var timeZone: String
    @Option(
        help: ArgumentHelp(
            "The language of the copy (en, de, fr, es, pt, ru, ar, tr, zh-Hans, zh-Hant).", valueName: "en"))
    var language: String = "en"

    func run() throws {
        guard let instant = try? Date(now, strategy: .iso8601) else {
            throw ValidationError("--now must be an ISO 8601 instant like 2026-05-10T08:30:00Z.")
        }
        guard let words = Language(language) else {
            throw ValidationError(
                "--language \"\(language)\" is not one Questline speaks: \(Language.shipped.map(\.code).joined(separator: ", "))."
            )
        }
        guard let zone = TimeZoneID(timeZone) else {
            throw ValidationError("--time-zone \"\(timeZone)\" is not an IANA time zone (e.g. Europe/Paris).")
        }
        let model: WidgetModel
        do {
            let loaded = try Campaign.decode(try read(campaign))
            model = try ReadingHistory.decode(try read(history)).preview(campaign: loaded, now: instant, timeZone: zone)
        } catch let error as DomainError {
            throw ValidationError(GameQuestionsCommand.message(error))
        }
        print(try Self.json(model, localizer: Localizer(words)))
    }

    /// The model as JSON, its words (the copy, the buttons' labels) rendered by `l`.
    static func json(_ model: WidgetModel, localizer l: Localizer) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var object = try JSONSerialization.jsonObject(with: try encoder.encode(model)) as? [String: Any] else {
            return "{}"
        }
        object["copy"] = ["title": l(model.copy.title), "body": l(model.copy.body)]
        object["ctas"] = model.ctas.map { ["kind": $0.kind.rawValue, "label": l($0.label), "target": $0.target] }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private func read(_ path: String) throws -> Data {
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
        }
    }
}

/// `questline reading-funnel`: the challenge funnel for an admin, from the database.
struct ReadingFunnelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reading-funnel",
        abstract:
            "Print a reading campaign's funnel: widget impressions, joins, first read, 7-day streak, completion, claim.",
        discussion:
            "Counts distinct readers (members, or devices not signed in) at each step. --json prints one JSON object.")

    @OptionGroup var store: StoreOptions
    @Option(help: "The campaign id (e.g. 2026).") var campaign: String
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        let opened = try await Store.open(store.location)
        let steps: [FunnelStep]
        do {
            steps = try await ReadingFeature(store: opened, configuration: FeatureConfiguration())
                .funnel(campaign: campaign)
        } catch {
            await opened.shutdown()
            throw CommandFailure(GameQuestionsCommand.message(error))
        }
        await opened.shutdown()
        if json {
            let items = steps.map {
                #"{"name": "\#(Localizer.english($0.name))", "event": "\#($0.event)", "members": \#($0.members)}"#
            }
            say(#"{"campaignId": "\#(campaign)", "steps": ["# + items.joined(separator: ", ") + "]}")
        } else {
            let top = max(steps.first?.members ?? 0, 1)
            say("Funnel of campaign \(campaign)")
            for step in steps {
                let share = Double(step.members) * 100 / Double(top)
                say(
                    "  " + Localizer.english(step.name).padding(toLength: 20, withPad: " ", startingAt: 0)
                        + String(step.members).leftPadded(8)
                        + String(format: "%7.1f%%", share))
            }
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

/// `questline wiki-import`: adds summaries to the offline pack (search, random and article
/// pages use it when Wikipedia is off or does not answer).
struct WikiImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wiki-import",
        abstract: "Add Wikipedia summaries to the offline pack.",
        discussion: """
            FILE is {"language": "en", "summaries": [{"title": …, "extract": …, "description": …, \
            "thumbnail": {"source": "https://upload.wikimedia.org/…", "width": …, "height": …}}]}, \
            the shape of Sources/QuestlineFeatures/Resources/wiki/en.json. The whole file is checked \
            first: every problem is reported and nothing is imported. An imported summary replaces \
            a bundled one of the same title.
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The pack file.", valueName: "FILE")) var file: String

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw CommandFailure("Cannot read \(file): \(error.localizedDescription)")
        }
        // Checked before the database is opened: a bad file touches nothing.
        let count: Int
        do { count = try WikiPack.decodeFile(data).count } catch {
            throw CommandFailure("Nothing imported from \(file):\n" + error.description)
        }
        say("Checked \(count) summaries; importing…")
        let opened = try await Store.open(store.location)
        do {
            let imported = try await WikiContent(store: opened, configuration: FeatureConfiguration()).importPack(data)
            say("Imported \(imported) summaries into \(store.location).")
        } catch {
            await opened.shutdown()
            throw CommandFailure("Nothing imported: \(GameQuestionsCommand.message(error))")
        }
        await opened.shutdown()
    }
}
