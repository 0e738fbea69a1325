extension StringProtocol {
    /// The text without leading and trailing white space: what Foundation's
    /// `trimmed()` (or, with `newlines: false`,
    /// `.whitespaces`) returns, computed on Unicode scalars in pure Swift. On Linux the
    /// Foundation call goes through `NSString` and UTF-16; it was 14% of the server's CPU while
    /// recording batches of reads. A property test checks both against Foundation.
    public func trimmed(newlines: Bool = true) -> String {
        let scalars = unicodeScalars
        // Foundation's sets also hold U+200B ZERO WIDTH SPACE (a space separator in older Unicode).
        let isSpace: (Unicode.Scalar) -> Bool = newlines
            ? { $0.properties.isWhitespace || $0 == "\u{200B}" }
            : { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return String(self) }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

extension StringProtocol {
    /// Whether the text holds a control character (general category Cc: U+0000–U+001F and
    /// U+007F–U+009F). Format characters (Cf: direction marks, the zero-width joiner in emoji)
    /// are not control characters here. PostgreSQL refuses U+0000 in text at all.
    public var containsControlCharacter: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
