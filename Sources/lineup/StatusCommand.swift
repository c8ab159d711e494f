import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// `lineup status`: queued, running (with progress and the time left), done and failed counts,
/// the daemon's last flush and the recent failures; `--json` for scripts, `--watch` to follow.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a spool's jobs, the daemon's last flush and the recent failures.")

    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Show the jobs of this PostgreSQL database (lineupd --database) instead of a spool's.")
    var database: String?
    @Flag(help: "Print one JSON object (counts, daemon, recentFailures, unrecognized) for scripts.")
    var json = false
    @Flag(help: "Redraw every --interval seconds until interrupted.")
    var watch = false
    @Option(help: "Seconds between redraws with --watch.")
    var interval: Double = 1

    func validate() throws {
        guard interval > 0, interval.isFinite else { throw ValidationError("--interval must be more than 0 seconds") }
    }

    func run() throws {
        let snapshot: () throws -> StatusSnapshot
        if let database {
            let jobs = try JobDatabase(url: try DatabaseOption.url(database), logger: DatabaseOption.logger)
            snapshot = { try StatusSnapshot(jobs) }
        } else {
            let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
            snapshot = { try StatusSnapshot(directory) }
        }
        guard watch else {
            print(try render(snapshot()), terminator: "")
            return
        }
        while true {
            // Home and clear, then the frame: the terminal redraws in place. Written unbuffered,
            // so that a pipe sees each frame as it is drawn.
            FileHandle.standardOutput.write(Data(("\u{1B}[H\u{1B}[2J" + (try render(snapshot()))).utf8))
            Thread.sleep(forTimeInterval: interval)
        }
    }

    private func render(_ snapshot: StatusSnapshot) throws -> String {
        json ? try snapshot.json() + "\n" : snapshot.text(now: Date())
    }
}

/// The text `lineup status` prints.
extension StatusSnapshot {
    func text(now: Date) -> String {
        var lines = ["\(counts)"]
        for name in unrecognized {
            lines.append("warning: new/\(name) is not named *.job.json and will never run")
        }
        if let status = daemon {
            let age = now.timeIntervalSince(status.updatedAt)
            lines.append("daemon: pid \(status.pid), \(status.phase.rawValue), status updated \(String(format: "%.1f", age)) s ago")
            if let flush = status.lastFlush {
                let outcome =
                    flush.succeeded
                    ? "ok, \(flush.rowsWritten) rows, \(flush.acknowledgedCount) jobs acknowledged" : "FAILED: \(flush.error ?? "?")"
                lines.append("last flush: \(flush.at.ISO8601Format()) (\(flush.reason)) \(outcome)")
            } else {
                lines.append("last flush: none yet")
            }
            if let since = status.acknowledgementsFailingSince {
                lines.append(
                    "acknowledgements failing since \(since.ISO8601Format()) (\(status.consecutiveFlushFailures) failed flushes in a row); "
                        + (status.claimingPaused ? "claiming paused until a flush succeeds" : "still claiming"))
            }
            for job in status.running {
                lines.append("running: \(job.job) \(Self.progress(job, now: status.updatedAt))")
            }
            if status.awaitingFlush > 0 { lines.append("finished, awaiting the next flush: \(status.awaitingFlush)") }
            if status.waitingForRetry > 0 { lines.append("waiting to retry: \(status.waitingForRetry)") }
            if status.waitingForDependencies > 0 { lines.append("waiting for dependencies: \(status.waitingForDependencies)") }
        } else if let daemons {
            lines.append(daemons.isEmpty ? "daemons: none holds a lease" : "daemons:")
            for daemon in daemons {
                let lease = daemon.leaseExpiresAt.timeIntervalSince(now)
                let state = lease >= 0 ? "lease for \(String(format: "%.1f", lease)) s" : "lease ran out \(String(format: "%.1f", -lease)) s ago"
                lines.append("  \(daemon.host) pid \(daemon.pid), since \(daemon.startedAt.ISO8601Format()), \(state)")
            }
        } else {
            lines.append("daemon: no status file (never started here)")
        }
        if let paused {
            lines.append("paused: \(paused.map(\.description).joined(separator: ", ")) (lineup resume to claim their jobs again)")
        }
        for limit in daemon?.limits ?? [] {
            lines.append("limit \(limit.scope): \(Self.limitText(limit))")
        }
        if !recentFailures.isEmpty {
            lines.append("recent failures:")
            for failure in recentFailures {
                let who = [failure.id.map { "id \($0)" }, failure.kind].compactMap { $0 }.joined(separator: ", ")
                lines.append("  \(failure.finishedAt.ISO8601Format()) \(failure.name) (\(who)): \(failure.reason)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `running 2/2, claimed 10/10 per 60 s, holding jobs back`.
    static func limitText(_ limit: DaemonStatus.LimitState) -> String {
        var parts: [String] = []
        if let maxRunning = limit.maxRunning { parts.append("running \(limit.running)/\(maxRunning)") }
        if let rate = limit.rate, let period = limit.period {
            parts.append("claimed \(limit.claimedInPeriod ?? 0)/\(rate) per \(period.formatted()) s")
        }
        parts.append(limit.holdingBack ? "holding jobs back" : "not holding jobs back")
        return parts.joined(separator: ", ")
    }

    /// `[########............] 40% (400/1000), about 12 s left`: the time left extrapolated from
    /// the time the job has run, as of the status file's last update. A job that does not know
    /// its total (an import reading a stream) shows its count and its rate: `160000 so far, 5300/s`.
    static func progress(_ job: DaemonStatus.RunningJob, now: Date) -> String {
        let elapsed = now.timeIntervalSince(job.startedAt)
        guard let fraction = job.progress.fractionCompleted else {
            let completed = job.progress.completedUnitCount
            guard completed > 0 else { return "started \(Self.duration(max(elapsed, 0))) ago" }
            var text = "\(completed) so far"
            if elapsed > 0 { text += ", \(Self.rate(Double(completed) / elapsed))" }
            return text
        }
        let counts = "(\(job.progress.completedUnitCount)/\(job.progress.totalUnitCount))"
        let width = 20
        let filled = Int((fraction * Double(width)).rounded(.down))
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        text += "\(Int((fraction * 100).rounded(.down)))% \(counts)"
        if fraction > 0, fraction < 1, elapsed > 0 {
            text += ", about \(Self.duration(elapsed * (1 - fraction) / fraction)) left"
        }
        return text
    }

    /// `5300/s`, or `12/min` for a slow job, whose per-second rate would round to nothing.
    static func rate(_ perSecond: Double) -> String {
        perSecond >= 1 ? "\(Int(perSecond.rounded()))/s" : "\(Int((perSecond * 60).rounded()))/min"
    }

    static func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<60: return "\(Int(seconds.rounded(.up))) s"
        case ..<3_600: return "\(Int((seconds / 60).rounded(.up))) min"
        default: return String(format: "%.1f h", seconds / 3_600)
        }
    }
}
