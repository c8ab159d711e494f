import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Scheduled jobs")
    struct ScheduledJobTests {
        @Test("a job enqueued --in 3s runs then, not before; a job that waits for it waits past the dependency timeout")
        func runsWhenDue() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"dependencyWaitTimeout": 1, "flushInterval": 0.2}"#.utf8).write(to: configuration)
                let daemon = try await sandbox.startDaemon(["--config", configuration.path])
                let enqueued = Date()
                let scheduled = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=\(sample.lastPathComponent)", "--id", "later", "--in", "3s", "--spool", "spool",
                ])
                try #require(scheduled.termination == .exited(0), "\(scheduled.standardError)")
                let dependent = try await sandbox.lineup([
                    "enqueue", "statistics", "output=statistics.json", "--id", "stats", "--after", "later", "--spool", "spool",
                ])
                try #require(dependent.termination == .exited(0), "\(dependent.standardError)")

                try await Task.sleep(for: .seconds(1.5))
                #expect(try sandbox.jobFiles("done").isEmpty)
                #expect(try sandbox.jobFiles("failed").isEmpty, "the dependent waits for the scheduled job")

                try await sandbox.poll("both jobs done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 2 }
                let report = try sandbox.resultReport(forJobFile: try #require(try sandbox.jobFiles("done").first { $0.contains(".t") }))
                #expect(report.id == "later")
                #expect(report.startedAt.timeIntervalSince(enqueued) >= 2.9, "started \(report.startedAt.timeIntervalSince(enqueued)) s after enqueue")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("a job file written by hand with notBefore is put back in new/ under a name that holds the time, then run")
        func handWrittenFile() async throws {
            try await withSandbox { sandbox in
                let due = Date().addingTimeInterval(2).ISO8601Format()
                try sandbox.dropJob(
                    named: "by-hand.job.json",
                    contents: #"{"kind": "statistics", "output": "s.json", "notBefore": "\#(due)"}"#)
                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                try await sandbox.poll("the job to be postponed", timeout: .seconds(30), daemon: daemon) {
                    try sandbox.jobFiles("new").contains { $0.hasPrefix("by-hand.t") }
                }
                try await sandbox.poll("the job to be done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 1 }
                #expect(sandbox.daemonLog.contains("job scheduled"))
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
