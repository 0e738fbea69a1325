import ArgumentParser
import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// `questline game-questions`: the day's five questions from a feed file, for QA scripts.
/// The output is fixed: `{"questions": [{"first": {"year": …, "text": …}, "second": {…}}, …]}`.
struct GameQuestionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "game-questions",
        abstract: "Print the five \"Which came first?\" questions a feed file gives for a date, as JSON.",
        discussion: """
            Uses the same selection as the Wikipedia Android app. Prints one JSON object: \
            {"questions": [{"first": {"year": 1944, "text": "…"}, "second": {"year": 1941, "text": "…"}}, …]} \
            with first = Android's event1. Exits with status 3 when fewer than 2 events are eligible \
            (no game that day), 2 on bad input.
            """)

    @Option(help: ArgumentHelp("An \"On this day\" feed file (the REST feed's JSON).", valueName: "FEED.json"))
    var feed: String
    @Option(help: ArgumentHelp("The game's date.", valueName: "YYYY-MM-DD")) var date: String
    @Option(help: "The game's language (en, de, fr, es, pt, ru, ar, tr, zh-…).") var language = "en"

    func run() throws {
        guard let day = LocalDay(iso: date) else { throw ValidationError("--date must look like 2026-02-06.") }
        do { _ = try GameLanguage(language) } catch { throw ValidationError("--language: \(Self.message(error))") }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: feed)) } catch {
            throw CommandFailure("Cannot read \(feed): \(error.localizedDescription)")
        }
        let parsed: OnThisDayFeed
        do { parsed = try OnThisDayFeed.decode(data) } catch { throw CommandFailure("\(feed): \(Self.message(error))") }
        switch QuestionBuilder.build(parsed, date: day) {
        case .notEnoughEvents(let eligible):
            FileHandle.standardError.write(
                Data(
                    "No game is available for \(day.iso): \(eligible) eligible event\(eligible == 1 ? "" : "s"), at least 2 are needed.\n"
                        .utf8))
            throw ExitCode(3)
        case .questions(let questions):
            print(Self.json(questions))
        }
    }

    /// The fixed output, keys in the documented order.
    static func json(_ questions: [GameQuestion]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        func text(_ value: String) -> String {
            String(decoding: try! encoder.encode(value), as: UTF8.self)
        }
        func event(_ event: GameEvent) -> String { #"{"year": \#(event.year), "text": \#(text(event.text))}"# }
        let items = questions.map { #"{"first": \#(event($0.first)), "second": \#(event($0.second))}"# }
        return #"{"questions": ["# + items.joined(separator: ", ") + "]}"
    }

    static func message(_ error: any Error) -> String {
        // The tools speak to operators in English (decisions.md, "Every reader in their own language").
        if case .invalid(let issues)? = error as? DomainError {
            return issues.map { Localizer.english($0.message) }.joined(separator: " ")
        }
        if let domain = error as? DomainError { return Localizer.english(domain.message) }
        return "\(error)"
    }
}

/// `questline game-import`: store a feed file for offline and air-gapped use.
struct GameImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "game-import",
        abstract: "Store an \"On this day\" feed file as the feed of a language and calendar day.",
        discussion: """
            The whole file is checked first: a malformed feed is reported and nothing is imported. \
            Imported feeds are used as they are (never refetched), so a server without network \
            access can offer those days' games.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("The feed file.", valueName: "FEED.json")) var feed: String
    @Option(help: ArgumentHelp("The calendar day it is for (a year, if given, is ignored).", valueName: "MM-DD"))
    var date: String
    @Option(help: "The feed's language (en, de, fr, es, pt, ru, ar, tr, zh-…).") var language = "en"

    func run() async throws {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard (2...3).contains(parts.count), date.split(separator: "-").count == parts.count else {
            throw ValidationError("--date must look like 10-30 (or 2026-10-30).")
        }
        let (month, day) = (parts[parts.count - 2], parts[parts.count - 1])
        let gameLanguage: GameLanguage
        do { gameLanguage = try GameLanguage(language) } catch {
            throw ValidationError("--language: \(GameQuestionsCommand.message(error))")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: feed)) } catch {
            throw CommandFailure("Cannot read \(feed): \(error.localizedDescription)")
        }
        let opened = try await Store.open(store.location)
        do {
            let service = GameFeature(store: opened, configuration: FeatureConfiguration())
            let count = try await service.importFeed(data, language: gameLanguage, month: month, day: day)
            say("Imported \(count) events for \(gameLanguage.code) \(month)/\(day) into \(store.location).")
        } catch {
            await opened.shutdown()
            throw CommandFailure("Nothing imported: \(GameQuestionsCommand.message(error))")
        }
        await opened.shutdown()
    }
}

/// A command that could not do its work: printed as "Error: …", exit status 1, no usage text.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
