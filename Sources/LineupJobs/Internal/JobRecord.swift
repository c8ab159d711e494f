import Foundation
import LineupSpool

/// What the runner knows of one claimed job, from claim to settlement: a value in
/// ``RunnerState``'s books, which alone changes it.
struct JobRecord<Held: HeldJob> {
    /// The runner's stages of a job it holds: every one of them is ``LineupSpool/JobState/running``
    /// to any reader outside the runner, until the job is settled (`done` or `failed`, or
    /// released back to `queued`).
    enum State {
        /// Claimed; the job file is being read and resolved.
        case claimed
        /// Parked until the jobs named in `after` with these ids settle (see ``DependencyBook``).
        case waitingForDependencies(unresolved: Set<String>)
        /// Its task is in the queue (waiting for a slot or a dependency, or running).
        case queued(JobTask)
        /// Waiting for the backoff delay before the next attempt.
        case waitingForRetry
        /// Its changes are in the main context; the next flush carries them, then the file
        /// moves to `done/` with this report (already staged in `tmp/`). It stays so while the
        /// committer flushes and files it.
        case awaitingFlush(FinishedJob<Held>)
        /// Settled: done, failed or released.
        case settled

        /// The stage, without what it holds.
        var stage: JobStage {
            switch self {
            case .claimed: .claimed
            case .waitingForDependencies: .waitingForDependencies
            case .queued: .queued
            case .waitingForRetry: .waitingForRetry
            case .awaitingFlush: .awaitingFlush
            case .settled: .settled
            }
        }
    }

    /// The claimed file; it changes name when a failed attempt is counted.
    var claimed: Held
    /// The job's file, or nil when it could not be read.
    var file: JobFile? { fixed.file }
    /// What the job is known by in logs and events: its id, else its name.
    var jobID: String { fixed.jobID }
    /// What does not change from claim to settlement, shared by every copy of the record: the
    /// books copy records in and out, and the file is the bulk of one.
    private let fixed: Fixed
    /// Where the job is; changed by ``move(to:)`` alone.
    private(set) var state: State = .claimed
    var attempt = 0
    var policy: RetryPolicy
    /// The first attempt's task, made at claim time to validate the parameters at once.
    var preparedTask: JobTask?
    /// Whether a timer is armed to fail the job if an id in its `after` list stays unknown.
    var awaitsUnknownDependencies = false
    /// When the last attempt's task began running (known once it completed).
    var startedAt: Date?
    /// Row changes that failed attempts had saved into the main context (see
    /// ``JobTask/keptRowChanges``), summed over the attempts of this claim.
    var keptRowChanges = 0
    /// Why the rows that the attempt under way saved into the main context were discarded (a
    /// flush met rows that no merge policy settles): even if it succeeds, it runs again.
    var discardedRows: (any Error)?

    private final class Fixed: Sendable {
        let file: JobFile?
        let jobID: String

        init(file: JobFile?, jobID: String) {
            self.file = file
            self.jobID = jobID
        }
    }

    init(claimed: Held, file: JobFile?, policy: RetryPolicy) {
        self.claimed = claimed
        self.fixed = Fixed(file: file, jobID: file?.id ?? claimed.name)
        self.policy = policy
    }

    /// Its attempt's task has ended, having begun at `startedAt`: returns why the rows it saved
    /// were discarded meanwhile, if they were (then it runs again even if it succeeded).
    mutating func attemptEnded(startedAt: Date?) -> (any Error)? {
        self.startedAt = startedAt
        defer { discardedRows = nil }
        return discardedRows
    }

    /// The task of the next attempt: the one made at claim time, once; after it, nil, and the
    /// attempt counts on (a new task is made for it).
    mutating func takePreparedTask() -> JobTask? {
        defer { preparedTask = nil }
        if preparedTask == nil {
            attempt += 1
        }
        return preparedTask
    }

    var name: String { claimed.name }

    /// Takes the job to its next stage: one of the moves of ``JobStage/moves``, the table that
    /// "How a job travels" shows. Any other is a bug of the runner's.
    mutating func move(to next: State) {
        assert(
            JobStage.allows(from: state.stage, to: next.stage),
            "job \(jobID): the runner has no move from \(state.stage) to \(next.stage)")
        state = next
    }

    /// What the runner knows the job by: its claim, which no other job shares.
    var claim: String { claimed.claim }

    var info: JobInfo {
        JobInfo(name: claimed.name, claim: claimed.claim, id: file?.id, kind: file?.kind, attempt: attempt)
    }

    /// Whether its last attempt succeeded and it waits for the flush that acknowledges it.
    var hasFinishedRunning: Bool {
        if case .awaitingFlush = state { return true }
        return false
    }

    var task: JobTask? {
        if case let .queued(task) = state { return task }
        return nil
    }

    /// Its task, if that task is running now (began and has not completed).
    var runningTask: JobTask? {
        guard let task, task.startedAt != nil else { return nil }
        return task
    }
}
