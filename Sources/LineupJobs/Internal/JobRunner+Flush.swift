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
    /// (group commit). The coordinator goes on claiming and starting jobs meanwhile; the state
    /// settles the group when the committer reports back (``RunnerState/flushEnded(_:after:_:at:date:)``).
    ///
    /// If the store flush fails, nothing is acknowledged: the jobs keep waiting and the next
    /// flush (interval, signal or request) tries again; the main context keeps their changes
    /// (or the writer does, when only the disk write failed).
    func beginFlush(_ reason: FlushSummary.Reason, completion: (@Sendable (FlushResult) -> Void)? = nil) {
        assertOnCoordinator()
        let group = state.flushBegins()
        let started = ContinuousClock.now
        let traceStart = tracing.map { _ in DefaultTracerClock.now }
        committer.commit(group, logger: logger) { outcome in
            self.coordinator.async {
                let (result, actions) = self.state.flushEnded(reason, after: .now - started, outcome, at: .now, date: Date())
                self.perform(actions)
                completion?(result)
                if let traceStart { self.traceFlush(reason, start: traceStart, jobs: group.count, outcome: outcome) }
            }
        }
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
                acknowledged: state.lastFlush?.acknowledgedCount ?? 0)
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
            self.perform(self.state.mainContextIsFull())
        }
    }
}
