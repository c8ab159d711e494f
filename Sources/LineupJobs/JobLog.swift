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
        /// When the line was logged.
        public let time: Date
        /// Its level's name: `"info"`, `"error"`, ….
        public let level: String
        /// The message, as logged.
        public let message: String
        /// The line's metadata but `job`, as text.
        public let metadata: [String: String]
    }

    /// How many lines of each job are kept, the newest; default 200.
    public let linesPerJob: Int
    /// How many jobs' lines are kept; past it the least recently logged job is forgotten. Default
    /// 1,000.
    public let jobLimit: Int

    private struct State {
        var lines: [String: [Line]] = [:]
        /// When each job last logged, to forget the oldest.
        var lastLogged: [String: UInt64] = [:]
        var clock: UInt64 = 0
        /// Every line's job and time, oldest first from `head`: the least recently logged job is
        /// the first entry still its job's latest. Finding it so takes no walk over every job,
        /// which each new job past the limit would otherwise cost, under the lock that every log
        /// line of every thread takes. ``compact()`` keeps the list within about twice the jobs
        /// kept.
        var order: [(job: String, stamp: UInt64)] = []
        var head = 0

        mutating func forgetLeastRecentlyLogged() {
            while head < order.count {
                let (job, stamp) = order[head]
                head += 1
                if lastLogged[job] == stamp {
                    lines[job] = nil
                    lastLogged[job] = nil
                    return
                }
            }
        }

        /// Drops the entries that a later line of their job outdated once they outnumber the jobs,
        /// and those before `head` once they are half the list.
        mutating func compact() {
            let pending = order.count - head
            if pending > 2 * lastLogged.count + 16 {
                order = order[head...].filter { lastLogged[$0.job] == $0.stamp }
                head = 0
            } else if head > pending {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    private let state = Locked(State())

    /// Makes an empty log keeping `linesPerJob` lines of each of `jobLimit` jobs; both must be at
    /// least 1.
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
            state.order.append((job, state.clock))
            // In place: a copy of the job's lines for each line would cost as many as it keeps.
            state.lines[job, default: []].append(line)
            if state.lines[job]!.count > linesPerJob { state.lines[job]!.removeFirst() }
            if state.lines.count > jobLimit {
                state.forgetLeastRecentlyLogged()
            }
            state.compact()
        }
    }
}

/// Records into a ``JobLog`` the events that carry a `job` metadata key; others pass by.
public struct JobLogHandler: LogHandler {
    /// The least severe level recorded; `Logger` drops lines below it. Default `.info`.
    public var logLevel: Logger.Level = .info
    /// Metadata added to every line; the provider's and the line's own win over it for a shared
    /// key.
    public var metadata: Logger.Metadata = [:]
    /// Supplies metadata at each line, merged over ``metadata``; nil for none.
    public var metadataProvider: Logger.MetadataProvider?
    private let log: JobLog

    init(log: JobLog) {
        self.log = log
    }

    /// One key of ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records `event` under its `job` metadata (from any source), with its other metadata as text;
    /// an event without `job` is dropped.
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
