import Foundation

/// A connection string as messages, logs and status show it: as it was written, less its
/// password.
extension PostgresConnectionSettings {
    /// `text` without its password: a URL without the password of its user part and without a
    /// `password` query parameter (`postgres://lineup@db/surf` stays as it is); a keyword/value
    /// string without its `password` pair. It reads the text as the parser does, so that what the
    /// parser would take for the password is what goes; a keyword/value string it cannot read is
    /// not shown. Text that is neither (no `://`, no `=`) holds no password and is shown as it is.
    package static func redactedLocation(of text: String) -> String {
        if text.contains("://") { return redactedURL(text) }
        guard text.contains("=") else { return text }
        guard let options = try? keywordValueOptions(text) else {
            return "(a connection string that cannot be read)"
        }
        return options.filter { $0.0 != "password" }.map { "\($0.0)=\(quotedValue($0.1))" }.joined(separator: " ")
    }

    private static func redactedURL(_ text: String) -> String {
        var characters = Array(text.unicodeScalars)
        guard let schemeEnd = text.unicodeScalars.indexOfSubsequence("://") else { return text }
        let start = schemeEnd + 3
        // The user part ends at an "@" before the first "/", as `urlOptions` reads it.
        var authorityStart = start
        if let at = characters[start...].firstIndex(where: { $0 == "@" || $0 == "/" }), characters[at] == "@" {
            if let colon = characters[start..<at].firstIndex(of: ":") {
                characters.removeSubrange(colon..<at)
                authorityStart = colon + 1
            } else {
                authorityStart = at + 1
            }
        }
        guard let question = characters[authorityStart...].firstIndex(of: "?") else {
            return String(String.UnicodeScalarView(characters))
        }
        let query = String(String.UnicodeScalarView(characters[(question + 1)...]))
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false)
        let kept = parameters.filter { parameter in
            let name = String(parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
            return (name.removingPercentEncoding ?? name) != "password"
        }
        let head = String(String.UnicodeScalarView(characters[..<question]))
        guard kept.count < parameters.count else { return head + "?" + query }
        return kept.allSatisfy(\.isEmpty) ? head : head + "?" + kept.joined(separator: "&")
    }

    /// A value as a keyword/value string holds it: in quotes when empty or when it has spaces,
    /// quotes or backslashes.
    private static func quotedValue(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}

extension String.UnicodeScalarView {
    /// Where `needle` first begins, as an offset.
    fileprivate func indexOfSubsequence(_ needle: String) -> Int? {
        let haystack = Array(self)
        let needle = Array(needle.unicodeScalars)
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
