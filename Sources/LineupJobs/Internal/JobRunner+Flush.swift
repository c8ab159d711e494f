import Foundation
import LineupSpool
import LineupStore
import Logging
import Synchronization
import Tracing
import LineupLocking

extension JobRunner {
    /// Flushes and acknowledges what the flush carried (see ``beginFlush(_:completion:)``);
    /// returns once the group is filed.
    func flush(_ reason: FlushSummary.Reason) async throws -> FlushSummary {
        try await withCheckedThrowingContinuation { continuation in
            coordinator.async {
                self.beginFlush(reason) { continuation.resume(with: $0) }
            }
        }
    }

    /// Hands the jobs that finished so far to the committer, which saves main into the writer
    /// and the writer into the store, then moves the jobs to `done/` with their result reports
    /// (group commit). The coordinator goes on claiming and starting jobs meanwhile; it settles
    /// the group in ``endFlush(_:startedAt:outcome:completion:)``.
    ///
    /// If the store flush fails, nothing is acknowledged: the jobs keep waiting and the next
    /// flush (interval, signal or request) tries again; the main context keeps their changes
    /// (or the writer does, when only the disk write failed).
    func beginFlush(
        _ reason: FlushSummary.Reason,
        completion: (@Sendable (Result<FlushSummary, any Error>) -> Void)? = nil
    ) {
        assertOnCoordinator()
        earlyFlushScheduled = false
        // Every job in the group saved into the main context before this point (its completion
        // reached the coordinator after its save), and the committer flushes after it, so the
        // flush carries their changes. Jobs flushed before whose filing failed go again.
        let jobs = acknowledgements.beginFlush().compactMap { record -> FinishedJob<Storage.Held>? in
            guard case let .awaitingFlush(job) = record.state else { return nil }
            return job
        }
        let started = ContinuousClock.now
        let traceStart = tracing.map { _ in DefaultTracerClock.now }
        let jobCount = jobs.count
        committer.commit(jobs, logger: logger) { outcome in
            self.coordinator.async {
                self.endFlush(reason, startedAt: started, outcome: outcome, completion: completion)
                if let traceStart { self.traceFlush(reason, start: traceStart, jobs: jobCount, outcome: outcome) }
            }
        }
    }

    /// Settles a committed group: acknowledges the jobs filed in `done/` (their dependents may
    /// start), keeps the others for the next flush, records the flush for `status.json`.
    private func endFlush(
        _ reason: FlushSummary.Reason, startedAt: ContinuousClock.Instant, outcome: CommitOutcome,
        completion: (@Sendable (Result<FlushSummary, any Error>) -> Void)?
    ) {
        assertOnCoordinator()
        let report: FlushReport
        switch outcome.flush {
        case let .failure(error) where outcome.discardedUnwritten:
            flushDiscarded(reason, error, after: .now - startedAt)
            completion?(.failure(error))
            return
        case let .failure(error):
            flushFailed(reason, error, after: .now - startedAt)
            completion?(.failure(error))
            return
        case let .success(flushed):
            report = flushed
        }
        let wasPaused = isClaimingPaused
        let settlement = acknowledgements.flushCommitted(filingFailed: outcome.filingError != nil, at: .now, Date()) {
            outcome.filed.contains($0.claim)
        }
        let logger = self.logger
        var acknowledged: [String] = []
        for record in settlement.acknowledged {
            guard case let .awaitingFlush(job) = record.state else { continue }
            // Announced before it is settled, so that observers see a job acknowledged before
            // its dependents start.
            events.emit(.jobAcknowledged(record.info, job.report))
            settle(record)
            acknowledged.append(record.name)
            logger.info("job acknowledged", metadata: ["job": "\(record.jobID)", "claim": "\(record.claim)"])
        }
        let summary = FlushSummary(
            reason: reason, rowsFromMain: report.rowsFromMain, rowsWritten: report.rowsWritten,
            acknowledged: acknowledged, duration: report.duration)
        noteFlush(summary)
        acknowledgementRate.count(acknowledged.count, at: Date())
        let level: Logger.Level = acknowledged.isEmpty && report.rowsWritten == 0 ? .debug : .info
        logger.log(
            level: level, "flushed",
            metadata: [
                "reason": "\(reason)", "rows": "\(report.rowsWritten)", "acknowledged": "\(acknowledged.count)",
                "ms": "\(Int(report.duration / .milliseconds(1)))",
            ])
        events.emit(.flushed(summary))
        if settlement.isStalled, let filingError = outcome.filingError {
            reportStalledAcknowledgements(
                "\(acknowledgements.awaitingFiling.count) flushed job(s) cannot be filed in done/: \(filingError)")
        }
        writeStatus()
        completion?(.success(summary))
        if wasPaused, !isClaimingPaused {
            logger.info("jobs are acknowledged again; claiming again")
        }
        // Claiming resumes, or dependents that waited in the claim window were settled.
        claimWhileRoom()
        // Jobs that finished while this flush ran: at once if they are many, else if nothing else
        // is left to do.
        flushIfGroupIsFull()
        flushIfIdle()
    }

    /// The oldest group's flush failed: its jobs wait for the next flush, in front of those that
    /// finished since.
    private func flushFailed(_ reason: FlushSummary.Reason, _ error: any Error, after duration: Duration) {
        let group = acknowledgements.flushFailed(at: .now, Date())
        let failures = acknowledgements.consecutiveFlushFailures
        noteFlush(FlushSummary(reason: reason, failedWith: "\(error)", duration: duration))
        logger.error(
            "flush failed; its jobs stay unacknowledged until a flush succeeds",
            metadata: [
                "reason": "\(reason)", "jobs": "\(group.count)", "failures_in_a_row": "\(failures)", "error": "\(error)",
            ])
        events.emit(.flushFailed(reason: reason, error: "\(error)"))
        reportStalledAcknowledgements("flush failed (\(failures) in a row): \(error)")
        writeStatus()
    }

    /// The oldest group's flush met rows that another writer of the store wrote since, which no
    /// merge policy settles, and what the stack held unwritten was discarded (``GroupCommitter``):
    /// every job whose changes it held runs again, reading the other writer's rows. Those are the
    /// group's, the jobs that finished since, and the attempts under way, which may have saved
    /// chunks. The daemon goes on.
    private func flushDiscarded(_ reason: FlushSummary.Reason, _ error: any Error, after duration: Duration) {
        let lost = acknowledgements.flushDiscarded()
        noteFlush(FlushSummary(reason: reason, failedWith: "\(error)", duration: duration))
        logger.error(
            "flush failed on rows that another writer of the store wrote since; its jobs run again",
            metadata: ["reason": "\(reason)", "jobs": "\(lost.count)", "error": "\(error)"])
        events.emit(.flushFailed(reason: reason, error: "\(error)"))
        for record in lost where record.hasFinishedRunning {
            handleFailure(record, error)
        }
        for record in live.values where record.runningTask != nil {
            record.discardedRows = error
        }
        writeStatus()
        claimWhileRoom()
    }

    /// The flush's span, once it has ended (see ``JobTracing/recordFlush(_:start:rowsWritten:rowsFromMain:acknowledged:)``).
    private func traceFlush(_ reason: FlushSummary.Reason, start: DefaultTracerClock.Instant, jobs: Int, outcome: CommitOutcome) {
        guard let tracing else { return }
        switch outcome.flush {
        case let .failure(error):
            tracing.recordFailedFlush(reason, start: start, jobs: jobs, error: error)
        case let .success(report):
            tracing.recordFlush(
                reason, start: start, rowsWritten: report.rowsWritten, rowsFromMain: report.rowsFromMain,
                acknowledged: lastFlush?.acknowledgedCount ?? 0)
        }
    }

    /// Keeps the flush for the status: the last one, and the last ones that did something.
    private func noteFlush(_ summary: FlushSummary) {
        let flush = summary.withoutNames
        lastFlush = flush
        guard flush.didSomething else { return }
        recentFlushes.insert(flush, at: 0)
        if recentFlushes.count > DaemonStatus.recentFlushLimit { recentFlushes.removeLast() }
    }

    /// Reports that finished jobs cannot be acknowledged (a flush failed, or filing what it
    /// carried did): claiming pauses once ``DaemonConfiguration/flushBacklogLimit`` jobs wait, and
    /// once this has lasted ``DaemonConfiguration/flushFailureTimeout`` the daemon is told to stop.
    private func reportStalledAcknowledgements(_ reason: String) {
        assertOnCoordinator()
        guard let since = acknowledgements.stalledSince else { return }
        let now = ContinuousClock.now
        let (limit, timeout) = settings.withLock { ($0.configuration.flushBacklogLimit, $0.configuration.flushFailureTimeout) }
        if isClaimingPaused {
            logger.warning(
                "claiming paused until a flush succeeds",
                metadata: ["awaiting_flush": "\(jobsAwaitingFlush)", "limit": "\(limit)", "error": "\(reason)"])
        }
        if now - since.instant >= timeout, !isStopping {
            flushFailureTimeoutExpired(
                "no job could be acknowledged for \(DaemonConfiguration.seconds(now - since.instant)) s "
                    + "(flushFailureTimeout \(DaemonConfiguration.seconds(timeout)) s): \(reason)")
        }
    }

    /// Flushes soon, before the interval is up: a finished job has dependents waiting for its
    /// acknowledgement, or the runner has run out of work.
    func scheduleEarlyFlush(_ reason: FlushSummary.Reason) {
        assertOnCoordinator()
        guard !isStopping, !earlyFlushScheduled else { return }
        earlyFlushScheduled = true
        coordinator.async {
            guard self.earlyFlushScheduled, !self.isStopping else { return }
            self.beginFlush(reason)
        }
    }

    /// Called on the main context's queue after a job's save was accepted into it: past
    /// ``DaemonConfiguration/flushRowLimit`` rows, flushes now rather than at the interval, so that a
    /// large import reaches the disk while it runs and the main context stays bounded. The
    /// flush is the committer's, like every other: the daemon has one way to flush. Saves that
    /// come while such a flush is asked for, or runs, ask for none more.
    func mainContextHolds(_ rows: Int) {
        let limit = settings.withLock { $0.configuration.flushRowLimit }
        guard limit > 0, rows > limit,
            rowLimitFlushPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        coordinator.async {
            defer { self.rowLimitFlushPending.store(false, ordering: .releasing) }
            guard !self.acknowledgements.isCommitting else { return }
            self.scheduleEarlyFlush(.rowLimit)
        }
    }

    /// Flushes when finished jobs wait for their acknowledgement and nothing else is to be
    /// done: nothing queued or running (claiming just found `new/` empty), no flush under way
    /// (its end looks again). Under load the queue never drains, and jobs are acknowledged in
    /// groups: one flush an interval, or one each ``flushIfGroupIsFull()``.
    func flushIfIdle() {
        assertOnCoordinator()
        guard acknowledgements.hasGroupToFlush, queuedTaskCount == 0, settings.withLock({ $0.configuration.flushesWhenIdle })
        else { return }
        scheduleEarlyFlush(.idle)
    }

    /// Flushes when ``DaemonConfiguration/flushJobLimit`` finished jobs wait for their acknowledgement
    /// and no flush is under way (its end looks again). Under a steady backlog the committer then
    /// files one group while the jobs of the next run, and each group is as large as the jobs
    /// that finished while it filed the last, rather than everything one flush interval holds,
    /// filed in one go (and waited for) at its end. While acknowledgements fail (a full disk),
    /// the interval paces the retries instead: a failed group is back among the jobs waiting,
    /// and each completion would otherwise try again at once.
    func flushIfGroupIsFull() {
        assertOnCoordinator()
        let limit = settings.withLock { $0.configuration.flushJobLimit }
        guard acknowledgements.isGroupFull(limit: limit) else { return }
        scheduleEarlyFlush(.jobLimit)
    }
}
