/// What one flush of the daemon did: the main context saved into the writer, the writer into
/// the store (one transaction), then the jobs it carried acknowledged (moved to `done/`).
public struct FlushSummary: Sendable, Hashable {
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
    /// Changed rows moved from the main context into the writer.
    public var rowsFromMain: Int
    /// Changed rows written to disk.
    public var rowsWritten: Int
    /// Names of the jobs acknowledged by this flush, in the order they finished.
    public var acknowledged: [String]
    /// How long the store flush took.
    public var duration: Duration

    /// Makes a summary from its parts; the daemon makes these, tests and tools read them.
    public init(reason: Reason, rowsFromMain: Int, rowsWritten: Int, acknowledged: [String], duration: Duration) {
        self.reason = reason
        self.rowsFromMain = rowsFromMain
        self.rowsWritten = rowsWritten
        self.acknowledged = acknowledged
        self.duration = duration
    }
}
