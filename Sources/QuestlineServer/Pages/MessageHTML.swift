import Foundation
import QuestlineCore
import QuestlineL10n

extension Localizer {
    /// A message as HTML, for a template's `{{{…}}}`: its words and arguments escaped, and each
    /// placeholder named in `markup` replaced by that HTML (a `<time>`, a link, a figure in
    /// `<strong>`), so that a sentence with markup inside stays one message that a language
    /// orders its own way. `count` still picks the plural form.
    func html(_ message: Message, markup: [String: String]) -> String {
        var count: Int?
        if case .number(let number) = message.arguments["count"] { count = number }
        guard let text = template(message.key, count: count) else { return HTML.escaped(message.key) }
        var result = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += HTML.escaped(rest[..<open])
            let name = String(rest[rest.index(after: open)..<close])
            if let html = markup[name] {
                result += html
            } else if let argument = message.arguments[name] {
                result += HTML.escaped(render(argument))
            } else {
                result += HTML.escaped("{\(name)}")
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + HTML.escaped(rest)
    }
}

/// Text made safe for HTML and SVG (an element's text or an attribute's value), as the templates
/// escape it: one place for every page, picture and chart.
enum HTML {
    static func escaped<S: StringProtocol>(_ text: S) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
