import Foundation

/// The languages the game is offered in (Wikipedia editions with an "On this day" feed), with
/// Chinese as its script and regional variants, all served from zh.wikipedia.org.
public struct GameLanguage: Hashable, Sendable, CustomStringConvertible {
    public let code: String

    public static let supported: [String] = [
        "en", "de", "fr", "es", "pt", "ru", "ar", "tr",
        "zh-cn", "zh-hans", "zh-hant", "zh-hk", "zh-mo", "zh-my", "zh-sg", "zh-tw",
    ]

    public init(_ raw: String, field: String = "language") throws(DomainError) {
        let code = raw.trimmed(newlines: false).lowercased()
        guard GameLanguage.supported.contains(code) else {
            throw .invalid(
                field: field,
                Message("game.error.language", ["languages": .text(GameLanguage.supported.joined(separator: ", "))]))
        }
        self.code = code
    }

    public static let english = try! GameLanguage("en")

    /// The Wikipedia edition the feed comes from (`zh` for every Chinese variant).
    public var wiki: String { code.hasPrefix("zh") ? "zh" : code }

    /// The variant to ask for with `Accept-Language`, for Chinese.
    public var variant: String? { code.hasPrefix("zh") ? code : nil }

    public var description: String { code }

    /// The language's name, for pickers ("German", "Chinese (Taiwan)"): `game.language.de`,
    /// `game.language.zhTw`.
    public var title: Message {
        let parts = code.split(separator: "-")
        let key = parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
        return Message("game.language.\(key)")
    }
}
