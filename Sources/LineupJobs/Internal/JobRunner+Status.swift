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
        for record in live.values {
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
        let settings = settings.withLock { $0 }
        var status = DaemonStatus(
            pid: ProcessInfo.processInfo.processIdentifier, phase: phase, startedAt: startedAt, updatedAt: Date(),
            maxConcurrentJobs: settings.totalConcurrency,
            flushInterval: DaemonConfiguration.seconds(settings.flushInterval), lastFlush: lastFlush,
            consecutiveFlushFailures: consecutiveFlushFailures, running: running,
            queued: max(0, queuedTaskCount - running.count),
            awaitingFlush: jobsAwaitingFlush,
            waitingForRetry: waitingForRetry, waitingForDependencies: waitingForDependencies,
            acknowledgementsFailingSince: acknowledgementStalledSince?.date, claimingPaused: isClaimingPaused)
        status.recentFlushes = recentFlushes
        status.acknowledgedPerMinute = acknowledgementRate.perMinute(endingAt: Date())
        status.mainContextUnsavedRows = mainContextUnsavedRows
        return status
    }

    /// Rewrites `status.json` (a failure only costs a stale status: logged, not thrown).
    func writeStatus() {
        assertOnCoordinator()
        do {
            try statusSnapshot().write(toSpoolAt: spool.root)
        } catch {
            logger.debug("cannot write status.json", metadata: ["error": "\(error)"])
        }
    }

    /// Reads the main context's unsaved rows (on its queue, without holding the coordinator up),
    /// then rewrites `status.json`; from any thread.
    func refreshStatus() async {
        let rows = await mainContextRows()
        await onCoordinator {
            self.mainContextUnsavedRows = rows
            self.writeStatus()
        }
    }

    /// The current status, from any thread.
    func status() async -> DaemonStatus {
        let rows = await mainContextRows()
        return await onCoordinator {
            self.mainContextUnsavedRows = rows
            return self.statusSnapshot()
        }
    }

    private func mainContextRows() async -> Int? {
        let main = container.mainContext
        return try? await main.perform { main.unsavedRowCount }
    }
}
