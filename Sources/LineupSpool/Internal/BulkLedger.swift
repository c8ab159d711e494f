import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bulk file's ledger: one JSON object a line, appended, saying what happened to a line of the
/// bulk (see `SpoolDirectory+Bulk.swift`). The last entry of a line wins.
enum BulkLedger {
    enum Outcome: String, Decodable {
        case done
        case failed
        case attemptFailed
    }

    /// A line's outcome, once it has one.
    enum Settled {
        /// Acknowledged, with its result report (pretty JSON, as in `done/`).
        case done(report: Data)
        /// Failed for good, with its error report (pretty JSON, as in `failed/`).
        case failed(report: Data)
    }

    /// What a ledger says.
    struct Contents {
        var settled: [Int: Settled] = [:]
        var failedAttempts: [Int: Int] = [:]
    }

    private struct Entry: Decodable {
        let line: Int
        let outcome: Outcome
        let failedAttempts: Int?
        let report: JSONValue?
    }

    /// An entry with a report (`done` or `failed`). A report is pretty JSON, whose line breaks
    /// and the indentation after them are only layout (a JSON string cannot hold a raw line
    /// break), so without them it is one line.
    static func entry(line: Int, outcome: Outcome, report: Data) -> Data {
        var entry: [UInt8] = []
        entry.reserveCapacity(report.count + 64)
        entry += "{\"line\":\(line),\"outcome\":\"\(outcome.rawValue)\",\"report\":".utf8
        report.withUnsafeBytes { bytes in
            // Copied a line at a time, each without its line break and the indentation after it.
            var lineStart = 0
            var position = 0
            while position < bytes.count {
                guard bytes[position] == UInt8(ascii: "\n") else {
                    position += 1
                    continue
                }
                entry.append(contentsOf: bytes[lineStart..<position])
                position += 1
                while position < bytes.count && bytes[position] == UInt8(ascii: " ") { position += 1 }
                lineStart = position
            }
            entry.append(contentsOf: bytes[lineStart..<position])
        }
        entry += "}\n".utf8
        return Data(entry)
    }

    /// An entry counting a line's failed attempts so far.
    static func entry(line: Int, failedAttempts: Int) -> Data {
        Data("{\"line\":\(line),\"outcome\":\"\(Outcome.attemptFailed.rawValue)\",\"failedAttempts\":\(failedAttempts)}\n".utf8)
    }

    static func append(_ entries: [Data], to path: String, sync: Bool) throws(SpoolError) {
        var bytes = Data()
        for entry in entries { bytes.append(entry) }
        try FileSystem.appendToFile(path, contents: bytes, sync: sync)
    }

    /// Reads the ledger at `path` (none yet: empty). An entry that a power cut left unfinished
    /// (no line break after it) is skipped and, when `repairing`, cut off the file, so that the
    /// next entry starts on a line of its own. Only the claim of the bulk, which appends to its
    /// ledger, may repair it: to a reader beside that claim, an append under way looks like an
    /// unfinished entry, and cutting it off would break the entry being written.
    static func read(_ path: String, repairing: Bool = true) throws(SpoolError) -> Contents {
        guard FileSystem.fileExists(path) else { return Contents() }
        let (data, _) = try FileSystem.readFile(path, limit: Int(Int32.max))
        var contents = Contents()
        var complete = data
        if let last = data.last, last != UInt8(ascii: "\n") {
            let end = data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? data.startIndex
            complete = data[data.startIndex..<end]
            if repairing {
                try FileSystem.truncateFile(path, to: complete.count)
            }
        }
        let decoder = JSONDecoder()
        for line in complete.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? decoder.decode(Entry.self, from: Data(line)) else { continue }
            switch entry.outcome {
            case .done, .failed:
                var report = Data()
                if case let .object(fields)? = entry.report, let encoded = try? ReportCoding.encode(fields) {
                    report = encoded
                }
                contents.settled[entry.line] = entry.outcome == .done ? .done(report: report) : .failed(report: report)
            case .attemptFailed:
                contents.failedAttempts[entry.line] = max(contents.failedAttempts[entry.line] ?? 0, entry.failedAttempts ?? 0)
            }
        }
        return contents
    }
}
