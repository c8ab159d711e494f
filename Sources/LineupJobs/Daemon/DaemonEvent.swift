public import Foundation
public import LineupSpool

/// Something the daemon did, for observers (tests, a supervisor UI). Subscribe with
/// ``JobDaemon/events()`` before ``JobDaemon/run()`` to see every event.
public enum DaemonEvent: Sendable {
    /// The store is open, `active/` is recovered, claiming has begun.
    case started(recovery: SpoolRecovery)
    /// A job file was claimed (moved to `active/`).
    case jobClaimed(JobInfo)
    /// The job waits for jobs named in its `after` list that have not been seen yet (see
    /// ``DaemonConfiguration/dependencyWaitTimeout``).
    case jobWaitingForDependencies(JobInfo, ids: [String])
    /// An attempt began running on the queue.
    case jobStarted(JobInfo)
    /// An attempt succeeded: its changes are in the main context, waiting for a flush.
    case jobFinished(JobInfo)
    /// An attempt failed and the job will be attempted again after `delay`.
    case retryScheduled(JobInfo, delay: Duration, error: String)
    /// The job went to `failed/` with this report.
    case jobFailed(JobInfo, JobFailureReport)
    /// A flush carried the job's changes to disk and its file went to `done/` with this report.
    case jobAcknowledged(JobInfo, JobResultReport)
    /// At shutdown the job was cancelled or not started, and its file returned to `new/`.
    case jobReleased(JobInfo)
    /// The job's `notBefore` time is still to come: its file went back to `new/`, named so
    /// that it is claimed again then.
    case jobScheduled(JobInfo, notBefore: Date)
    /// A flush committed (and acknowledged the jobs it carried).
    case flushed(FlushSummary)
    /// A flush failed; its jobs stay unacknowledged and the next flush tries again.
    case flushFailed(reason: FlushSummary.Reason, error: String)
    /// The reloadable settings changed (SIGHUP or ``JobDaemon/reload()``).
    case reloaded(DaemonConfiguration)
    /// Shutdown began: no job is claimed or started from now on (jobs waiting for a retry or
    /// for an unknown dependency are already back in `new/`); running jobs get the grace
    /// period.
    case stopping
    /// The daemon stopped: final flush and checkpoint done (or failed, see the log).
    case stopped
}
