/// Where a job file lies in the spool.
public enum SpoolState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// In `new/`: waiting to be claimed.
    case queued
    /// In `active/`: claimed by a daemon.
    case running
    /// In `done/`, beside its result report.
    case done
    /// In `failed/`, beside its error report.
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

    public var description: String { rawValue }
}
