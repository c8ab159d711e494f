import Foundation
import LineupSpool
import LineupStore
import Logging

extension JobRunner {
    /// Flushes on the coordinator (see ``flushNow(_:)``).
    func flush(_ reason: FlushSummary.Reason) async throws -> FlushSummary {
        try await onCoordinator { try self.flushNow(reason) }
    }

    /// Saves main into the writer and the writer into the store, then acknowledges the jobs
    /// that finished before the flush began (group commit): their result reports are written
    /// and their files moved to `done/`.
    ///
    /// If the store flush fails, nothing is acknowledged: the jobs keep waiting and the next
    /// flush (interval, signal or request) tries again; the main context keeps their changes
    /// (or the writer does, when only the disk write failed).
    @discardableResult
    func flushNow(_ reason: FlushSummary.Reason) throws -> FlushSummary {
        assertOnCoordinator()
        dependencyFlushScheduled = false
        // Every job in `group` saved into the main context before this point (its completion
        // reached the coordinator after its save), so the flush below carries its changes.
        let group = awaitingFlush
        let report: FlushReport
        do {
            report = try container.flush()
        } catch {
            consecutiveFlushFailures += 1
            lastFlush = DaemonStatus.Flush(
                at: Date(), reason: reason, succeeded: false, rowsWritten: 0, acknowledged: 0, error: "\(error)")
            logger.error(
                "flush failed; its jobs stay unacknowledged until a flush succeeds",
                metadata: [
                    "reason": "\(reason)", "jobs": "\(group.count)", "failures_in_a_row": "\(consecutiveFlushFailures)",
                    "error": "\(error)",
                ])
            events.emit(.flushFailed(reason: reason, error: "\(error)"))
            writeStatus()
            throw error
        }
        awaitingFlush.removeAll()
        consecutiveFlushFailures = 0
        awaitingFiling.append(contentsOf: group)
        let acknowledged = fileAcknowledged()
        let summary = FlushSummary(
            reason: reason, rowsFromMain: report.rowsFromMain, rowsWritten: report.rowsWritten,
            acknowledged: acknowledged, duration: report.duration)
        lastFlush = DaemonStatus.Flush(
            at: Date(), reason: reason, succeeded: true, rowsWritten: report.rowsWritten,
            acknowledged: acknowledged.count, error: nil)
        let level: Logger.Level = acknowledged.isEmpty && report.rowsWritten == 0 ? .debug : .info
        logger.log(
            level: level, "flushed",
            metadata: [
                "reason": "\(reason)", "rows": "\(report.rowsWritten)", "acknowledged": "\(acknowledged.count)",
                "ms": "\(Int(report.duration / .milliseconds(1)))",
            ])
        events.emit(.flushed(summary))
        writeStatus()
        return summary
    }

    /// Moves every flushed job to `done/` with its result report. Jobs that cannot be moved
    /// (an I/O error) stay for the next flush; their data is on disk already.
    private func fileAcknowledged() -> [String] {
        let pending = awaitingFiling
        guard !pending.isEmpty else { return [] }
        var reports: [ObjectIdentifier: JobResultReport] = [:]
        var batch: [(job: ClaimedJob, report: Data)] = []
        for record in pending {
            guard case let .awaitingFlush(report) = record.state else { continue }
            reports[ObjectIdentifier(record)] = report
            if let data = try? report.encoded() {
                batch.append((record.claimed, data))
            }
        }
        var filed: [JobRecord] = []
        do {
            try spool.complete(batch)
            filed = pending
        } catch {
            // The group stopped at its first error: find out job by job.
            logger.warning("cannot move a group of jobs to done/; moving them one by one", metadata: ["error": "\(error)"])
            for record in pending {
                guard let report = reports[ObjectIdentifier(record)] else { continue }
                do {
                    try spool.complete(record.claimed, report: report)
                    filed.append(record)
                } catch where error.code == .notFound {
                    // Moved by the group call before it stopped.
                    filed.append(record)
                } catch {
                    logger.error(
                        "cannot move an acknowledged job to done/; retrying after the next flush",
                        metadata: ["job": "\(record.jobID)", "error": "\(error)"])
                }
            }
        }
        let filedSet = Set(filed.map(ObjectIdentifier.init))
        awaitingFiling = pending.filter { !filedSet.contains(ObjectIdentifier($0)) }
        for record in filed {
            guard let report = reports[ObjectIdentifier(record)] else { continue }
            if let id = record.file?.id {
                finished.note(id: id, .done)
            }
            // Announced before the gate opens, so that observers see a job acknowledged before
            // its dependents start.
            events.emit(.jobAcknowledged(record.info, report))
            settle(record, .acknowledged)
            logger.info("job acknowledged", metadata: ["job": "\(record.jobID)", "file": "done/\(record.claimed.fileName)"])
        }
        return filed.map(\.name)
    }

    /// Flushes soon, because a finished job has dependents waiting for its acknowledgement.
    func scheduleDependencyFlush() {
        assertOnCoordinator()
        guard !isStopping, !dependencyFlushScheduled else { return }
        dependencyFlushScheduled = true
        coordinator.async {
            guard self.dependencyFlushScheduled, !self.isStopping else { return }
            _ = try? self.flushNow(.dependency)
        }
    }
}
