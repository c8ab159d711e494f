import Foundation
import LineupJobs
import LineupLocking
import LineupSpool

extension JobTester {
    /// Has the daemon run every job that is due at the clock's time, through the real runner
    /// (claims, dependencies, retries, unique keys, time limits), flush, and go on with what
    /// that made due (jobs enqueued by the jobs), until nothing due is left. Jobs scheduled for
    /// later, and retries whose backoff is not over, stay: ``advance(by:)`` the clock, then
    /// drain again.
    ///
    /// A job that never ends keeps `drain()` waiting, as it would keep a daemon's slot: give
    /// it a time limit and advance the clock past it from another task.
    ///
    /// - Returns: the jobs that this drain left in `done/` and `failed/`.
    @discardableResult
    public func drain() async throws -> DrainReport {
        let doneBefore = Set(try spool.entries(.done).map(\.fileName))
        let failedBefore = Set(try spool.entries(.failed).map(\.fileName))
        draining.withLock { $0 = true }
        defer { draining.withLock { $0 = false } }
        var previous: Progress?
        while true {
            // Awaited: the status read next must see what this claim took.
            await daemon.claimAvailableJobs()
            let status = try await settle()
            _ = try await daemon.flush()
            // After the flush: it may have moved jobs enqueued with the data into the spool, and
            // the runner, which claims again when a flush ends, may have taken them already.
            let queue = try spool.queueSummary(now: clock.now)
            guard let after = await daemon.status() else {
                throw JobTesterError("the tester's daemon stopped")
            }
            let progress = Progress(
                queuedInSpool: queue.count, waitingForRetry: status.waitingForRetry,
                waitingForDependencies: status.waitingForDependencies, awaitingFlush: status.awaitingFlush)
            // Read after the queue: a job that left `new/` in between is the runner's by now,
            // running, or finished already and waiting for the next flush.
            let runnerIsBusy = !after.running.isEmpty || after.queued > 0
            let nothingLeft = queue.oldestDueSince == nil && !runnerIsBusy && after.awaitingFlush == 0
            if nothingLeft || (!runnerIsBusy && progress == previous) {
                break
            }
            previous = progress
        }
        let done = try spool.entries(.done).filter { !doneBefore.contains($0.fileName) }.map { try spool.resultReport(for: $0) }
        let failed = try spool.entries(.failed).filter { !failedBefore.contains($0.fileName) }.map { try spool.failureReport(for: $0) }
        return DrainReport(done: done.sorted { $0.name < $1.name }, failed: failed.sorted { $0.name < $1.name })
    }

    /// Moves the clock forward by `duration`: retries and time limits whose time has come fire,
    /// jobs whose `notBefore` has come become due, and the cron entries whose time has come
    /// are enqueued. Run ``drain()`` to have the daemon run what became due.
    public func advance(by duration: Duration) {
        clock.advance(by: duration)
        enqueueDueRecurringJobs()
    }

    /// Enqueues the recurring jobs whose time has come on the clock, as the daemon's cron does
    /// on the system's.
    func enqueueDueRecurringJobs() {
        if !cron.isEmpty {
            CronScheduler(spool: spool, logger: logger).enqueueDue(cron, now: clock.now)
        }
    }

    /// What the runner holds: equal twice, and nothing happened in between.
    struct Progress: Equatable {
        var queuedInSpool: Int
        var waitingForRetry: Int
        var waitingForDependencies: Int
        var awaitingFlush: Int
    }

    /// Waits until no task runs or waits for a thread; returns the runner's status then.
    private func settle() async throws -> DaemonStatus {
        while true {
            let seen = activity.version
            guard let status = await daemon.status() else {
                throw JobTesterError("the tester's daemon stopped")
            }
            if status.running.isEmpty, status.queued == 0 {
                return status
            }
            await activity.wait(after: seen)
        }
    }
}
