import Foundation
import QuestlineCore
import QuestlineFeatures

/// The share card: an SVG a reader can post, for a running streak or a completed challenge.
enum ShareCard {
    static func svg(_ model: WidgetModel, name: String) -> String {
        let headline: String
        switch model.state {
        case .completed: headline = "Challenge complete: \(model.goalDays) days in a row!"
        case .streakReadToday, .streakNotReadToday, .freezeApplied, .enrolledWithStreakNotReadToday,
            .notEnrolledWithStreak:
            headline = "\(model.streak)-day reading streak"
        default: headline = "Reading every day"
        }
        let background = model.color.background
        let foreground = model.color.foreground
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="600" height="315" viewBox="0 0 600 315" role="img" aria-label="\(escape(headline))">
              <rect width="600" height="315" rx="24" fill="\(background)"/>
              <circle cx="500" cy="110" r="64" fill="none" stroke="\(foreground)" stroke-width="6" opacity="0.6"/>
              <path d="M436 110h128M500 46c-24 20-24 108 0 128M500 46c24 20 24 108 0 128" fill="none" stroke="\(foreground)" stroke-width="4" opacity="0.6"/>
              <text x="40" y="120" font-family="system-ui, sans-serif" font-size="40" font-weight="700" fill="\(foreground)">\(escape(headline))</text>
              <text x="40" y="180" font-family="system-ui, sans-serif" font-size="24" fill="\(foreground)">\(escape(name)) is reading with Questline</text>
              <text x="40" y="270" font-family="system-ui, sans-serif" font-size="18" fill="\(foreground)" opacity="0.8">\(escape(model.copy.body))</text>
            </svg>
            """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
