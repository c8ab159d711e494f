import LineupLocking

/// A job's progress, written by the task and read by the runner from other threads (for the
/// status file and for progress log lines).
///
/// Units are whatever the job counts (rows, bytes); a total of zero means "not known yet".
public final class JobProgress: Sendable {
    /// A consistent reading of the progress.
    public struct Snapshot: Sendable, Hashable, Codable {
        /// The units done so far, in the job's own unit (rows, bytes).
        public var completedUnitCount: Int64
        /// The units in all, in the same unit; 0 while not known.
        public var totalUnitCount: Int64

        /// Makes a reading from its two counts.
        public init(completedUnitCount: Int64, totalUnitCount: Int64) {
            self.completedUnitCount = completedUnitCount
            self.totalUnitCount = totalUnitCount
        }

        /// Completed over total, in `0...1`; nil while the total is not known.
        public var fractionCompleted: Double? {
            guard totalUnitCount > 0 else { return nil }
            return min(1, max(0, Double(completedUnitCount) / Double(totalUnitCount)))
        }
    }

    private let state = Locked(Snapshot(completedUnitCount: 0, totalUnitCount: 0))

    /// Makes a progress at 0 of an unknown total.
    public init() {}

    /// The current progress.
    public var snapshot: Snapshot {
        state.withLock { $0 }
    }

    /// Sets the completed units, and the total when given. Returns the previous snapshot.
    @discardableResult
    public func update(completed: Int64, total: Int64? = nil) -> Snapshot {
        state.withLock { snapshot in
            let previous = snapshot
            snapshot.completedUnitCount = completed
            if let total { snapshot.totalUnitCount = total }
            return previous
        }
    }
}
