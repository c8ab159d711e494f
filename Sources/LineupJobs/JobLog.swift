public import Foundation
public import Logging
import LineupLocking

/// The latest log lines of each job, kept in memory for the dashboard's job page: every line
/// logged with a `job` metadata key (the runner's and the task's own), by that key (the job
/// file's `id`, or its name in the spool).
///
/// ```swift
/// let jobLog = JobLog()
/// LoggingSystem.bootstrap { MultiplexLogHandler([StreamLogHandler.standardError(label: $0), jobLog.handler(label: $0)]) }
/// jobLog.lines(ofJob: "nightly")
/// ```
///
/// Bounded: ``linesPerJob`` lines of each job, the newest kept, and ``jobLimit`` jobs, the
/// least recently logged forgotten first. The log stream (journald) keeps everything.
public final class JobLog: Sendable {
    /// One logged line.
    public struct Line: Sendable, Encodable, Equatable {
        public let time: Date
        public let level: String
        public let message: String
        /// The line's metadata but `job`, as text.
        public let metadata: [String: String]
    }

    public let linesPerJob: Int
    public let jobLimit: Int

    private struct State {
        var lines: [String: [Line]] = [:]
        /// When each job last logged, to forget the oldest.
        var lastLogged: [String: UInt64] = [:]
        var clock: UInt64 = 0
    }

    private let state = Locked(State())

    public init(linesPerJob: Int = 200, jobLimit: Int = 1_000) {
        precondition(linesPerJob > 0 && jobLimit > 0, "a job log keeps at least one line of one job")
        self.linesPerJob = linesPerJob
        self.jobLimit = jobLimit
    }

    /// The lines logged for `job`, oldest first.
    public func lines(ofJob job: String) -> [Line] {
        state.withLock { $0.lines[job] ?? [] }
    }

    /// A handler that records, for `LoggingSystem.bootstrap` beside the one that writes the log.
    public func handler(label: String) -> JobLogHandler {
        JobLogHandler(log: self)
    }

    func record(_ line: Line, of job: String) {
        state.withLock { state in
            state.clock += 1
            state.lastLogged[job] = state.clock
            var lines = state.lines[job] ?? []
            if lines.count >= linesPerJob { lines.removeFirst(lines.count - linesPerJob + 1) }
            lines.append(line)
            state.lines[job] = lines
            if state.lines.count > jobLimit, let oldest = state.lastLogged.min(by: { $0.value < $1.value })?.key {
                state.lines[oldest] = nil
                state.lastLogged[oldest] = nil
            }
        }
    }
}

/// Records into a ``JobLog`` the events that carry a `job` metadata key; others pass by.
public struct JobLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let log: JobLog

    init(log: JobLog) {
        self.log = log
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata(of: event)
        guard let job = fields.removeValue(forKey: "job") else { return }
        log.record(
            JobLog.Line(
                time: Date(), level: event.level.rawValue, message: event.message.description,
                metadata: fields.mapValues { "\($0)" }),
            of: "\(job)")
    }
}
