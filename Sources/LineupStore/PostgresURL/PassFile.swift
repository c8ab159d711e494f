/// libpq's password file (`~/.pgpass`, or `PGPASSFILE` / `passfile`): one
/// `hostname:port:database:username:password` a line, the first line that matches wins. A field
/// that is `*` matches anything; `\:` and `\\` stand for `:` and `\`; a line that begins with `#`
/// is a comment. `localhost` matches a connection to the default socket directory too (the
/// caller names the host so: ``PostgresConnectionSettings/passFileHostName(of:)``).
struct PassFile {
    /// The lines that may match, as bytes: the fields are compared byte by byte, as libpq does.
    private let lines: [[UInt8]]

    init(contents: String) {
        lines = contents.utf8.split(separator: UInt8(ascii: "\n")).compactMap { line in
            var line = Array(line)
            while line.last == UInt8(ascii: "\r") || line.last == UInt8(ascii: "\n") { line.removeLast() }
            return line.isEmpty || line.first == UInt8(ascii: "#") ? nil : line
        }
    }

    /// The file at `path`, as libpq takes it: none when it is missing or unreadable, and none,
    /// with a warning to log, when it is not a plain file or others may read it (a password
    /// there is no secret any more, and libpq will not use it).
    static func load(_ path: String, environment: PostgresConnectionEnvironment) -> (PassFile?, warning: String?) {
        guard let status = environment.fileStatus(path) else { return (nil, nil) }
        guard status.isRegularFile else {
            return (nil, "password file \"\(path)\" is not a plain file; it is ignored")
        }
        guard status.permissions & 0o077 == 0 else {
            return (nil, "password file \"\(path)\" has group or world access; permissions should be u=rw (0600) or less; it is ignored")
        }
        guard let data = environment.readFile(path) else { return (nil, nil) }
        return (PassFile(contents: String(decoding: data, as: UTF8.self)), nil)
    }

    /// The password of the first line whose four fields match, unescaped.
    func password(host: String, port: String, database: String, user: String) -> String? {
        guard !database.isEmpty, !user.isEmpty else { return nil }
        for line in lines {
            var rest = line[...]
            var matches = true
            for value in [host, port, database, user] {
                guard let after = Self.afterField(rest, matching: Array(value.utf8)) else {
                    matches = false
                    break
                }
                rest = after
            }
            guard matches else { continue }
            var password: [UInt8] = []
            var index = rest.startIndex
            while index < rest.endIndex, rest[index] != UInt8(ascii: ":") {
                if rest[index] == UInt8(ascii: "\\"), index + 1 < rest.endIndex { index += 1 }
                password.append(rest[index])
                index += 1
            }
            return String(decoding: password, as: UTF8.self)
        }
        return nil
    }

    /// What follows the field at the start of `line` and its `:`, if the field matches `value`
    /// (libpq's `pwdfMatchesString`).
    private static func afterField(_ line: ArraySlice<UInt8>, matching value: [UInt8]) -> ArraySlice<UInt8>? {
        if line.starts(with: [UInt8(ascii: "*"), UInt8(ascii: ":")]) { return line.dropFirst(2) }
        var index = line.startIndex
        var valueIndex = 0
        while index < line.endIndex {
            var escaped = false
            if line[index] == UInt8(ascii: "\\") {
                index += 1
                escaped = true
                guard index < line.endIndex else { return nil }
            }
            if line[index] == UInt8(ascii: ":"), !escaped, valueIndex == value.count {
                return line[(index + 1)...]
            }
            guard valueIndex < value.count, line[index] == value[valueIndex] else { return nil }
            index += 1
            valueIndex += 1
        }
        return nil
    }
}
