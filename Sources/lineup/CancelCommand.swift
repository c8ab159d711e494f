import ArgumentParser
import Foundation
import LineupPostgres
import LineupSpool

/// `lineup cancel ID...`: a queued job is taken out of the queue into `failed/` (reason
/// "cancelled"); a running one is stopped by the daemon that runs it, which discards what it had
/// not saved and fails it as cancelled by an operator. The command waits (`--wait`) to say how
/// each running job ended: a job that finishes before its daemon reads the request is kept.
struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel jobs: queued ones fail at once, running ones are stopped by their daemon.",
        discussion: """
            A running job is stopped cooperatively: its task is cancelled (a synchronous task sees it at its next \
            checkCancellation(), an async one at its next suspension point), what it had not saved is discarded, and \
            it goes to failed/ as "cancelled by an operator", without retries. lineup retry queues it again.
            """)

    @Argument(help: "The jobs: a job's id field or the name it was enqueued under.")
    var ids: [String]
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Cancel the jobs of this PostgreSQL database (lineupd --database) instead of a spool's.")
    var database: String?
    @Option(help: "Seconds to wait for running jobs to stop (0: return once the daemon is asked).")
    var wait: Double = 10

    func validate() throws {
        guard wait >= 0, wait.isFinite else { throw ValidationError("--wait must be 0 or more seconds") }
    }

    func run() throws {
        let stillRunning = try database.map { try cancelInDatabase($0) } ?? cancelInSpool()
        guard stillRunning.isEmpty || wait == 0 else {
            throw CommandFailure(
                "\(stillRunning.joined(separator: ", ")): still running after \(wait) s; the request stays for its daemon (is lineupd running?)")
        }
    }

    /// Returns the running jobs that had not stopped when the wait ran out.
    private func cancelInSpool() throws -> [String] {
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        var requested: [String] = []
        for id in ids {
            let queued = try directory.entries(.queued, matching: id)
            for entry in queued {
                let failed = try directory.cancel(entry)
                print("\(entry.name): cancelled, now failed/\(failed.fileName)")
            }
            guard queued.isEmpty else { continue }
            guard try !directory.runningEntries(matching: id).isEmpty else {
                throw CommandFailure("no queued job \(id), and none running, in \(directory.root.path) (finished, or unknown)")
            }
            try directory.requestCancellation(ofJob: id)
            requested.append(id)
            print("\(id): running; its daemon is asked to stop it")
        }
        return waitForEnd(of: requested) { id in
            guard !directory.hasCancellationRequest(ofJob: id), try directory.runningEntries(matching: id).isEmpty else { return nil }
            if let failed = try directory.entries(.failed, matching: id).first {
                let reason = (try? directory.failureReport(for: failed))?.reason ?? "see failed/\(failed.fileName)"
                return "now failed/\(failed.fileName): \(reason)"
            }
            if let done = try directory.entries(.done, matching: id).first {
                return "finished before it could be stopped; done/\(done.fileName)"
            }
            return "no longer running"
        }
    }

    /// Returns the running jobs that had not stopped when the wait ran out.
    private func cancelInDatabase(_ url: String) throws -> [String] {
        let jobs = try JobDatabase(url: try DatabaseOption.url(url), logger: DatabaseOption.logger)
        defer { jobs.close() }
        let cancellation = try jobs.cancel(ids)
        for name in cancellation.failed { print("\(name): cancelled, now failed in \(jobs.location)") }
        for name in cancellation.requested { print("\(name): running; its daemon is asked to stop it") }
        let matched = Set(cancellation.failed + cancellation.requested)
        let unmatched = try ids.filter { id in
            try !matched.contains(id) && jobs.jobs(matching: id).allSatisfy { $0.state != .queued && $0.state != .running }
        }
        guard unmatched.isEmpty else {
            throw CommandFailure("no queued job \(unmatched.joined(separator: ", ")), and none running, in \(jobs.location) (finished, or unknown)")
        }
        return waitForEnd(of: cancellation.requested) { name in
            let stored = try jobs.jobs(matching: name)
            guard !stored.contains(where: { $0.state == .running }) else { return nil }
            guard let last = stored.last else { return "no longer running" }
            return last.state == .failed ? "now failed: \(last.reason ?? "?")" : "finished before it could be stopped; \(last.state)"
        }
    }

    /// Polls `end` for each job until it says how the job ended, or `wait` runs out; prints each
    /// end as it comes. Returns the jobs that had not ended.
    private func waitForEnd(of jobs: [String], _ end: (String) throws -> String?) -> [String] {
        guard wait > 0 else { return [] }
        var pending = jobs
        let deadline = Date().addingTimeInterval(wait)
        while !pending.isEmpty {
            pending = pending.filter { job in
                guard let ended = try? end(job) else { return true }
                print("\(job): \(ended)")
                return false
            }
            guard !pending.isEmpty, Date() < deadline else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return pending
    }
}
