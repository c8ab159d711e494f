/// Where a job is in its life: the one state that the spool, the jobs table, the status counts,
/// the API and the dashboard all speak of.
///
/// ```
///  enqueue ──▶ queued ──claim──▶ running ──its flush committed──▶ done
///                ▲                 │ │
///                └─────────────────┘ └──invalid, attempts used up, poison, a dependency failed──▶ failed
///              a stop, a lease that ran out,
///              a backoff kept in the table
/// ```
///
/// A spool keeps each state in a directory (``directoryName``), a jobs table in its `state`
/// column (``columnValue``). `done` and `failed` are final: only an operator's retry brings a
/// failed job back to `queued`. What happens within `running` (parked on a dependency, in the
/// queue, waiting for a backoff, awaiting the flush) is the runner's business and is not a state
/// of its own: for every reader outside the daemon the job is claimed and not yet settled.
public enum JobState: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Waiting to be claimed (due now or later).
    case queued
    /// Claimed by a daemon.
    case running
    /// Its changes were flushed; it has its result report.
    case done
    /// Settled without its changes; it has its error report.
    case failed

    /// The directory of the spool that holds jobs in this state.
    public var directoryName: String {
        switch self {
        case .queued: "new"
        case .running: "active"
        case .done: "done"
        case .failed: "failed"
        }
    }

    /// The value of the jobs table's `state` column for this state: its name. (Tables of job-table
    /// schema version 1 stored a queued job as `available`; version 2 renamed it.)
    public var columnValue: String { rawValue }

    /// The state whose ``columnValue`` is `value`; nil for any other text.
    public init?(columnValue value: String) {
        guard let state = Self.allCases.first(where: { $0.columnValue == value }) else { return nil }
        self = state
    }

    public var description: String { rawValue }
}
