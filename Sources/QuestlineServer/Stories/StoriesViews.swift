import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

// The track stories' screens as typed page models, each built by a pure function from what
// `StoriesFeature` returns. Every stories page carries the section's own menu (`storyNav`).

/// An entry of the stories' own menu (`story-nav.mustache`).
struct StoryNavItem: Equatable {
    let path: String
    let title: String
    let current: Bool

    /// The menu with the section of `template` marked (the shop is part of Points).
    static func menu(for template: String, localizer l: Localizer) -> [StoryNavItem] {
        let sections = [
            "stories-bookmarks": "/stories/bookmarks", "stories-points": "/stories/points",
            "stories-shop": "/stories/points", "stories-profile": "/stories/profile", "stories-help": "/stories/help",
        ]
        let section = sections[template] ?? "/stories"
        return [
            ("/stories", "stories.nav.stories"), ("/stories/bookmarks", "stories.nav.bookmarks"),
            ("/stories/points", "stories.nav.points"), ("/stories/profile", "stories.nav.profile"),
            ("/stories/help", "stories.nav.help"),
        ].map { StoryNavItem(path: $0.0, title: l($0.1), current: $0.0 == section) }
    }
}

/// Where a story's pictures are served.
func storyAsset(_ path: String) -> String { "/content/stories/" + path }

/// Onboarding (`stories-welcome.mustache`): three slides, swiped or stepped by dots.
struct StoriesWelcomePage: Equatable {
    struct Slide: Equatable {
        let index: Int
        let title: String
        let text: String
        let image: String
        let first: Bool
        let last: Bool
        /// "1 of 3", the slide's place for screen readers.
        let place: String
        /// "Slide 1", its dot's name.
        let dot: String
    }

    /// Each slide's words (`stories.welcome.slides.1.title`, `….text`) and picture.
    static let pictures = ["covers/daytona.svg", "covers/indianapolis.svg", "cards/golden-brick.svg"]

    let slides: [Slide]

    init(localizer l: Localizer) {
        let count = Self.pictures.count
        slides = Self.pictures.enumerated().map { index, picture in
            let number = Message.Argument.number(index + 1)
            return Slide(
                index: index, title: l("stories.welcome.slides.\(index + 1).title"),
                text: l("stories.welcome.slides.\(index + 1).text"), image: storyAsset(picture), first: index == 0,
                last: index == count - 1,
                place: l("stories.welcome.slidePlace", ["number": number, "total": .number(count)]),
                dot: l("stories.welcome.slideDot", ["number": number]))
        }
    }
}

/// The pre-story choice of states and tracks (`stories-choose.mustache`).
struct StoriesChoosePage: Equatable {
    struct State: Equatable {
        let code: String
        let name: String
        let checked: Bool
    }

    struct Track: Equatable {
        let id: String
        let name: String
        let city: String
        let state: String
        let checked: Bool
    }

    let states: [State]
    let tracks: [Track]
    let errors: [String: String]

    init(
        _ content: StoryContent, states chosenStates: [String], tracks chosenTracks: [String], errors: [String: String]
    ) {
        states = content.states.map { State(code: $0.code, name: $0.name, checked: chosenStates.contains($0.code)) }
        tracks = content.tracks.map {
            Track(id: $0.id, name: $0.name, city: $0.city, state: $0.state, checked: chosenTracks.contains($0.id))
        }
        self.errors = errors
    }
}

/// A story in a list (`story-tile.mustache`).
struct StoryTile: Equatable {
    let id: String
    let title: String
    let description: String
    let cover: String
    let track: String
    let city: String
    let trackId: String
    let bookmarked: Bool
    let collected: Bool
    let progress: String
    /// Where the star's form returns.
    let back: String

    init(_ summary: StorySummary, back: String = "/stories", localizer l: Localizer) {
        let story = summary.story
        id = story.id
        title = story.title
        description = story.description
        cover = storyAsset(story.cover)
        track = summary.track?.name ?? story.track
        city = summary.track.map { "\($0.city), \($0.state)" } ?? ""
        trackId = story.track
        bookmarked = summary.bookmarked
        collected = summary.collected
        progress =
            summary.reached.map {
                l("stories.tile.progress", ["number": .number($0.chapter + 1), "total": .number(story.chapters.count)])
            } ?? l("stories.tile.notStarted")
        self.back = back
    }
}

/// The stories list with its map, or the bookmarks (`stories.mustache`, `stories-bookmarks.mustache`).
struct StoriesListPage: Equatable {
    struct Pin: Equatable {
        let track: String
        let name: String
        let x: Int
        let y: Int
        let latitude: Double
        let longitude: Double
        let count: Int
        /// "Daytona, 2 stories".
        let label: String
        let story: String
    }

    struct TrackChoice: Equatable {
        let id: String
        let name: String
        let state: String
        let checked: Bool
    }

    let q: String
    let count: Int
    /// "8 stories".
    let countText: String
    let none: Bool
    let stories: [StoryTile]
    let states: [String]
    let pins: [Pin]
    let mapView: Bool
    let leaflet: Bool
    let trackChoices: [TrackChoice]
    let trackSummary: String
    let trackQuery: String

    /// `found` the stories shown, `chosen` the tracks the dropdown narrows to.
    init(
        found: [StorySummary], content: StoryContent, query: String, chosen: Set<String>, bookmarks: Bool,
        mapView: Bool, leaflet: Bool, outline: USStates?, localizer l: Localizer
    ) {
        q = query
        count = found.count
        countText = l(Message.count(found.count, .stories))
        none = found.isEmpty
        stories = found.map { StoryTile($0, back: bookmarks ? "/stories/bookmarks" : "/stories", localizer: l) }
        let map = StoryMap(tracks: content.tracks)
        states = outline.map(map.statePaths) ?? []
        let counts = Dictionary(grouping: found, by: \.story.track).mapValues(\.count)
        let pinned = content.tracks.filter { counts[$0.id] != nil }
        pins = zip(pinned, map.pins(pinned)).map { track, point in
            Pin(
                track: track.id, name: track.name, x: point.x, y: point.y, latitude: track.latitude,
                longitude: track.longitude, count: counts[track.id] ?? 0,
                label: l(
                    "stories.map.pin",
                    ["track": .text(track.name), "stories": .message(.count(counts[track.id] ?? 0, .stories))]),
                story: found.first { $0.story.track == track.id }?.story.id ?? "")
        }
        self.mapView = mapView
        self.leaflet = leaflet
        trackChoices = content.tracks.sorted { $0.name < $1.name }.map {
            TrackChoice(id: $0.id, name: $0.name, state: $0.state, checked: chosen.contains($0.id))
        }
        trackSummary =
            chosen.isEmpty
            ? l("stories.list.allTracks")
            : chosen.count == 1
                ? content.tracks.first { chosen.contains($0.id) }?.name
                    ?? l("stories.list.trackCount", ["count": .number(1)])
                : l("stories.list.trackCount", ["count": .number(chosen.count)])
        trackQuery = chosen.sorted().map { "&amp;track=\($0)" }.joined()
    }
}

/// The help topics (`stories-help.mustache`).
struct StoriesHelpPage: Equatable {
    struct Topic: Equatable {
        let question: String
        let answer: String
    }

    let topics: [Topic]

    init(_ content: StoryContent) { topics = content.help.map { Topic(question: $0.question, answer: $0.answer) } }
}
