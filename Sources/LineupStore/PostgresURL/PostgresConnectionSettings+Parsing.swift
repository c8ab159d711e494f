package import Foundation

/// Reading a connection string into libpq's options, by libpq's rules (`conninfo_uri_parse`,
/// `conninfo_parse`), before the environment and the defaults fill in what it leaves out
/// (`+Resolution.swift`).
extension PostgresConnectionSettings {
    /// Reads a `postgres://` or `postgresql://` URL, or a keyword/value string
    /// (`host=/var/run/postgresql dbname=lineup sslmode=verify-full`), with `environment`
    /// beneath it.
    ///
    /// - Throws: ``StoreError`` (`.postgres`) naming what is wrong; it never holds the password.
    package init(_ text: String, environment: PostgresConnectionEnvironment) throws {
        let location = Self.redactedLocation(of: text)
        do {
            let options = Self.isURL(text) ? try Self.urlOptions(text) : try Self.keywordValueOptions(text)
            try self.init(options: options, location: location, environment: environment)
        } catch {
            throw StoreError(.postgres, "\(location): \(error.message)")
        }
    }

    /// Reads a `postgres://` or `postgresql://` URL (see ``init(_:environment:)``).
    package init(url: URL, environment: PostgresConnectionEnvironment) throws {
        guard url.scheme == "postgres" || url.scheme == "postgresql" else {
            throw StoreError(
                .postgres, "\(Self.redactedLocation(of: url.absoluteString)) is not a PostgreSQL URL (postgres://user@host:port/database)")
        }
        try self.init(url.absoluteString, environment: environment)
    }

    /// Whether `text` is libpq's URL form rather than its keyword/value form.
    static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// What makes a connection string unreadable; the initializer puts the location before it.
    struct ParseError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    // MARK: - URLs

    /// `postgresql://[user[:password]@][host][:port][,host[:port]…][/dbname][?keyword=value&…]`,
    /// read as libpq reads it: several hosts, an IPv6 address in brackets, percent-encoding in
    /// every part (a socket directory as the host: `%2Fvar%2Frun%2Fpostgresql`), and the query's
    /// options after (and over) the rest.
    static func urlOptions(_ text: String) throws(ParseError) -> [(String, String)] {
        let bytes = Array(text.utf8)
        var position = text.hasPrefix("postgresql://") ? 13 : 11
        var options: [(String, String)] = []

        // The user part ends at an "@" before the first "/", as libpq looks for it.
        let start = position
        while position < bytes.count, bytes[position] != ascii("@"), bytes[position] != ascii("/") { position += 1 }
        if position < bytes.count, bytes[position] == ascii("@") {
            let userPart = bytes[start..<position]
            let colon = userPart.firstIndex(of: ascii(":"))
            let user = userPart[..<(colon ?? position)]
            if !user.isEmpty { options.append(("user", try decoded(user, in: "the user name"))) }
            if let colon, colon + 1 < position {
                options.append(("password", try decoded(userPart[(colon + 1)...], in: "the password")))
            }
            position += 1
        } else {
            position = start
        }

        var hosts: [ArraySlice<UInt8>] = []
        var ports: [ArraySlice<UInt8>] = []
        while true {
            let host: ArraySlice<UInt8>
            if position < bytes.count, bytes[position] == ascii("[") {
                position += 1
                let hostStart = position
                while position < bytes.count, bytes[position] != ascii("]") { position += 1 }
                guard position < bytes.count else { throw ParseError("an IPv6 address in the URL has no closing \"]\"") }
                guard position > hostStart else { throw ParseError("an IPv6 address in the URL is empty") }
                host = bytes[hostStart..<position]
                position += 1
                if position < bytes.count, !":/?,".utf8.contains(bytes[position]) {
                    throw ParseError("unexpected character after an IPv6 address in the URL (expected \":\", \",\" or \"/\")")
                }
            } else {
                let hostStart = position
                while position < bytes.count, !":/?,".utf8.contains(bytes[position]) { position += 1 }
                host = bytes[hostStart..<position]
            }
            var port: ArraySlice<UInt8> = []
            if position < bytes.count, bytes[position] == ascii(":") {
                position += 1
                let portStart = position
                while position < bytes.count, !"/?,".utf8.contains(bytes[position]) { position += 1 }
                port = bytes[portStart..<position]
            }
            hosts.append(host)
            ports.append(port)
            guard position < bytes.count, bytes[position] == ascii(",") else { break }
            position += 1
        }
        // As libpq: the hosts (and the ports) joined by commas, then decoded; an empty list is
        // no option at all, so that PGHOST (PGPORT) fills it in.
        let hostList = Array(hosts.joined(separator: [ascii(",")]))
        let portList = Array(ports.joined(separator: [ascii(",")]))
        if !hostList.isEmpty { options.append(("host", try decoded(hostList[...], in: "the host"))) }
        if !portList.isEmpty { options.append(("port", try decoded(portList[...], in: "the port"))) }

        if position < bytes.count, bytes[position] == ascii("/") {
            position += 1
            let databaseStart = position
            while position < bytes.count, bytes[position] != ascii("?") { position += 1 }
            // An empty name is no name: PGDATABASE, then the user name, fill it in.
            if position > databaseStart {
                options.append(("dbname", try decoded(bytes[databaseStart..<position], in: "the database name")))
            }
        }
        if position < bytes.count, bytes[position] == ascii("?") {
            options += try queryOptions(bytes[(position + 1)...])
        }
        return options
    }

    /// `keyword=value&…`, each part percent-decoded (`+` is a plus, as libpq reads it).
    private static func queryOptions(_ query: ArraySlice<UInt8>) throws(ParseError) -> [(String, String)] {
        var options: [(String, String)] = []
        var parameters = query.split(separator: ascii("&"), omittingEmptySubsequences: false)
        // A "?" with nothing after it, or a last "&", ends the query as libpq reads it.
        if parameters.last?.isEmpty == true { parameters.removeLast() }
        for parameter in parameters {
            let parts = parameter.split(separator: ascii("="), maxSplits: 2, omittingEmptySubsequences: false)
            let keyword = try decoded(parts[0], in: "a query parameter's name")
            guard parts.count == 2 else {
                throw ParseError(
                    parts.count == 1
                        ? "the URL's query parameter \"\(keyword)\" has no \"=\""
                        : "the URL's query parameter \"\(keyword)\" has a second \"=\"")
            }
            var option = (keyword, try decoded(parts[1], in: "the query parameter \(keyword)"))
            // libpq's concession to JDBC URLs.
            if option == ("ssl", "true") { option = ("sslmode", "require") }
            options.append(option)
        }
        return options
    }

    /// libpq's percent-decoding: `%` and two hex digits, and no `%00`. The message names the part,
    /// never its text (it may be the password).
    private static func decoded(_ bytes: ArraySlice<UInt8>, in part: String) throws(ParseError) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes[index] == ascii("%") else {
                result.append(bytes[index])
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else {
                throw ParseError("invalid percent-encoding in \(part) of the URL")
            }
            let byte = high << 4 | low
            guard byte != 0 else { throw ParseError("%00 in \(part) of the URL") }
            result.append(byte)
            index += 3
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case ascii("0")...ascii("9"): byte - ascii("0")
        case ascii("a")...ascii("f"): byte - ascii("a") + 10
        case ascii("A")...ascii("F"): byte - ascii("A") + 10
        default: nil
        }
    }

    // MARK: - Keyword/value strings

    /// `keyword = value …`, separated by white space; a value in single quotes may hold spaces,
    /// and a backslash takes the next character as it is, inside quotes or not.
    static func keywordValueOptions(_ text: String) throws(ParseError) -> [(String, String)] {
        var options: [(String, String)] = []
        var characters = text.unicodeScalars[...]
        func skipSpaces() {
            while let first = characters.first, first.properties.isWhitespace { characters.removeFirst() }
        }
        while true {
            skipSpaces()
            guard !characters.isEmpty else { break }
            var keyword = ""
            while let first = characters.first, first != "=", !first.properties.isWhitespace {
                keyword.unicodeScalars.append(characters.removeFirst())
            }
            skipSpaces()
            guard characters.first == "=" else {
                throw ParseError("missing \"=\" after \"\(keyword)\" in the connection string")
            }
            characters.removeFirst()
            skipSpaces()
            var value = ""
            if characters.first == "'" {
                characters.removeFirst()
                while true {
                    guard let next = characters.popFirst() else {
                        throw ParseError("unterminated quoted string in the connection string")
                    }
                    if next == "'" { break }
                    if next == "\\", let escaped = characters.popFirst() {
                        value.unicodeScalars.append(escaped)
                    } else if next != "\\" {
                        value.unicodeScalars.append(next)
                    }
                }
            } else {
                while let next = characters.first, !next.properties.isWhitespace {
                    characters.removeFirst()
                    if next == "\\" {
                        if let escaped = characters.popFirst() { value.unicodeScalars.append(escaped) }
                    } else {
                        value.unicodeScalars.append(next)
                    }
                }
            }
            options.append((keyword, value))
        }
        return options
    }
}

/// The byte of an ASCII character, for the byte-wise URL reader.
private func ascii(_ character: Unicode.Scalar) -> UInt8 {
    UInt8(character.value)
}
