import Foundation

/// The one normalisation of a typed login name (an e-mail or a child's username) into the key
/// that identifies the account: sign-up uniqueness, the login lookup, the login lockout and
/// every other key made from a login name use this function and no other, so no spelling can
/// reach an account under one key and escape its lock under another.
///
/// Steps: white space and invisible characters at either end are dropped (every Unicode
/// `White_Space` character, the line and paragraph separators and NEL among them, and the
/// default-ignorable ones: zero-width space and joiners, the word joiner, the byte-order mark,
/// the soft hyphen); then Unicode NFC; then full case folding (`Straße` is `strasse`, `ﬁ` is
/// `fi`); then NFC again, since folding can leave a decomposed sequence.
public enum LoginName {
    public static func key(_ typed: some StringProtocol) -> String {
        let scalars = typed.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isInvisible($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isInvisible($0) })!
        let trimmed = String(String.UnicodeScalarView(scalars[first...last]))
        return trimmed.precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// White space or a character that renders as nothing.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint
            || scalar.properties.generalCategory == .format
    }
}
