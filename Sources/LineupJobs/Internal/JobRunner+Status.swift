import Foundation
import LineupSpool
import LineupStore
import Logging
import Synchronization
import LineupLocking

extension JobRunner {
    /// The status for `status.json`.
    func statusSnapshot() -> DaemonStatus {
        assertOnCoordinator()
        var running: [DaemonStatus.RunningJob] = []
        var waitingForRetry = 0
        var waitingForDependencies = 0
        for record in state.live.values {
            switch record.state {
            case let .queued(task) where task.startedAt != nil:
                running.append(
                    DaemonStatus.RunningJob(
                        job: record.info, startedAt: task.startedAt ?? startedAt, progress: task.progress.snapshot))
            case .waitingForRetry:
                waitingForRetry += 1
            case .waitingForDependencies:
                waitingForDependencies += 1
            default:
                break
            }
        }
        running.sort { ($0.startedAt, $0.job.name) < ($1.startedAt, $1.job.name) }
        let configuration = state.configuration
        var status = DaemonStatus(
            pid: ProcessInfo.processInfo.processIdentifier, phase: state.phase, startedAt: startedAt, updatedAt: Date(),
            maxConcurrentJobs: configuration.totalConcurrency,
            flushInterval: DaemonConfiguration.seconds(configuration.flushInterval), lastFlush: state.lastFlush,
            consecutiveFlushFailures: state.acknowledgements.consecutiveFlushFailures, running: running,
            queued: max(0, state.queuedTaskCount - running.count),
            awaitingFlush: state.acknowledgements.unacknowledgedCount,
            waitingForRetry: waitingForRetry, waitingForDependencies: waitingForDependencies,
            acknowledgementsFailingSince: state.acknowledgements.stalledSince?.date, claimingPaused: state.isClaimingPaused)
        status.recentFlushes = state.recentFlushes
        status.acknowledgedPerMinute = state.acknowledgementRate.perMinute(endingAt: Date())
        status.mainContextUnsavedRows = state.mainContextUnsavedRows
        status.paused = gate.paused.isEmpty ? nil : gate.paused.sorted()
        status.limits = limitStates(configuration)
        return status
    }

    /// Rewrites `status.json` (a failure only costs a stale status: logged, not thrown).
    func writeStatus() {
        assertOnCoordinator()
        do {
            try statusSnapshot().write(toSpoolAt: statusDirectory)
        } catch {
            logger.debug("cannot write status.json", metadata: ["error": "\(error)"])
        }
    }

    /// Rewrites `status.json`, from any thread, and asks the main context for its unsaved rows
    /// for the next one.
    func refreshStatus() async {
        countMainContextRows()
        await onCoordinator { self.writeStatus() }
    }

    /// The current status, from any thread.
    func status() async -> DaemonStatus {
        countMainContextRows()
        return await onCoordinator { self.statusSnapshot() }
    }

    /// Counts the main context's unsaved rows on its queue and hands the count to the
    /// coordinator. Never waited for: while a flush holds the main context, the status goes on
    /// being written with the count from before (a status that stalls with the disk would fail
    /// the operator just when it matters).
    private func countMainContextRows() {
        let main = container.mainContext
        main.perform {
            let rows = main.unsavedRowCount
            self.coordinator.async { self.state.mainContextUnsavedRows = rows }
        }
    }
}
