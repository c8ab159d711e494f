/// Why the daemon could not start, reload or stop cleanly. (Why a *job* failed is a
/// ``JobError``; a failed job never stops the daemon.)
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case invalidConfiguration, spoolUnavailable, storeUnavailable, storePreparationFailed,
                finalFlushFailed, notRunning, alreadyOwned, jobsDidNotStop, flushesFailing, leaseLost, conflictWithAnotherDaemon
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The configuration file cannot be read or holds an invalid value.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The spool directory cannot be created, read or recovered.
        public static let spoolUnavailable = Code(.spoolUnavailable)
        /// The store cannot be opened (not ours, corrupt, newer than the model, I/O).
        public static let storeUnavailable = Code(.storeUnavailable)
        /// The store was opened but the daemon's preparation hook (e.g. seeding) failed.
        public static let storePreparationFailed = Code(.storePreparationFailed)
        /// The last flush at shutdown failed: the jobs it carried were returned to `new/`
        /// unacknowledged, to run again at the next start.
        public static let finalFlushFailed = Code(.finalFlushFailed)
        /// The daemon is not running (not started yet, or stopped), so it cannot flush.
        public static let notRunning = Code(.notRunning)
        /// Another process owns the spool or the store (see ``OwnershipLock``).
        public static let alreadyOwned = Code(.alreadyOwned)
        /// At shutdown, jobs ignored cancellation past the grace period and the cancellation
        /// timeout: their files stay in `active/` and the store was left open under them.
        public static let jobsDidNotStop = Code(.jobsDidNotStop)
        /// No job could be acknowledged for longer than `DaemonConfiguration.flushFailureTimeout`
        /// (flushes, or the filing of what they carried, kept failing: a full or failing disk):
        /// the daemon stopped by itself, leaving every unacknowledged job for the next start.
        public static let flushesFailing = Code(.flushesFailing)
        /// With jobs in a database: this daemon's lease ran out (its heartbeats did not reach the
        /// database in time), so other daemons took its jobs back. It stops without writing what
        /// those jobs did, since the daemons that run them again write it.
        public static let leaseLost = Code(.leaseLost)
        /// No longer thrown: a flush that meets rows another daemon wrote since is settled at the
        /// store by the changes' merge policies, or, under `.error`, fails and runs its jobs
        /// again, and the daemon goes on. Kept so that code which names it still compiles.
        public static let conflictWithAnotherDaemon = Code(.conflictWithAnotherDaemon)

        /// The code in words, as it appears in ``DaemonError/description``: `"store unavailable"`.
        public var description: String {
            switch value {
            case .invalidConfiguration: "invalid configuration"
            case .spoolUnavailable: "spool unavailable"
            case .storeUnavailable: "store unavailable"
            case .storePreparationFailed: "store preparation failed"
            case .finalFlushFailed: "final flush failed"
            case .notRunning: "not running"
            case .alreadyOwned: "already owned"
            case .jobsDidNotStop: "jobs did not stop"
            case .flushesFailing: "flushes failing"
            case .leaseLost: "lease lost"
            case .conflictWithAnotherDaemon: "conflict with another daemon"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The file or directory involved.
    public var path: String?
    /// A sentence that explains the problem.
    public var message: String
    /// The error this one wraps, if any.
    public var underlying: (any Error)?

    /// Makes an error; `path` is nil when no file is involved, `underlying` the error it wraps, if
    /// any.
    public init(_ code: Code, path: String?, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.underlying = underlying
    }

    /// `"<path>: <code>: <message>"`.
    public var description: String {
        var text = path.map { "\($0): " } ?? ""
        text += "\(code): \(message)"
        if let underlying {
            text += " (\(underlying))"
        }
        return text
    }
}
