import Foundation
import LineupSpool

/// The runner's bookkeeping for one claimed job, from claim to settlement. Confined to the
/// runner's coordinator queue (a class so that dependency edges can point at it).
final class JobRecord {
    enum State {
        /// Claimed; the job file is being read and resolved.
        case claimed
        /// Waiting for jobs named in `after` that have not been seen yet.
        case waitingForDependencies(unresolved: Set<String>)
        /// Its task is in the queue (waiting for a slot or a dependency, or running).
        case queued(JobTask)
        /// Waiting for the backoff delay before the next attempt.
        case waitingForRetry
        /// Its changes are in the main context; the next flush carries them (and moves its
        /// file to `done/` with this report).
        case awaitingFlush(JobResultReport)
        /// Settled: done, failed or released.
        case settled
    }

    let claimed: ClaimedJob
    let gate: AcknowledgementGate
    let file: JobFile?
    let jobID: String
    var state: State = .claimed
    var attempt = 0
    var policy: RetryPolicy
    /// The first attempt's task, made at claim time to validate the parameters at once.
    var preparedTask: JobTask?
    /// Gates of the jobs this one waits for.
    var dependencyGates: [AcknowledgementGate] = []
    /// How many jobs wait for this one's gate (they want it flushed soon).
    var dependentCount = 0
    var started = false
    var startedAt: Date?

    init(claimed: ClaimedJob, file: JobFile?, policy: RetryPolicy) {
        self.claimed = claimed
        self.file = file
        self.jobID = file?.id ?? claimed.name
        self.policy = policy
        self.gate = AcknowledgementGate(jobID: jobID)
    }

    var name: String { claimed.name }

    var info: JobInfo {
        JobInfo(name: claimed.name, id: file?.id, kind: file?.kind, attempt: attempt)
    }

    var isSettled: Bool {
        if case .settled = state { return true }
        return false
    }

    var task: JobTask? {
        if case let .queued(task) = state { return task }
        return nil
    }
}
