import Foundation
import QuestlineCore
import Testing

/// The shipped demo content, read from the server's resources.
private let contentDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Sources/QuestlineFeatures/Resources/stories")

private func shippedFiles() throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in StoryContent.files { files[name] = try Data(contentsOf: contentDirectory.appendingPathComponent(name)) }
    return files
}

private func assetExists(_ path: String) -> Bool {
    FileManager.default.fileExists(
        atPath: contentDirectory.appendingPathComponent("assets").appendingPathComponent(path).path)
}

private func load(_ files: [String: Data]) -> [ContentIssue] {
    switch StoryContent.load(files: files, assetExists: assetExists) {
    case .success: return []
    case .failure(let problems): return problems.issues
    }
}

@Suite struct StoryContentTests {
    @Test func theShippedContentIsValid() throws {
        let content = try StoryContent.load(files: try shippedFiles(), assetExists: assetExists).get()
        #expect(content.stories.count == 8 && content.tracks.count == 8 && content.cards.count == 12)
        #expect(content.stories.allSatisfy { !$0.chapters.isEmpty })
        #expect(content.stories.contains { $0.chapters[0].pages[0].video != nil })
    }

    /// Every page tells its own part of its story: no sentence appears on two pages (before,
    /// every page repeated one filler sentence about its story).
    @Test func everyPageOfTheShippedStoriesSaysSomethingOfItsOwn() throws {
        let content = try StoryContent.load(files: try shippedFiles(), assetExists: assetExists).get()
        var seen: [String: String] = [:]
        for story in content.stories {
            for chapter in story.chapters {
                for (index, page) in chapter.pages.enumerated() {
                    let place = "\(chapter.id) page \(index + 1)"
                    for sentence in page.text.split(separator: ".").map({ $0.trimmingCharacters(in: .whitespaces) })
                    where sentence.count > 20 {
                        #expect(seen[sentence] == nil, "\(place) repeats \(seen[sentence] ?? ""): \(sentence)")
                        seen[sentence] = place
                    }
                }
            }
        }
        #expect(seen.count > 60)
    }

    @Test func everyKindOfProblemIsReportedWithItsFileAndPath() throws {
        var files = try shippedFiles()
        files["help.json"] = nil
        #expect(load(files) == [ContentIssue(file: "help.json", path: "", message: "The file is missing.")])

        files = try shippedFiles()
        files["states.json"] = Data("[{\"code\": \"CA\"".utf8)
        #expect(load(files).map(\.file) == ["states.json"])

        files = try shippedFiles()
        files["tracks.json"] = Data(
            #"[{"id":"x","name":"X","state":"CA","city":"Y","latitude":"north","longitude":1}]"#.utf8)
        #expect(load(files).first?.path == "[0].latitude")

        // Whole-content problems: all of them at once.
        var content = try StoryContent.load(files: try shippedFiles(), assetExists: assetExists).get()
        content.tracks[0] = RaceTrack(
            id: content.tracks[0].id, name: "", state: "ZZ", city: "C", latitude: 91, longitude: 0)
        content.cards.append(content.cards[0])
        let story = content.stories[0]
        content.stories[0] = Story(
            id: story.id, title: story.title, track: "nowhere", description: story.description,
            cover: "https://x/y.png",
            reward: StoryReward(points: 5, card: "no-card", badge: "no-badge"), chapters: [])
        let problems = content.problems(assetExists: assetExists).map { "\($0.file) \($0.path)" }
        for expected in [
            "tracks.json [0].name", "tracks.json [0].state", "tracks.json [0].latitude", "cards.json [12].id",
            "stories.json [0].track", "stories.json [0].cover", "stories.json [0].reward.card",
            "stories.json [0].reward.badge",
            "stories.json [0].chapters",
        ] {
            #expect(problems.contains(expected), "\(expected) not in \(problems)")
        }
        #expect(
            content.problems(assetExists: { _ in false }).contains {
                $0.message.contains("is not in the content's assets")
            })
    }

    @Test func searchMatchesTitleTrackAndDescriptionIgnoringCaseAndAccents() throws {
        let content = try StoryContent.load(files: try shippedFiles(), assetExists: assetExists).get()
        #expect(content.search("ELAN").map(\.id) == ["laguna-seca"])  // "Élan at Laguna Seca"
        #expect(content.search("brickyard").map(\.id) == ["indianapolis"])  // title
        #expect(content.search("circuit of the").map(\.id) == ["cota"])  // track name
        #expect(content.search("corkscrew").map(\.id) == ["laguna-seca"])  // description
        #expect(content.search("zzz").isEmpty)
        #expect(content.search("", preferredTracks: ["texas"]).first?.id == "texas")
        #expect(content.search("").count == content.stories.count)
    }

    @Test func theShopIsOrderedByPriceThenNameAndSearchable() throws {
        let content = try StoryContent.load(files: try shippedFiles(), assetExists: assetExists).get()
        let shop = content.shop()
        #expect(zip(shop, shop.dropFirst()).allSatisfy { ($0.price, $0.name) <= ($1.price, $1.name) })
        #expect(content.shop("FLAG").map(\.name).sorted() == ["Checkered Flag", "Green Flag"])
    }
}
