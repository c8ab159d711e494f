import Dispatch
import Foundation
import LineupSpool
import Logging

extension JobRunner {
    /// The first step of shutdown: no more claims, starts or retries; jobs that are not in the
    /// queue go back to `new/`. Returns once that is in effect.
    func stopStarting() async {
        await onCoordinator { self.beginStopping() }
    }

    /// The rest of shutdown, as DESIGN §3 orders it (after ``stopStarting()``): let running
    /// tasks finish within `gracePeriod`; cancel the rest; flush a last time (acknowledging what
    /// finished); return every job not acknowledged to `new/`, except those whose tasks ignored
    /// the cancellation for `cancellationTimeout`: they stay in `active/`.
    func finishShutdown(gracePeriod: Duration, cancellationTimeout: Duration) async -> RunnerShutdownOutcome {
        if !(await wait(until: .noRunningTasks, timeout: gracePeriod)) {
            let running = await onCoordinator { self.state.runningTaskCount }
            logger.warning(
                "grace period over; cancelling running jobs",
                metadata: ["running": "\(running)", "grace_s": "\(DaemonConfiguration.seconds(gracePeriod))"])
        }
        await onCoordinator { self.cancelQueuedTasks() }
        if !(await wait(until: .noQueuedTasks, timeout: cancellationTimeout)) {
            logger.error(
                "jobs ignored cancellation; they stay in active/ for the next start",
                metadata: ["timeout_s": "\(DaemonConfiguration.seconds(cancellationTimeout))"])
        }
        var flushError: (any Error)?
        do {
            _ = try await flush(.shutdown)
        } catch {
            flushError = error
        }
        let (abandoned, runaway) = await onCoordinator { (self.finishStopping(), self.state.runawayJobs) }
        return RunnerShutdownOutcome(flushError: flushError, abandoned: abandoned, runaway: runaway)
    }

    /// No more claims, starts or retries; jobs that are not in the queue go back to `new/`.
    private func beginStopping() {
        assertOnCoordinator()
        // Tasks already running go on; the others wait (they are cancelled after the grace).
        for queue in allQueues {
            queue.isSuspended = true
        }
        perform(state.stopStarting())
        do {
            try jobs.releaseUnhandedClaims()
        } catch {
            logger.error("cannot give back claimed jobs", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
        }
        writeStatus()
    }

    /// Cancels every task still in the queue, running or not, and lets the queue drain them.
    private func cancelQueuedTasks() {
        assertOnCoordinator()
        for task in state.queuedTasks {
            task.cancel()
        }
        for queue in allQueues {
            queue.isSuspended = false
        }
    }

    /// After the final flush: every job it did not acknowledge goes back to `new/`, but for the
    /// jobs whose tasks still run; returns those.
    private func finishStopping() -> [JobInfo] {
        assertOnCoordinator()
        let (abandoned, actions) = state.stopped()
        // A task that ignored its cancellation keeps its thread until it returns.
        attemptThreads.stop()
        perform(actions)
        return abandoned
    }

    // MARK: - Waiting

    /// Waits until `condition` holds, or `timeout` passes; returns whether it holds.
    func wait(until condition: WaitCondition, timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            coordinator.async {
                if self.state.holds(condition) {
                    continuation.resume(returning: true)
                    return
                }
                let token = self.waiters.add(condition, continuation)
                self.coordinator.asyncAfter(deadline: .now() + timeout.dispatchInterval) {
                    self.waiters.remove(token)?.resume(returning: false)
                }
            }
        }
    }

    func resumeWaiters() {
        assertOnCoordinator()
        // Asked after every attempt's end; a stop's steps wait only while the daemon stops.
        guard !waiters.isEmpty else { return }
        for continuation in waiters.removeAll(where: { self.state.holds($0) }) {
            continuation.resume(returning: true)
        }
    }
}

/// How the runner's shutdown ended.
struct RunnerShutdownOutcome: Sendable {
    /// The error of the final flush, if it failed (its jobs were returned to `new/`).
    var flushError: (any Error)?
    /// Jobs whose tasks still ran after the grace period and the cancellation timeout: left
    /// in `active/` for the next start's recovery, since their operations still run.
    var abandoned: [JobInfo]
    /// Jobs failed for good because their tasks did not stop when their time limit
    /// cancelled them, and whose tasks still run.
    var runaway: [JobInfo] = []

    /// Whether tasks still run: the store must stay open, and the jobs claimed.
    var leftTasksRunning: Bool {
        !abandoned.isEmpty || !runaway.isEmpty
    }
}
