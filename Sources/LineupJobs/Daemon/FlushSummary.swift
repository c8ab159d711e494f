public import Foundation

/// What one flush of the daemon did: the main context saved into the writer, the writer into
/// the store (one transaction), then the jobs it carried acknowledged (moved to `done/`); or why
/// it failed.
///
/// The one record of a flush: ``JobDaemon/flush()`` returns it, ``DaemonEvent/flushed(_:)``
/// carries it, the status file keeps the last ones (``DaemonStatus/lastFlush``,
/// ``DaemonStatus/recentFlushes``), and the dashboard's `POST /api/flush` answers with it. Its
/// JSON:
///
/// ```json
/// {"at":"…","reason":"interval","succeeded":true,"rowsFromMain":3,"rowsWritten":3,
///  "acknowledged":1,"acknowledgedJobs":["import-41013"],"milliseconds":4}
/// ```
///
/// `acknowledged` is a count in the JSON, as `status.json` has always had it; the names are in
/// `acknowledgedJobs`, which the status file leaves out (``withoutNames``): a flush may carry
/// thousands of jobs, and the status is written after every flush and every second. A failed
/// flush has `"succeeded":false` and its `error`.
public struct FlushSummary: Sendable, Hashable, Codable {
    /// Why the flush ran.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// The flush interval elapsed.
        case interval
        /// SIGUSR1.
        case signal
        /// ``JobDaemon/flush()`` was called.
        case request
        /// A finished job has dependents waiting for its acknowledgement.
        case dependency
        /// No job was queued or running any more (``DaemonConfiguration/flushesWhenIdle``).
        case idle
        /// The main context held more rows than ``DaemonConfiguration/flushRowLimit``.
        case rowLimit
        /// ``DaemonConfiguration/flushJobLimit`` finished jobs waited for their acknowledgement.
        case jobLimit
        /// The last flush before the daemon stops.
        case shutdown
    }

    /// Why the flush ran.
    public var reason: Reason
    /// When it ended.
    public var at: Date
    /// Changed rows moved from the main context into the writer.
    public var rowsFromMain: Int
    /// Changed rows written to disk (0 when it failed).
    public var rowsWritten: Int
    /// How many jobs this flush acknowledged (0 when it failed).
    public var acknowledgedCount: Int
    /// Names of the jobs acknowledged by this flush, in the order they finished; empty in the
    /// status file's copies (``withoutNames``).
    public var acknowledged: [String]
    /// How long the store flush took (until it failed, if it did).
    public var duration: Duration
    /// Why it failed; nil when it wrote its rows and acknowledged its jobs.
    public var error: String?

    /// Whether it wrote its rows and acknowledged its jobs.
    public var succeeded: Bool { error == nil }

    /// Whether it is worth keeping in ``DaemonStatus/recentFlushes``: it wrote rows, acknowledged
    /// jobs, or failed.
    public var didSomething: Bool { !succeeded || rowsWritten > 0 || acknowledgedCount > 0 }

    /// The flush as the status file keeps it: its count of acknowledged jobs without their names.
    public var withoutNames: FlushSummary {
        var copy = self
        copy.acknowledged = []
        return copy
    }

    /// A flush that succeeded.
    public init(reason: Reason, at: Date = Date(), rowsFromMain: Int, rowsWritten: Int, acknowledged: [String], duration: Duration) {
        self.reason = reason
        self.at = at
        self.rowsFromMain = rowsFromMain
        self.rowsWritten = rowsWritten
        self.acknowledgedCount = acknowledged.count
        self.acknowledged = acknowledged
        self.duration = duration
    }

    /// A flush that failed with `error`: nothing was written or acknowledged.
    public init(reason: Reason, at: Date = Date(), failedWith error: String, duration: Duration) {
        self.init(reason: reason, at: at, rowsFromMain: 0, rowsWritten: 0, acknowledged: [], duration: duration)
        self.error = error
    }

    private enum CodingKeys: String, CodingKey {
        case at, reason, succeeded, rowsFromMain, rowsWritten, acknowledged, acknowledgedJobs, milliseconds, error
    }

    /// Reads a flush as ``encode(to:)`` writes it, or as an older daemon's status file has it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reason = try container.decode(Reason.self, forKey: .reason)
        at = try container.decode(Date.self, forKey: .at)
        // A status file of a daemon before these keys has none of them.
        rowsFromMain = try container.decodeIfPresent(Int.self, forKey: .rowsFromMain) ?? 0
        rowsWritten = try container.decode(Int.self, forKey: .rowsWritten)
        acknowledgedCount = try container.decode(Int.self, forKey: .acknowledged)
        acknowledged = try container.decodeIfPresent([String].self, forKey: .acknowledgedJobs) ?? []
        duration = .milliseconds(try container.decodeIfPresent(Int.self, forKey: .milliseconds) ?? 0)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }

    /// Writes the flush as the type's documentation shows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(reason, forKey: .reason)
        try container.encode(succeeded, forKey: .succeeded)
        try container.encode(rowsFromMain, forKey: .rowsFromMain)
        try container.encode(rowsWritten, forKey: .rowsWritten)
        try container.encode(acknowledgedCount, forKey: .acknowledged)
        if !acknowledged.isEmpty {
            try container.encode(acknowledged, forKey: .acknowledgedJobs)
        }
        try container.encode(Int(duration / .milliseconds(1)), forKey: .milliseconds)
        try container.encodeIfPresent(error, forKey: .error)
    }
}
