import Foundation
import Logging

/// What the benchmarks share: their work directory, their logger, verdicts.
enum BenchSupport {
    /// A new directory `lineup-bench-NAME-<uuid>` under `--dir` (or the temporary directory).
    static func makeWorkDirectory(_ options: BenchOptions, name: String) throws -> URL {
        let parent = options.directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        let directory = parent.appendingPathComponent("lineup-bench-\(name)-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError(.usage, "cannot create the work directory \(directory.path): \(error)")
        }
        return directory
    }

    /// Deletes the work directory unless `--keep` was given (then says where it is).
    static func finish(_ directory: URL, _ options: BenchOptions, name: String) {
        if options.keepFiles {
            progress("\(name): files kept in \(directory.path)")
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func makeDirectory(_ url: URL) throws -> URL {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw BenchError(.usage, "cannot create \(url.path): \(error)")
        }
        return url
    }

    /// Warnings and errors of the stack and the daemon, on stderr (stdout holds only the table
    /// and the RESULT lines). Info lines are off: a daemon at `info` logs three lines per job.
    static func logger() -> Logger {
        var logger = Logger(label: "lineup-bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }

    static func verdict(_ met: Bool) -> String {
        met ? "pass" : "MISS"
    }

    /// Seconds with three decimals, e.g. "0.214", for a RESULT line.
    static func plainSeconds(_ nanoseconds: UInt64) -> String {
        String(format: "%.3f", MonotonicClock.seconds(nanoseconds))
    }
}
