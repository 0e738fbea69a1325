public import Foundation

/// A US state (or another region) a fan can follow.
public struct StoryState: Sendable, Equatable, Codable {
    public let code: String
    public let name: String

    public init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

/// A race track, with where it is (pins on the stories map).
public struct RaceTrack: Sendable, Equatable, Codable {
    public let id: String
    public let name: String
    public let state: String
    public let city: String
    public let latitude: Double
    public let longitude: Double

    public init(id: String, name: String, state: String, city: String, latitude: Double, longitude: Double) {
        self.id = id
        self.name = name
        self.state = state
        self.city = city
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// One page of a chapter: text, an image, and optionally a video.
public struct StoryPage: Sendable, Equatable, Codable {
    public let text: String
    public let image: String
    public let video: String?

    public init(text: String, image: String, video: String?) {
        self.text = text
        self.image = image
        self.video = video
    }
}

public struct StoryChapter: Sendable, Equatable, Codable {
    public let id: String
    public let title: String
    public let pages: [StoryPage]

    public init(id: String, title: String, pages: [StoryPage]) {
        self.id = id
        self.title = title
        self.pages = pages
    }
}

/// What collecting a story's rewards (after a selfie at the track) grants, once.
public struct StoryReward: Sendable, Equatable, Codable {
    public let points: Int
    public let card: String?
    public let badge: String?

    public init(points: Int, card: String?, badge: String?) {
        self.points = points
        self.card = card
        self.badge = badge
    }
}

public struct Story: Sendable, Equatable, Codable {
    public let id: String
    public let title: String
    public let track: String
    public let description: String
    public let cover: String
    public let reward: StoryReward
    public let chapters: [StoryChapter]

    public init(
        id: String, title: String, track: String, description: String, cover: String, reward: StoryReward,
        chapters: [StoryChapter]
    ) {
        self.id = id
        self.title = title
        self.track = track
        self.description = description
        self.cover = cover
        self.reward = reward
        self.chapters = chapters
    }
}

public struct StoryBadge: Sendable, Equatable, Codable {
    public let id: String
    public let title: String
    public let description: String
    public let image: String
    /// Awarded by itself when this count reaches `target`; without one, a story's reward gives it.
    public let metric: AchievementMetric?
    public let target: Int?

    public init(
        id: String, title: String, description: String, image: String, metric: AchievementMetric? = nil,
        target: Int? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.image = image
        self.metric = metric
        self.target = target
    }
}

/// What an achievement counts.
public enum AchievementMetric: String, Sendable, Codable, CaseIterable {
    case storiesCompleted, commentsPosted, selfiesTaken, cardsCollected, pointsEarned, dailyTasksDone, chaptersRead
}

public struct Achievement: Sendable, Equatable, Codable {
    public let id: String
    public let title: String
    public let description: String
    public let metric: AchievementMetric
    public let target: Int

    public init(id: String, title: String, description: String, metric: AchievementMetric, target: Int) {
        self.id = id
        self.title = title
        self.description = description
        self.metric = metric
        self.target = target
    }
}

public enum CardRarity: String, Sendable, Codable, CaseIterable {
    case common, rare, epic, legendary

    /// The rarity as a card shows it ("rare").
    public var title: Message { Message("stories.card.rarity.\(rawValue)") }
}

public struct TradingCard: Sendable, Equatable, Codable {
    public let id: String
    public let name: String
    public let image: String
    public let rarity: CardRarity
    public let price: Int
    public let description: String

    public init(id: String, name: String, image: String, rarity: CardRarity, price: Int, description: String) {
        self.id = id
        self.name = name
        self.image = image
        self.rarity = rarity
        self.price = price
        self.description = description
    }
}

public struct DailyTask: Sendable, Equatable, Codable {
    public let id: String
    public let title: String
    public let points: Int
    /// What does the task: it is done by doing that, never by a tap that claims it.
    public let action: TaskAction

    public init(id: String, title: String, points: Int, action: TaskAction) {
        self.id = id
        self.title = title
        self.points = points
        self.action = action
    }
}

/// The actions that complete daily tasks.
public enum TaskAction: String, Sendable, Equatable, Codable, CaseIterable {
    /// Reaching the last page of a chapter.
    case chapter
    /// Posting a comment.
    case comment
    /// Taking a selfie at a track.
    case selfie
    /// Opening the stories (the app's check-in; an app reports it through the API).
    case open

    /// Where a reader does it, as the task list says ("Read a chapter of any story to the end.").
    public var hint: Message { Message("stories.task.hint.\(rawValue)") }

    /// Why a task of this action cannot be claimed: it completes itself when done ("Comment on
    /// a chapter completes itself: comment on a chapter."), `task` its title.
    public func completesItself(_ task: String) -> Message {
        Message("stories.error.taskCompletesItself.\(rawValue)", ["task": .text(task)])
    }
}

public struct HelpTopic: Sendable, Equatable, Codable {
    public let question: String
    public let answer: String

    public init(question: String, answer: String) {
        self.question = question
        self.answer = answer
    }
}

/// One problem in the content files: which file, where in it, what is wrong. Read by operators
/// importing content (`questline content-import`), in English like every tool's words
/// (decisions.md, "Every reader in their own language"), never by a reader.
public struct ContentIssue: Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let path: String
    public let message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String { "\(file) \(path.isEmpty ? "" : path + ": ")\(message)" }
}

/// Everything wrong with a set of content files.
public struct ContentIssues: Error, Sendable, Equatable, CustomStringConvertible {
    public let issues: [ContentIssue]
    public init(issues: [ContentIssue]) { self.issues = issues }
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// All the stories content: what the content files hold, validated as a whole.
public struct StoryContent: Sendable, Equatable, Codable {
    /// The language the content files are written in (the stories, chapters, cards, badges
    /// and help of the seed's pack): content keeps its language inside a page of another, so
    /// the pages mark it with this `lang`.
    public static let language = "en"

    public var states: [StoryState]
    public var tracks: [RaceTrack]
    public var stories: [Story]
    public var badges: [StoryBadge]
    public var achievements: [Achievement]
    public var cards: [TradingCard]
    public var dailyTasks: [DailyTask]
    public var help: [HelpTopic]

    /// The content files, by name, and what each holds.
    public static let files = [
        "states.json", "tracks.json", "stories.json", "badges.json", "achievements.json", "cards.json",
        "daily-tasks.json", "help.json",
    ]

    public static let empty = StoryContent(
        states: [], tracks: [], stories: [], badges: [], achievements: [], cards: [], dailyTasks: [], help: [])

    public init(
        states: [StoryState], tracks: [RaceTrack], stories: [Story], badges: [StoryBadge], achievements: [Achievement],
        cards: [TradingCard], dailyTasks: [DailyTask], help: [HelpTopic]
    ) {
        self.states = states
        self.tracks = tracks
        self.stories = stories
        self.badges = badges
        self.achievements = achievements
        self.cards = cards
        self.dailyTasks = dailyTasks
        self.help = help
    }

    /// Decodes and validates the content files (name → bytes); `assetExists` says whether an
    /// image or video path the content names is shipped. Returns every problem found, each
    /// with its file and path, or the content: never part of it.
    public static func load(files: [String: Data], assetExists: (String) -> Bool) -> Result<StoryContent, ContentIssues>
    {
        var issues: [ContentIssue] = []
        func decode<T: Decodable>(_ file: String, as type: T.Type) -> T? {
            guard let data = files[file] else {
                issues.append(ContentIssue(file: file, path: "", message: "The file is missing."))
                return nil
            }
            do { return try JSONDecoder().decode(T.self, from: data) } catch let error as DecodingError {
                issues.append(ContentIssue(file: file, path: error.fieldPath, message: Self.message(of: error)))
            } catch {
                issues.append(ContentIssue(file: file, path: "", message: "\(error)"))
            }
            return nil
        }
        let states = decode("states.json", as: [StoryState].self)
        let tracks = decode("tracks.json", as: [RaceTrack].self)
        let stories = decode("stories.json", as: [Story].self)
        let badges = decode("badges.json", as: [StoryBadge].self)
        let achievements = decode("achievements.json", as: [Achievement].self)
        let cards = decode("cards.json", as: [TradingCard].self)
        let tasks = decode("daily-tasks.json", as: [DailyTask].self)
        let help = decode("help.json", as: [HelpTopic].self)
        guard issues.isEmpty, let states, let tracks, let stories, let badges, let achievements, let cards, let tasks,
            let help
        else {
            return .failure(ContentIssues(issues: issues))
        }
        let content = StoryContent(
            states: states, tracks: tracks, stories: stories, badges: badges, achievements: achievements,
            cards: cards, dailyTasks: tasks, help: help)
        let problems = content.problems(assetExists: assetExists)
        return problems.isEmpty ? .success(content) : .failure(ContentIssues(issues: problems))
    }

    /// Everything wrong with the content as a whole: ids, references, ranges, assets.
    public func problems(assetExists: (String) -> Bool) -> [ContentIssue] {
        var issues: [ContentIssue] = []
        func check(_ ok: Bool, _ file: String, _ path: String, _ message: String) {
            if !ok { issues.append(ContentIssue(file: file, path: path, message: message)) }
        }
        func text(_ value: String, _ file: String, _ path: String, max: Int = 200) {
            let trimmed = value.trimmed()
            check(!trimmed.isEmpty && trimmed.count <= max, file, path, "Give 1 to \(max) characters.")
        }
        func asset(_ value: String, _ file: String, _ path: String) {
            let safe =
                !value.isEmpty && !value.contains("..") && !value.hasPrefix("/") && !value.contains("://")
                && value.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 }
            check(safe, file, path, "Name a file shipped with the content (a relative path, no URLs).")
            if safe { check(assetExists(value), file, path, "\(value) is not in the content's assets.") }
        }
        func id(_ value: String, _ file: String, _ path: String) {
            check(
                (1...64).contains(value.count)
                    && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") },
                file, path, "Use 1 to 64 letters, digits, - or _.")
        }
        func unique<T>(_ items: [T], _ key: (T) -> String, _ file: String, _ field: String) {
            var seen = Set<String>()
            for (index, item) in items.enumerated() where !seen.insert(key(item)).inserted {
                issues.append(
                    ContentIssue(file: file, path: "[\(index)].\(field)", message: "\(key(item)) is used twice."))
            }
        }

        unique(states, \.code, "states.json", "code")
        for (i, state) in states.enumerated() {
            check(
                (2...3).contains(state.code.count) && state.code.allSatisfy(\.isUppercase), "states.json",
                "[\(i)].code", "Use a 2- or 3-letter upper-case code.")
            text(state.name, "states.json", "[\(i)].name", max: 60)
        }
        let stateCodes = Set(states.map(\.code))
        unique(tracks, \.id, "tracks.json", "id")
        for (i, track) in tracks.enumerated() {
            id(track.id, "tracks.json", "[\(i)].id")
            text(track.name, "tracks.json", "[\(i)].name", max: 80)
            text(track.city, "tracks.json", "[\(i)].city", max: 80)
            check(
                stateCodes.contains(track.state), "tracks.json", "[\(i)].state", "\(track.state) is not in states.json."
            )
            check((-90...90).contains(track.latitude), "tracks.json", "[\(i)].latitude", "Use -90 to 90.")
            check((-180...180).contains(track.longitude), "tracks.json", "[\(i)].longitude", "Use -180 to 180.")
        }
        let trackIDs = Set(tracks.map(\.id))
        unique(cards, \.id, "cards.json", "id")
        for (i, card) in cards.enumerated() {
            id(card.id, "cards.json", "[\(i)].id")
            text(card.name, "cards.json", "[\(i)].name", max: 80)
            text(card.description, "cards.json", "[\(i)].description", max: 400)
            check((0...1_000_000).contains(card.price), "cards.json", "[\(i)].price", "Use 0 to 1000000 points.")
            asset(card.image, "cards.json", "[\(i)].image")
        }
        unique(badges, \.id, "badges.json", "id")
        for (i, badge) in badges.enumerated() {
            id(badge.id, "badges.json", "[\(i)].id")
            text(badge.title, "badges.json", "[\(i)].title", max: 80)
            text(badge.description, "badges.json", "[\(i)].description", max: 400)
            asset(badge.image, "badges.json", "[\(i)].image")
            if badge.metric != nil || badge.target != nil {
                check(
                    badge.metric != nil && (1...1_000_000).contains(badge.target ?? 0), "badges.json", "[\(i)].target",
                    "A badge awarded by a count needs both metric and a target from 1 to 1000000.")
            }
        }
        let cardIDs = Set(cards.map(\.id))
        let badgeIDs = Set(badges.map(\.id))
        unique(stories, \.id, "stories.json", "id")
        for (i, story) in stories.enumerated() {
            let at = "[\(i)]"
            id(story.id, "stories.json", "\(at).id")
            text(story.title, "stories.json", "\(at).title", max: 120)
            text(story.description, "stories.json", "\(at).description", max: 1000)
            check(
                trackIDs.contains(story.track), "stories.json", "\(at).track", "\(story.track) is not in tracks.json.")
            asset(story.cover, "stories.json", "\(at).cover")
            check(
                (0...100_000).contains(story.reward.points), "stories.json", "\(at).reward.points",
                "Use 0 to 100000 points.")
            if let card = story.reward.card {
                check(cardIDs.contains(card), "stories.json", "\(at).reward.card", "\(card) is not in cards.json.")
            }
            if let badge = story.reward.badge {
                check(badgeIDs.contains(badge), "stories.json", "\(at).reward.badge", "\(badge) is not in badges.json.")
            }
            check(!story.chapters.isEmpty, "stories.json", "\(at).chapters", "A story needs at least one chapter.")
            unique(story.chapters, \.id, "stories.json", "\(at).chapters.id")
            for (c, chapter) in story.chapters.enumerated() {
                let cat = "\(at).chapters[\(c)]"
                id(chapter.id, "stories.json", "\(cat).id")
                text(chapter.title, "stories.json", "\(cat).title", max: 120)
                check(!chapter.pages.isEmpty, "stories.json", "\(cat).pages", "A chapter needs at least one page.")
                for (p, page) in chapter.pages.enumerated() {
                    text(page.text, "stories.json", "\(cat).pages[\(p)].text", max: 4000)
                    asset(page.image, "stories.json", "\(cat).pages[\(p)].image")
                    if let video = page.video { asset(video, "stories.json", "\(cat).pages[\(p)].video") }
                }
            }
        }
        unique(achievements, \.id, "achievements.json", "id")
        for (i, achievement) in achievements.enumerated() {
            id(achievement.id, "achievements.json", "[\(i)].id")
            text(achievement.title, "achievements.json", "[\(i)].title", max: 80)
            text(achievement.description, "achievements.json", "[\(i)].description", max: 400)
            check(
                (1...1_000_000).contains(achievement.target), "achievements.json", "[\(i)].target",
                "Use a target from 1 to 1000000.")
        }
        unique(dailyTasks, \.id, "daily-tasks.json", "id")
        for (i, task) in dailyTasks.enumerated() {
            id(task.id, "daily-tasks.json", "[\(i)].id")
            text(task.title, "daily-tasks.json", "[\(i)].title", max: 120)
            check((1...10_000).contains(task.points), "daily-tasks.json", "[\(i)].points", "Use 1 to 10000 points.")
        }
        for (i, topic) in help.enumerated() {
            text(topic.question, "help.json", "[\(i)].question", max: 200)
            text(topic.answer, "help.json", "[\(i)].answer", max: 4000)
        }
        return issues
    }

    static func message(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: return "This field is required."
        case .typeMismatch(let type, _): return "Expected \(type)."
        case .valueNotFound(let type, _): return "Expected \(type), got null."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "Not valid JSON." : context.debugDescription
        @unknown default: return "Could not be read."
        }
    }
}

// MARK: Rules the screens share

extension StoryContent {
    public func track(_ id: String) -> RaceTrack? { tracks.first { $0.id == id } }
    public func story(_ id: String) -> Story? { stories.first { $0.id == id } }
    public func card(_ id: String) -> TradingCard? { cards.first { $0.id == id } }

    /// Stories matching `query` in their title, their track's name or their description,
    /// ignoring case and accents; the member's chosen tracks first, then by title.
    public func search(_ query: String, preferredTracks: Set<String> = []) -> [Story] {
        let needle = Self.fold(query.trimmed())
        let names = Dictionary(tracks.map { ($0.id, Self.fold($0.name)) }, uniquingKeysWith: { a, _ in a })
        let found =
            needle.isEmpty
            ? stories
            : stories.filter { story in
                Self.fold(story.title).contains(needle) || (names[story.track] ?? "").contains(needle)
                    || Self.fold(story.description).contains(needle)
            }
        return found.sorted { a, b in
            let (pa, pb) = (preferredTracks.contains(a.track), preferredTracks.contains(b.track))
            if pa != pb { return pa }
            return Self.fold(a.title) < Self.fold(b.title)
        }
    }

    /// The card shop: by price, then name, ascending; optionally only names matching `query`.
    public func shop(_ query: String = "") -> [TradingCard] {
        let needle = Self.fold(query.trimmed())
        return cards.filter { needle.isEmpty || Self.fold($0.name).contains(needle) }
            .sorted { ($0.price, Self.fold($0.name), $0.id) < ($1.price, Self.fold($1.name), $1.id) }
    }

    /// Case- and accent-insensitive form for matching ("Nürburgring" matches "nurburgring").
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
