/// The one rule for text that arrives from outside (API bodies, query and path parameters, web
/// forms): no control characters.
///
/// Refused everywhere: U+0000 (NUL, which PostgreSQL cannot store and bcrypt stops at), the
/// rest of C0 (U+0001–U+001F), DEL (U+007F) and C1 (U+0080–U+009F), that is Unicode's general
/// category Cc. Multi-line fields (a comment's text, a profile's bio, a quest's description)
/// also take tab, line feed and carriage return. Format characters (Cf: direction marks, the
/// zero-width joiner in emoji) are text, not control characters, and pass.
public enum TextRule {
    /// The fields, by their name in the contract and in web forms, whose text may span lines.
    public static let multilineFields: Set<String> = ["text", "bio", "description"]

    /// Whether a field of this name may hold line breaks and tabs.
    public static func isMultiline(field: some StringProtocol) -> Bool {
        multilineFields.contains(String(field))
    }

    /// Whether one scalar is allowed in a field.
    @inlinable
    public static func allows(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return true }
        if value < 0x20 { return multiline && (value == 0x09 || value == 0x0A || value == 0x0D) }
        return value > 0x9F
    }

    /// The problem with a text, or nil when it passes.
    public static func issue(_ text: some StringProtocol, field: String, multiline: Bool? = nil) -> FieldIssue? {
        let lines = multiline ?? isMultiline(field: lastName(of: field))
        guard text.unicodeScalars.contains(where: { !allows($0, multiline: lines) }) else { return nil }
        return FieldIssue(
            field: field,
            message: Message(lines ? "input.error.controlCharactersMultiline" : "input.error.controlCharacters"))
    }

    /// Throws `.invalid` naming the field when the text breaks the rule.
    public static func check(_ text: some StringProtocol, field: String, multiline: Bool? = nil) throws(DomainError) {
        if let issue = issue(text, field: field, multiline: multiline) { throw .invalid([issue]) }
    }

    /// `bio` for `profile.bio`, `title` for `items[3].title`.
    static func lastName(of field: String) -> Substring {
        let tail = field.split(separator: ".").last ?? Substring(field)
        return tail.split(separator: "[").first ?? tail
    }
}

extension StringProtocol {
    /// Whether the text holds a control character (general category Cc: U+0000–U+001F and
    /// U+007F–U+009F), tab and line breaks included (`TextRule` for fields that allow those).
    public var containsControlCharacter: Bool {
        unicodeScalars.contains { !TextRule.allows($0, multiline: false) }
    }
}
