import Foundation
import LineupJobs
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("lineup status")
struct StatusCommandTests {
    /// A spool with one queued job, one cancelled (failed) job, and a daemon's status file that
    /// shows a job 40% through after 10 s, and `alsoRunning`.
    func prepare(_ sandbox: Sandbox, alsoRunning: [DaemonStatus.RunningJob] = []) async throws {
        for (kind, id) in [("statistics", "queued-one"), ("statistics", "gone")] {
            let result = try await sandbox.lineup(["enqueue", kind, "output=s.json", "--id", id, "--spool", "spool"])
            try #require(result.termination == .exited(0))
        }
        let cancelled = try await sandbox.lineup(["cancel", "gone", "--spool", "spool"])
        try #require(cancelled.termination == .exited(0))
        let updated = Date(timeIntervalSince1970: 1_800_000_000)
        let status = DaemonStatus(
            pid: 4242, phase: .running, startedAt: updated.addingTimeInterval(-60), updatedAt: updated, maxConcurrentJobs: 2,
            flushInterval: 5, lastFlush: nil, consecutiveFlushFailures: 0,
            running: [
                DaemonStatus.RunningJob(
                    job: JobInfo(name: "n", claim: "0123456789ab", id: "big-import", kind: "import-buoy", attempt: 1),
                    startedAt: updated.addingTimeInterval(-10),
                    progress: JobProgress.Snapshot(completedUnitCount: 400, totalUnitCount: 1_000))
            ] + alsoRunning,
            queued: 1, awaitingFlush: 0, waitingForRetry: 0, waitingForDependencies: 0)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(status).write(to: DaemonStatus.url(inSpoolAt: sandbox.spool))
    }

    @Test("running jobs show a progress bar and the time left, and the recent failures are listed")
    func text() async throws {
        try await withSandbox { sandbox in
            try await prepare(sandbox)
            let result = try await sandbox.lineup(["status", "--spool", "spool"])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            let output = result.standardOutput
            #expect(output.hasPrefix("queued 1, running 0, done 0, failed 1\n"), "\(output)")
            // 40% in 10 s: 15 s more at that pace.
            #expect(output.contains("running: import-buoy big-import (attempt 1) [########............] 40% (400/1000), about 15 s left"), "\(output)")
            #expect(output.contains("recent failures:\n  "), "\(output)")
            #expect(output.contains("(id gone, statistics): cancelled\n"), "\(output)")
        }
    }

    @Test("a job that does not know its total shows its count and its rate, not an empty bar")
    func unknownTotal() async throws {
        try await withSandbox { sandbox in
            let updated = Date(timeIntervalSince1970: 1_800_000_000)
            try await prepare(
                sandbox,
                alsoRunning: [
                    DaemonStatus.RunningJob(
                        job: JobInfo(name: "s", claim: "ba9876543210", id: "stream", kind: "import-buoy", attempt: 1),
                        startedAt: updated.addingTimeInterval(-32),
                        progress: JobProgress.Snapshot(completedUnitCount: 160_000, totalUnitCount: 0)),
                    DaemonStatus.RunningJob(
                        job: JobInfo(name: "w", claim: "ab0123456789", id: "waiting", kind: "import-buoy", attempt: 1),
                        startedAt: updated.addingTimeInterval(-3),
                        progress: JobProgress.Snapshot(completedUnitCount: 0, totalUnitCount: 0)),
                ])
            let result = try await sandbox.lineup(["status", "--spool", "spool"])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            let output = result.standardOutput
            // 160,000 in the 32 s it has run.
            #expect(output.contains("running: import-buoy stream (attempt 1) 160000 so far, 5000/s\n"), "\(output)")
            #expect(output.contains("running: import-buoy waiting (attempt 1) started 3 s ago\n"), "\(output)")
            #expect(!output.contains("/0)"), "\(output)")
        }
    }

    @Test("--json gives the same as one object for scripts")
    func json() async throws {
        try await withSandbox { sandbox in
            try await prepare(sandbox)
            let result = try await sandbox.lineup(["status", "--json", "--spool", "spool"])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(object["counts"] as? [String: Int] == ["queued": 1, "running": 0, "done": 0, "failed": 1])
            let failures = try #require(object["recentFailures"] as? [[String: Any]])
            #expect(failures.count == 1 && failures[0]["id"] as? String == "gone" && failures[0]["reason"] as? String == "cancelled")
            let daemon = try #require(object["daemon"] as? [String: Any])
            #expect(daemon["pid"] as? Int == 4242)
            #expect((daemon["running"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("--watch redraws in place until interrupted")
    func watch() async throws {
        try await withSandbox { sandbox in
            try await prepare(sandbox)
            let watcher = try sandbox.launch(Binaries.lineup, ["status", "--watch", "--interval", "0.1", "--spool", "spool"])
            try await sandbox.poll("three frames", timeout: .seconds(30)) {
                watcher.standardOutput.components(separatedBy: "\u{1B}[H\u{1B}[2J").count > 3
            }
            #expect(watcher.standardOutput.contains("queued 1, running 0, done 0, failed 1"))
            watcher.send(SIGINT)
            _ = try await watcher.waitForExit(timeout: .seconds(30))
        }
    }
}
