import Foundation
public import Logging
import LineupLocking

/// A swift-log handler that writes one JSON object per line, for journald and log shippers
/// (`lineupd --log-format json`):
///
/// ```json
/// {"time":"2026-11-24T07:00:00.123456Z","level":"info","label":"lineupd","message":"job acknowledged","job":"sos","file":"done/sos.c3f…job.json"}
/// ```
///
/// The metadata is flattened into the object beside `time`, `level`, `label` and `message`
/// (a job's log lines carry `job`, `kind` and `attempt`); a metadata key that would take one
/// of those four names is written as `metadata.<key>` instead. Nested metadata becomes JSON
/// arrays and objects. Each line is written with one `write(2)`, so lines from threads do not
/// interleave.
public struct JSONLogHandler: LogHandler {
    /// The least severe level written; `Logger` drops lines below it before they reach the handler.
    /// Default `.info`.
    public var logLevel: Logger.Level = .info
    /// Metadata written with every line; the provider's and the line's own win over it for a shared
    /// key.
    public var metadata: Logger.Metadata = [:]
    /// Supplies metadata at each line, merged over ``metadata``; nil for none.
    public var metadataProvider: Logger.MetadataProvider?

    private let label: String
    private let output: Output

    /// A handler writing to standard error.
    public static func standardError(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> JSONLogHandler {
        JSONLogHandler(label: label, output: .standardError, metadataProvider: metadataProvider)
    }

    /// A handler writing to an open file descriptor, which must stay open while it is used.
    public init(label: String, fileDescriptor: Int32, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, output: Output(fileDescriptor: fileDescriptor), metadataProvider: metadataProvider)
    }

    private init(label: String, output: Output, metadataProvider: Logger.MetadataProvider?) {
        self.label = label
        self.output = output
        self.metadataProvider = metadataProvider
    }

    /// One key of ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one JSON line with one `write(2)`: the handler's metadata, the provider's,
    /// then the event's own, a later source winning a key; the event's error, if any, goes in
    /// `error` unless a key of that name is set.
    public func log(event: LogEvent) {
        var fields = metadata(of: event)
        if let error = event.error { fields["error"] = fields["error"] ?? "\(error)" }

        var line = "{\"time\":\(Self.quoted(Self.timestamp(Date())))"
        line += ",\"level\":\(Self.quoted(event.level.rawValue))"
        line += ",\"label\":\(Self.quoted(label))"
        line += ",\"message\":\(Self.quoted(event.message.description))"
        for key in fields.keys.sorted() {
            let name = Self.reservedKeys.contains(key) ? "metadata.\(key)" : key
            line += ",\(Self.quoted(name)):\(Self.json(fields[key]!))"
        }
        line += "}\n"
        output.write(line)
    }

    private static let reservedKeys: Set<String> = ["time", "level", "label", "message"]

    private static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .stringConvertible(let convertible): return quoted(convertible.description)
        case .array(let elements): return "[" + elements.map(json).joined(separator: ",") + "]"
        case .dictionary(let fields):
            return "{" + fields.keys.sorted().map { "\(quoted($0)):\(json(fields[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// UTC, to the microsecond: `2026-11-24T07:00:00.123456Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let microseconds = Int((date.timeIntervalSince1970 - Double(seconds)) * 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(microseconds, 6))Z"
    }

    /// Where the lines go: a file descriptor, written under a lock so that each line is whole.
    final class Output: Sendable {
        static let standardError = Output(fileDescriptor: 2)

        /// Behind a lock, which each line holds while it is written.
        private let fileDescriptor: Locked<Int32>

        init(fileDescriptor: Int32) {
            self.fileDescriptor = Locked(fileDescriptor)
        }

        func write(_ line: String) {
            var bytes = Array(line.utf8)
            fileDescriptor.withLock { fileDescriptor in
                var offset = 0
                while offset < bytes.count {
                    let written = bytes.withUnsafeMutableBytes { buffer in
                        Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    }
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}

extension LogHandler {
    /// The metadata of `event` as a handler writes it: the handler's own, then its provider's,
    /// then the event's, each taking precedence over the ones before.
    func metadata(of event: LogEvent) -> Logger.Metadata {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let explicit = event.metadata { fields.merge(explicit) { $1 } }
        return fields
    }
}
