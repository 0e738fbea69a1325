import Foundation
import QuestlineAPI
import QuestlineCore
import QuestlineL10n

/// The recap as a picture to share: the period, the member's name (laid out to fit, as the
/// share card does) and the first slides' figures.
enum RecapPicture {
    static func svg(_ recap: Recap, name: String, localizer l: Localizer) -> String {
        let background = "#1f5fbf"
        let foreground = "#ffffff"
        // Right to left, each line starts at the right edge (`direction="rtl"` anchors `start`
        // there), as on the share card.
        let rtl = l.language.isRightToLeft
        let start = rtl ? 560 : 40
        func text(_ lines: [String], x: Int, y: Int, size: Int, step: Int, width: Int, weight: String = "400") -> String
        {
            lines.enumerated().map { index, line in
                let estimate = Int(Double(line.count * size) * ShareCard.em)
                let fit =
                    estimate * 10 >= width * 8
                    ? " textLength=\"\(min(estimate, width))\" lengthAdjust=\"spacingAndGlyphs\"" : ""
                return """
                      <text x="\(x)" y="\(y + index * step)" font-family="system-ui, sans-serif" font-size="\(size)" font-weight="\(weight)" fill="\(foreground)"\(fit)>\(HTML.escaped(line))</text>
                    """
            }.joined(separator: "\n")
        }
        let heading = l(
            Message(
                recap.closed ? "recap.heading" : "recap.picture.headingSoFar", ["period": .message(recap.period.title)])
        )
        let slides = recap.slides.prefix(3)
        var y = 150
        var rows: [String] = []
        for slide in slides {
            rows.append(
                text(
                    ShareCard.lines(
                        l("recap.picture.line", ["title": .message(slide.title), "figure": .message(slide.figure)]),
                        width: 520, fontSize: 24, maxLines: 1), x: start,
                    y: y, size: 24, step: 28, width: 520, weight: "700"))
            rows.append(
                text(
                    ShareCard.lines(l(slide.caption), width: 520, fontSize: 18, maxLines: 1), x: start, y: y + 26,
                    size: 18,
                    step: 22, width: 520))
            y += 62
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="600" height="360" viewBox="0 0 600 360" role="img" aria-label="\(HTML.escaped(heading))" xml:lang="\(l.language.code)"\(rtl ? " direction=\"rtl\"" : "")>
              <rect width="600" height="360" rx="24" fill="\(background)"/>
            \(text(ShareCard.lines(heading, width: 520, fontSize: 30, maxLines: 1), x: start, y: 64, size: 30, step: 34, width: 520, weight: "700"))
            \(text(ShareCard.lines(name, width: 520, fontSize: 20, maxLines: 1), x: start, y: 100, size: 20, step: 24, width: 520))
            \(rows.joined(separator: "\n"))
            </svg>
            """
    }
}

/// The recap page (`recap.mustache`): its slides, the neighbouring periods, the picture.
struct RecapPage: Equatable {
    struct Slide: Equatable {
        let title: String
        let figure: String
        let caption: String
        /// "Slide 2 of 5", for screen readers.
        let label: String
    }

    struct Link: Equatable {
        let label: String
        let href: String
    }

    let heading: String
    let soFar: Bool
    let slides: [Slide]
    let picture: String
    let links: [Link]

    init(_ recap: Recap, today: LocalDay, localizer l: Localizer) {
        heading = l("recap.heading", ["period": .message(recap.period.title)])
        soFar = !recap.closed
        let all = recap.slides
        slides = all.enumerated().map {
            Slide(
                title: l($1.title), figure: l($1.figure), caption: l($1.caption),
                label: l("recap.slide.label", ["number": .number($0 + 1), "count": .number(all.count)]))
        }
        picture = "/activity/recap.svg?period=\(recap.period.key)"
        /// "← October 2026", "2027 →".
        func link(_ key: String, _ period: RecapPeriod) -> Link {
            Link(label: l(key, ["period": .message(period.title)]), href: "/activity/recap?period=\(period.key)")
        }
        var links: [Link] = []
        switch recap.period {
        case .month(let year, _):
            let previous = RecapPeriod.month(of: recap.period.first.adding(days: -1))
            links.append(link("recap.link.previous", previous))
            let next = RecapPeriod.month(of: recap.period.last.adding(days: 1))
            if next.first <= today { links.append(link("recap.link.next", next)) }
            links.append(
                Link(label: l("recap.link.year", ["year": .year(year)]), href: "/activity/recap?period=\(year)"))
        case .year(let year):
            links.append(link("recap.link.previous", .year(year - 1)))
            if year < today.year { links.append(link("recap.link.next", .year(year + 1))) }
            links.append(Link(label: l("recap.link.thisMonth"), href: "/activity/recap"))
        }
        self.links = links
    }
}

extension Components.Schemas.Recap {
    init(_ recap: Recap, localizer l: Localizer) {
        self.init(
            period: recap.period.key, title: l(recap.period.title), closed: recap.closed,
            readingMinutes: recap.readingMinutes, articles: recap.articles,
            topArticles: recap.topArticles.map { .init(title: $0.title, minutes: $0.minutes, opens: $0.opens) },
            bestStreak: recap.bestStreak, saved: recap.saved, gamesPlayed: recap.gamesPlayed,
            accuracy: recap.accuracy, bestGameRun: recap.bestGameRun, percentile: recap.percentile,
            child: recap.child.map {
                .init(
                    learningMinutes: $0.learningMinutes, questsCompleted: $0.questsCompleted,
                    pointsEarned: $0.pointsEarned, pointsSpent: $0.pointsSpent, topApp: $0.topApp)
            },
            slides: recap.slides.map { .init(title: l($0.title), figure: l($0.figure), caption: l($0.caption)) })
    }
}
