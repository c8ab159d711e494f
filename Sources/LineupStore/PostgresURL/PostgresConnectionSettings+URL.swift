package import Foundation

/// libpq URLs as Foundation `URL`s, which the public API (`PersistentContainer(url:)`,
/// `lineupd --database`) takes.
extension PostgresConnectionSettings {
    /// The URL of a libpq URL: `URL(string:)` of it where Foundation reads it, else the same
    /// connection with the hosts and ports moved into the query. Foundation refuses several hosts
    /// each with its port (`postgresql://h1:5432,h2:5433/db`), which libpq reads the same as
    /// `postgresql:///db?host=h1,h2&port=5432,5433`. nil when `text` is no `postgres://` or
    /// `postgresql://` URL, or is one that cannot be read.
    package static func url(libpqURL text: String) -> URL? {
        guard isURL(text) else { return nil }
        if let url = URL(string: text) { return url }
        let scalars = Array(text.unicodeScalars)
        let schemeLength = text.hasPrefix("postgresql://") ? 13 : 11
        // The hosts begin after an "@" that comes before the first "/" (as `urlOptions` reads
        // it), and end at the path, the query, or the end.
        var hostsStart = schemeLength
        if let at = scalars[schemeLength...].firstIndex(where: { $0 == "@" || $0 == "/" }), scalars[at] == "@" {
            hostsStart = at + 1
        }
        let hostsEnd = scalars[hostsStart...].firstIndex { $0 == "/" || $0 == "?" } ?? scalars.count
        let hostsText = String(String.UnicodeScalarView(scalars[hostsStart..<hostsEnd]))
        guard let options = try? urlOptions(String(text.prefix(schemeLength)) + hostsText) else { return nil }
        let moved = options.filter { $0.0 == "host" || $0.0 == "port" }.map { "\($0.0)=\(queryEncoded($0.1))" }
        var rest = String(String.UnicodeScalarView(scalars[hostsEnd...]))
        if !rest.hasPrefix("/") { rest = "/" + rest }
        // The hosts go first in the query, so that a host= of the query still overrides them.
        let path = rest.prefix { $0 != "?" }
        let query = rest.dropFirst(path.count).dropFirst()
        let head = String(String.UnicodeScalarView(scalars[..<hostsStart]))
        return URL(string: head + path + "?" + (moved + (query.isEmpty ? [] : [String(query)])).joined(separator: "&"))
    }

    private static func queryEncoded(_ value: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#%")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
