import Foundation
import LineupJobs
import LineupLocking
import LineupStore

/// A job that runs `task`'s work once every job sharing its barrier has started its first
/// attempt, so that overlapping imports overlap however busy the machine is. Later attempts
/// (retries) do not wait.
final class StartTogetherTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: immutable state beyond JobTask's own; the task and barrier are
    // Sendable.
    private let task: JobTask
    private let barrier: StartBarrier
    private let timeout: Double

    init(_ task: JobTask, request: JobRequest, barrier: StartBarrier, timeout: Double) {
        self.task = task
        self.barrier = barrier
        self.timeout = timeout
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        if request.attempt == 1 {
            guard barrier.arriveAndWait(timeout: timeout) else {
                throw JobError(
                    .jobFailed, "the other imports did not start within \(Int(timeout)) s", jobFile: request.jobFilePath,
                    isRetryable: false)
            }
        }
        return try task.run(in: context)
    }
}

/// Lets threads go on once `parties` of them have arrived.
final class StartBarrier: Sendable {
    private let parties: Int
    private let arrived = Locked(0)

    init(parties: Int) { self.parties = parties }

    /// Arrives, then waits until every party has; false when `timeout` seconds pass first.
    func arriveAndWait(timeout: Double) -> Bool {
        arrived.withLock { $0 += 1 }
        let deadline = Date().addingTimeInterval(timeout)
        while arrived.withLock({ $0 }) < parties {
            guard Date() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}
