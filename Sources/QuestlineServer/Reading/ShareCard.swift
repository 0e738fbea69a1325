import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The share card: an SVG a reader can post, for a running streak or a completed challenge.
enum ShareCard {
    /// The card in `l`'s language; right to left, its words start at the right edge and the globe
    /// stands at the left.
    static func svg(_ model: WidgetModel, name: String, localizer l: Localizer = RequestLanguage.localizer) -> String {
        let headline: String
        switch model.state {
        case .completed:
            headline = l("reading.share.completed", ["count": .number(model.goalDays)])
        case .streakReadToday, .streakNotReadToday, .freezeApplied, .enrolledWithStreakNotReadToday,
            .notEnrolledWithStreak, .paused, .restDay:
            headline = l("reading.share.streak", ["count": .number(model.streak)])
        default: headline = l("reading.share.reading")
        }
        let background = model.color.background
        let foreground = model.color.foreground
        let rtl = l.language.isRightToLeft
        // Right to left, a line starts at the right edge (`direction="rtl"` anchors `start` there).
        let start = rtl ? 560 : 40
        let globe = rtl ? 100 : 500
        // SVG text does not wrap: lines are laid out here, to widths estimated at 0.6 em a
        // character; a line near its width is also held to it (`textLength`), so that a long
        // name or word never runs off the card or into the art (the globe, right of x = 430).
        func text(_ lines: [String], y: Int, size: Int, step: Int, width: Int, extra: String = "") -> String {
            lines.enumerated().map { index, line in
                let estimate = Int(Double(line.count * size) * Self.em)
                let fit =
                    estimate * 10 >= width * 8
                    ? " textLength=\"\(min(estimate, width))\" lengthAdjust=\"spacingAndGlyphs\"" : ""
                return """
                      <text x="\(start)" y="\(y + index * step)" font-family="system-ui, sans-serif" font-size="\(size)" fill="\(foreground)"\(fit)\(extra)>\(HTML.escaped(line))</text>
                    """
            }.joined(separator: "\n")
        }
        let headlineLines = Self.lines(headline, width: 380, fontSize: 34, maxLines: 2)
        let nameTop = 96 + headlineLines.count * 42 + 14
        let byline = Self.lines(l("reading.share.byline", ["name": .text(name)]), width: 380, fontSize: 24, maxLines: 2)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="600" height="315" viewBox="0 0 600 315" role="img" aria-label="\(HTML.escaped(headline))" xml:lang="\(l.language.code)"\(rtl ? " direction=\"rtl\"" : "")>
              <rect width="600" height="315" rx="24" fill="\(background)"/>
              <circle cx="\(globe)" cy="110" r="64" fill="none" stroke="\(foreground)" stroke-width="6" opacity="0.6"/>
              <path d="M\(globe - 64) 110h128M\(globe) 46c-24 20-24 108 0 128M\(globe) 46c24 20 24 108 0 128" fill="none" stroke="\(foreground)" stroke-width="4" opacity="0.6"/>
            \(text(headlineLines, y: 96, size: 34, step: 42, width: 380, extra: " font-weight=\"700\""))
            \(text(byline, y: nameTop, size: 24, step: 30, width: 380))
            \(text(Self.lines(l(model.copy.body), width: 520, fontSize: 18, maxLines: 2), y: 262, size: 18, step: 24, width: 520, extra: " opacity=\"0.8\""))
            </svg>
            """
    }

    /// The width of a character, in em, that lines are laid out with (over system-ui's average).
    static let em = 0.6

    /// `text` in lines of at most `width` pixels at `fontSize` (`em` a character), breaking at
    /// spaces, and inside a word longer than a line; at most `maxLines`, the last ending in "…"
    /// when text is left over.
    static func lines(_ text: String, width: Int, fontSize: Int, maxLines: Int) -> [String] {
        let perLine = max(4, Int(Double(width) / (Double(fontSize) * em)))
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ").map(String.init) {
            var word = word
            while word.count > perLine {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                lines.append(String(word.prefix(perLine)))
                word = String(word.dropFirst(perLine))
            }
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= perLine {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty { lines.append(current) }
        guard lines.count > maxLines else { return lines }
        var kept = Array(lines.prefix(maxLines))
        kept[maxLines - 1] = String(kept[maxLines - 1].prefix(perLine - 1)) + "…"
        return kept
    }
}
