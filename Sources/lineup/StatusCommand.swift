import ArgumentParser
import Foundation
import LineupJobs
import LineupSpool

/// `lineup status`: queued, running (with progress), done and failed counts, and the last flush.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show a spool's jobs and the daemon's last flush.")

    @Option(help: "The spool directory.")
    var spool: String = "spool"

    func run() throws {
        let root = URL(fileURLWithPath: spool)
        let directory = try SpoolDirectory(root: root)
        let counts = try directory.counts()
        print("queued \(counts.queued), running \(counts.running), done \(counts.done), failed \(counts.failed)")
        for name in try directory.unrecognizedQueueEntries() {
            print("warning: new/\(name) is not named *.job.json and will never run")
        }
        guard let status = try? DaemonStatus(contentsOfSpoolAt: root) else {
            print("daemon: no status file (never started here)")
            return
        }
        let age = Date().timeIntervalSince(status.updatedAt)
        print("daemon: pid \(status.pid), \(status.phase.rawValue), status updated \(String(format: "%.1f", age)) s ago")
        if let flush = status.lastFlush {
            let outcome = flush.succeeded ? "ok, \(flush.rowsWritten) rows, \(flush.acknowledged) jobs acknowledged" : "FAILED: \(flush.error ?? "?")"
            print("last flush: \(flush.at.ISO8601Format()) (\(flush.reason)) \(outcome)")
        } else {
            print("last flush: none yet")
        }
        if let since = status.acknowledgementsFailingSince {
            print(
                "acknowledgements failing since \(since.ISO8601Format()) (\(status.consecutiveFlushFailures) failed flushes in a row); "
                    + (status.claimingPaused ? "claiming paused until a flush succeeds" : "still claiming"))
        }
        for job in status.running {
            let percent = job.progress.fractionCompleted.map { " \(Int($0 * 100))%" } ?? ""
            print("running: \(job.job)\(percent) (\(job.progress.completedUnitCount)/\(job.progress.totalUnitCount))")
        }
        if status.awaitingFlush > 0 { print("finished, awaiting the next flush: \(status.awaitingFlush)") }
        if status.waitingForRetry > 0 { print("waiting to retry: \(status.waitingForRetry)") }
        if status.waitingForDependencies > 0 { print("waiting for dependencies: \(status.waitingForDependencies)") }
    }
}
