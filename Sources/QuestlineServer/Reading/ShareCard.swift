import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The share card: an SVG a reader can post, for a running streak or a completed challenge.
enum ShareCard {
    static func svg(_ model: WidgetModel, name: String) -> String {
        let headline: String
        switch model.state {
        case .completed: headline = "Challenge complete: \(model.goalDays) days in a row!"
        case .streakReadToday, .streakNotReadToday, .freezeApplied, .enrolledWithStreakNotReadToday,
            .notEnrolledWithStreak, .paused, .restDay:
            headline = "\(model.streak)-day reading streak"
        default: headline = "Reading every day"
        }
        let background = model.color.background
        let foreground = model.color.foreground
        // SVG text does not wrap: lines are laid out here, to widths estimated at 0.6 em a
        // character; a line near its width is also held to it (`textLength`), so that a long
        // name or word never runs off the card or into the art (the globe, right of x = 430).
        func text(_ lines: [String], x: Int, y: Int, size: Int, step: Int, width: Int, extra: String = "") -> String {
            lines.enumerated().map { index, line in
                let estimate = Int(Double(line.count * size) * Self.em)
                let fit =
                    estimate * 10 >= width * 8
                    ? " textLength=\"\(min(estimate, width))\" lengthAdjust=\"spacingAndGlyphs\"" : ""
                return """
                      <text x="\(x)" y="\(y + index * step)" font-family="system-ui, sans-serif" font-size="\(size)" fill="\(foreground)"\(fit)\(extra)>\(escape(line))</text>
                    """
            }.joined(separator: "\n")
        }
        let headlineLines = Self.lines(headline, width: 380, fontSize: 34, maxLines: 2)
        let nameTop = 96 + headlineLines.count * 42 + 14
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="600" height="315" viewBox="0 0 600 315" role="img" aria-label="\(escape(headline))">
              <rect width="600" height="315" rx="24" fill="\(background)"/>
              <circle cx="500" cy="110" r="64" fill="none" stroke="\(foreground)" stroke-width="6" opacity="0.6"/>
              <path d="M436 110h128M500 46c-24 20-24 108 0 128M500 46c24 20 24 108 0 128" fill="none" stroke="\(foreground)" stroke-width="4" opacity="0.6"/>
            \(text(headlineLines, x: 40, y: 96, size: 34, step: 42, width: 380, extra: " font-weight=\"700\""))
            \(text(Self.lines(name, width: 380, fontSize: 24, maxLines: 1) + ["is reading with Questline"], x: 40, y: nameTop, size: 24, step: 30, width: 380))
            \(text(Self.lines(model.copy.body, width: 520, fontSize: 18, maxLines: 2), x: 40, y: 262, size: 18, step: 24, width: 520, extra: " opacity=\"0.8\""))
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

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
