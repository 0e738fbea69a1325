extension StringProtocol {
    /// The text without leading and trailing white space: what Foundation's
    /// `trimmed()` (or, with `newlines: false`,
    /// `.whitespaces`) returns, computed on Unicode scalars in pure Swift. On Linux the
    /// Foundation call goes through `NSString` and UTF-16, a large part of the server's CPU while
    /// recording batches of reads. A property test checks both against Foundation.
    public func trimmed(newlines: Bool = true) -> String {
        let scalars = unicodeScalars
        // Foundation's sets also hold U+200B ZERO WIDTH SPACE (a space separator in older Unicode).
        let isSpace: (Unicode.Scalar) -> Bool =
            newlines
            ? { $0.properties.isWhitespace || $0 == "\u{200B}" }
            : { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return String(self) }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
