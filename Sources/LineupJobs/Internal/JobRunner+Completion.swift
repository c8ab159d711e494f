import Dispatch
import Foundation
import LineupLocking
import LineupSpool
import Logging

extension JobRunner {
    /// Builds the report of a task that succeeded and writes it into `tmp/` (see
    /// ``GroupCommitter/stage(_:of:logger:)``); nil for a task that did not succeed. Runs on the
    /// task's thread, before the completion hops to the coordinator: it touches only immutable,
    /// `Sendable` state.
    func stageReport(
        of task: JobTask, claimed: Storage.Held, id: String?, kind: String, attempt: Int, uniqueKey: String? = nil
    ) -> FinishedJob<Storage.Held>? {
        guard
            let report = task.resultReport(
                name: claimed.name, id: id, kind: kind, attempt: attempt, interruptions: claimed.interruptions, now: Date())
        else { return nil }
        var finished = committer.stage(report, of: claimed, logger: logger)
        finished.uniqueKey = uniqueKey
        return finished
    }

    /// A task left the queue: keep its result for the flush, retry it, fail it or release it.
    ///
    /// - Parameter finished: for a success, its report staged by ``stageReport(of:claimed:id:kind:attempt:)``.
    func taskCompleted(claim: String, task: JobTask, finished: FinishedJob<Storage.Held>?) {
        assertOnCoordinator()
        if let info = runawayTasks.removeValue(forKey: ObjectIdentifier(task)) {
            logger.warning("the task of a job that timed out has stopped at last; what it did was discarded", metadata: ["job": "\(info.id ?? info.name)"])
            resumeWaiters()
            return
        }
        guard let record = live[claim], record.task === task else { return }
        queuedTaskCount -= 1
        record.startedAt = task.startedAt
        let discardedRows = record.discardedRows
        record.discardedRows = nil
        switch (task.finalResult, discardedRows) {
        case let (.succeeded, discarded?):
            // What it saved before the discard is gone: the job runs again.
            handleFailure(record, discarded)
        case let (.succeeded(outcome), nil):
            guard let finished else { preconditionFailure("a successful task reached the coordinator without its report") }
            record.move(to: .awaitingFlush(finished))
            acknowledgements.finished(record)
            events.emit(.jobFinished(record.info))
            logger.info(
                "job finished; acknowledged at the next flush",
                metadata: ["job": "\(record.jobID)", "attempt": "\(record.attempt)", "summary": "\(outcome.summary)"])
            if let id = record.file?.id, dependencies.hasWaiters(forID: id) {
                scheduleEarlyFlush(.dependency)
            }
            flushIfGroupIsFull()
        case (.cancelled, _):
            release(record)
        case let (.failed(error), _):
            record.keptRowChanges += task.keptRowChanges
            handleFailure(record, error)
        }
        resumeWaiters()
        claimWhileRoom()
        flushIfIdle()
    }

    /// The attempt's time limit is up: stop the task, whose attempt then fails as timed out,
    /// unless it is saving already.
    func attemptTimedOut(claim: String, task: JobTask, after limit: Duration) {
        assertOnCoordinator()
        guard let record = live[claim], record.task === task, task.stop(.timedOut(after: limit)) else { return }
        logger.warning(
            "job timed out; cancelling it",
            metadata: [
                "job": "\(record.jobID)", "attempt": "\(record.attempt)",
                "timeout_s": "\(DaemonConfiguration.seconds(limit))",
            ])
        failIfStillRunning(claim: claim, task: task, stoppedFor: .timedOut(after: limit))
    }

    /// After the cancellation timeout, a stopped task that still runs is given up on: the job
    /// fails for good without it, and shutdown knows of its thread (``runawayTasks``).
    func failIfStillRunning(claim: String, task: JobTask, stoppedFor reason: AttemptStopReason) {
        let grace = settings.withLock { $0.configuration.cancellationTimeout }
        clock.schedule(grace, coordinator) { [weak task] in
            guard let task, let record = self.live[claim], record.task === task else { return }
            // Still running: give up on the thread, not on the promise that the job ends.
            self.queuedTaskCount -= 1
            record.startedAt = task.startedAt
            self.runawayTasks[ObjectIdentifier(task)] = record.info
            self.failPermanently(record, task.error(for: reason, stopped: false))
            self.resumeWaiters()
            self.claimWhileRoom()
        }
    }

    /// Retries the job after its backoff delay, or fails it for good.
    func handleFailure(_ record: Record, _ error: any Error) {
        assertOnCoordinator()
        let retryable = ErrorClassification.isRetryable(error)
        guard retryable, record.policy.allowsRetry(afterAttempt: record.attempt) else {
            failPermanently(record, error)
            return
        }
        if isStopping {
            // It would be retried: give it back to new/ for the next start instead.
            release(record)
            return
        }
        let delay = record.policy.delay(afterAttempt: record.attempt, jitter: jitter())
        let reason = describe(error, of: record)
        do {
            record.claimed = try jobs.recordFailedAttempt(of: record.claimed)
        } catch {
            // The retry goes on; only a restart before it succeeds would forget this attempt.
            logger.error(
                "cannot count a failed attempt in the job's file name", metadata: ["job": "\(record.jobID)", "error": "\(error)"])
        }
        record.move(to: .waitingForRetry)
        events.emit(.retryScheduled(record.info, delay: delay, error: reason))
        logger.warning(
            "job attempt failed; retrying",
            metadata: [
                "job": "\(record.jobID)", "attempt": "\(record.attempt)", "of": "\(record.policy.maxAttempts)",
                "delay_ms": "\(Int(delay / .milliseconds(1)))", "error": "\(reason)",
            ])
        let claim = record.claim
        clock.schedule(delay, coordinator) {
            guard let record = self.live[claim], case .waitingForRetry = record.state else { return }
            self.startAttempt(record)
        }
    }

    /// Writes the error report and moves the job to `failed/`.
    func failPermanently(_ record: Record, _ error: any Error) {
        assertOnCoordinator()
        let keptRows =
            record.keptRowChanges == 0
            ? ""
            : " (before failing, its attempts had saved \(record.keptRowChanges) row change(s) in chunks; "
                + "they are kept and may be on disk, and a re-run of the job upserts them)"
        let reason = describe(error, of: record, adding: keptRows)
        var report = JobFailureReport(
            name: record.name, id: record.file?.id, kind: record.file?.kind, reason: reason, attempts: record.attempt,
            interruptions: record.claimed.interruptions, retryable: ErrorClassification.isRetryable(error),
            startedAt: record.startedAt, finishedAt: Date())
        report.keptRowChanges = record.keptRowChanges
        do {
            try jobs.fail(record.claimed, report: report)
        } catch {
            // The file stays in active/; recovery at the next start deals with it.
            logger.error("cannot settle a failed job", metadata: ["job": "\(record.jobID)", "queue": "\(jobs.location)", "error": "\(error)"])
        }
        settle(record) {
            events.emit(.jobFailed(record.info, report))
            logger.error("job failed", metadata: ["job": "\(record.jobID)", "attempts": "\(record.attempt)", "error": "\(reason)"])
        }
    }

    /// Returns the job's file to `new/` (shutdown): it runs again at the next start.
    func release(_ record: Record) {
        assertOnCoordinator()
        do {
            try jobs.release(record.claimed)
        } catch {
            logger.error("cannot give a job back", metadata: ["job": "\(record.jobID)", "queue": "\(jobs.location)", "error": "\(error)"])
        }
        settle(record) {
            events.emit(.jobReleased(record.info))
            logger.info("job returned to new/", metadata: ["job": "\(record.jobID)"])
        }
    }

    /// Forgets the job, runs `announce`, then judges again the jobs parked on it: they may run
    /// now, or fail, after the job's own settlement is announced. The job storage tells already
    /// how it was settled (done, failed), or, for a job given back, that it was not.
    func settle(_ record: Record, then announce: () -> Void = {}) {
        record.move(to: .settled)
        record.preparedTask = nil
        live[record.claim] = nil
        announce()
        let waiters = dependencies.settle(claim: record.claim, id: record.file?.id)
        for claim in waiters.sorted() {
            if let waiting = live[claim] {
                resolveDependencies(waiting)
            }
        }
    }

    /// The error as a sentence that leads with what went wrong and names the job file as it was
    /// enqueued last, as ``JobError/description`` does; `note` goes between the two.
    func describe(_ error: any Error, of record: Record, adding note: String = "") -> String {
        if var error = error as? JobError {
            error.message += note
            return error.naming(jobFile: record.claimed.enqueuedFileName).description
        }
        return "\(record.file?.kind ?? "job") failed: \(error)\(note) (job file \(record.claimed.enqueuedFileName))"
    }
}
