import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// How the web app draws the widget: the model from the core, rendered as a phone
/// home-screen widget card (small and medium sizes).
enum WidgetView {
    /// The CSS class of a colour pair (`wc-0b6e4f-ffffff`); `stylesheet` defines every pair of
    /// the core's palette, so the page needs no inline style.
    static func colorClass(_ color: WidgetColor) -> String { colorClass(color.background, color.foreground) }

    static func colorClass(_ background: String, _ foreground: String) -> String {
        "wc-" + background.dropFirst() + "-" + foreground.dropFirst()
    }

    static let stylesheet: String =
        WidgetContent.palette.values.flatMap { $0 }.map { pair in
            ".\(colorClass(pair.background, pair.foreground)) { background: \(pair.background); color: \(pair.foreground); }"
        }.sorted().joined(separator: "\n") + "\n"

    /// Inline SVG illustrations, one per id the core names: a globe with a mark.
    static func illustration(_ id: String) -> String {
        let mark: String
        switch id {
        case "globe-flame":
            mark =
                ##"<path d="M44 14c4 6 10 9 10 17a10 10 0 0 1-20 0c0-5 3-7 4-11 2 3 3 4 5 4 0-4-1-6 1-10z" fill="#ff9d2e" stroke="none"/>"##
        case "globe-book":
            mark =
                ##"<path d="M32 40c5-3 10-3 14 0v16c-4-3-9-3-14 0zM46 40c4-3 9-3 14 0v16c-5-3-10-3-14 0z" fill="#fff" stroke="currentColor"/>"##
        case "globe-trophy":
            mark = ##"<path d="M36 14h20v8a10 10 0 0 1-20 0zM42 32h8v6h6v4H36v-4h6z" fill="#ffcc33" stroke="none"/>"##
        case "globe-ice": mark = ##"<path d="M46 12v24M36 18l20 12M56 18L36 30" stroke="#7cc8ff" stroke-width="3"/>"##
        case "globe-moon": mark = ##"<path d="M54 12a10 10 0 1 0 6 16 8 8 0 1 1-6-16z" fill="#ffe9a8" stroke="none"/>"##
        case "globe-sleep":
            mark = ##"<path d="M44 14h8l-8 8h8M54 6h6l-6 6h6" stroke="currentColor" stroke-width="2"/>"##
        case "globe-calendar":
            mark =
                ##"<rect x="36" y="12" width="22" height="20" rx="3" fill="#fff" stroke="currentColor"/><path d="M36 18h22" stroke="currentColor"/>"##
        case "globe-star":
            mark = ##"<path d="M47 10l3 7 8 1-6 5 2 8-7-4-7 4 2-8-6-5 8-1z" fill="#ffd24a" stroke="none"/>"##
        default: mark = ##"<path d="M50 18c4-4 10-4 12 0" stroke="currentColor" stroke-width="3"/>"##
        }
        return
            #"<svg class="widget__art" viewBox="0 0 72 72" width="72" height="72" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2"><circle cx="28" cy="44" r="20" opacity="0.9"/><path d="M8 44h40M28 24c-8 6-8 34 0 40M28 24c8 6 8 34 0 40" opacity="0.7"/>"#
            + mark + "</svg>"
    }
}

/// The widget as a card (`widget.mustache`): the core's model in a size, with its buttons (or
/// none, where the page offers them itself). Logged-out "join" posts to /reading/join, which
/// remembers the device's wish and sends the reader to log in.
struct WidgetCard: Equatable {
    struct Action: Equatable {
        let label: String
        let kind: String
        /// Where the button posts: a tap is recorded for the funnel (a GET never writes).
        let post: String
        /// The state the widget showed, sent with a tap.
        let state: String?
        let primary: Bool
    }

    let state: String
    let size: String
    /// The small size (its landmark is named apart from the medium one beside it).
    let small: Bool
    let colorClass: String
    let family: String
    let title: String
    let body: String
    let illustration: String
    let streak: Int
    let goal: Int
    /// "of 25 days" beside the streak's count, and the progress bar's name ("Streak: 3 of 25 days").
    let ofGoal: String
    let progressLabel: String
    let showStreak: Bool
    let freezesLeft: Int
    let showFreezes: Bool
    let readToday: Bool
    /// The perfect tier: the live streak has no freeze, pause or repair in it.
    let perfect: Bool
    let interactive: Bool
    let hasCtas: Bool
    let ctas: [Action]

    /// The card in `l`'s language (a page renders in its request's, which is the default).
    init(
        _ model: WidgetModel, size: String = "medium", interactive: Bool = true,
        localizer l: Localizer = RequestLanguage.localizer
    ) {
        state = model.state.rawValue
        self.size = size
        small = size == "small"
        colorClass = WidgetView.colorClass(model.color)
        family = model.color.family
        title = l(model.copy.title)
        body = l(model.copy.body)
        illustration = WidgetView.illustration(model.illustration)
        streak = model.streak
        goal = model.goalDays
        ofGoal = l("reading.widget.ofGoal", ["count": .number(model.goalDays)])
        progressLabel = l(
            "reading.widget.progress", ["count": .number(model.goalDays), "streak": .number(model.streak)])
        showStreak = model.streak > 0
        freezesLeft = model.freezesLeft
        showFreezes = model.freezesLeft > 0 && model.state != .removed
        readToday = model.readToday
        perfect = model.perfect
        self.interactive = interactive
        hasCtas = !model.ctas.isEmpty
        ctas = model.ctas.map { cta in
            let (post, state): (String, String?) =
                switch cta.kind {
                case .join, .login: ("/reading/join", nil)
                case .claim: ("/reading/claim", nil)
                case .search, .random, .share: ("/reading/go/\(cta.kind.rawValue)", model.state.rawValue)
                }
            return Action(
                label: l(cta.label), kind: cta.kind.rawValue, post: post, state: state,
                primary: cta.kind != .share && cta.kind != .random)
        }
    }
}
