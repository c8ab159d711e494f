import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineup enqueue --priority`, `--queue` and `--unique-for`, through the built binaries.
    @Suite("Priorities, queues and unique periods")
    struct PriorityCommandTests {
        @Test("--priority, --queue and --unique-for go into the job file, and the priority into its name in new/")
        func flags() async throws {
            try await withSandbox { sandbox in
                let arguments = [
                    "enqueue", "statistics", "output=stats", "--priority", "0", "--queue", "reports", "--unique-key", "monthly",
                    "--unique-for", "1h", "--spool", "spool",
                ]
                var result = try await sandbox.lineup(arguments + ["--dry-run"])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(
                    result.standardOutput
                        == #"{"kind":"statistics","output":"stats","priority":0,"queue":"reports","uniqueFor":3600,"uniqueKey":"monthly"}"# + "\n")
                result = try await sandbox.lineup(arguments)
                #expect(result.termination == .exited(0), "\(result.standardError)")
                let queued = try sandbox.jobFiles("new")
                #expect(queued.count == 1 && queued[0].hasSuffix(".p0.job.json"), "\(queued)")

                result = try await sandbox.lineup(["enqueue", "statistics", "--priority", "10", "--spool", "spool"])
                #expect(result.termination == .exited(64))
                #expect(result.standardError.contains("--priority must be from 0 (first) to 9 (last); found 10"), "\(result.standardError)")
                result = try await sandbox.lineup(["enqueue", "statistics", "--unique-for", "1h", "--spool", "spool"])
                #expect(result.termination == .exited(64))
                #expect(result.standardError.contains("--unique-for needs --unique-key"), "\(result.standardError)")
                result = try await sandbox.lineup(["enqueue", "statistics", "--unique-key", "k", "--unique-for", "soon", "--spool", "spool"])
                #expect(result.termination != .exited(0))
                #expect(try sandbox.jobFiles("new").count == 1, "nothing written by a refused command")
            }
        }

        @Test("a daemon running one job at a time runs the queued jobs by priority, then in the order they came")
        func order() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                for (id, priority) in [("ordinary", nil), ("background", "9"), ("urgent", "0"), ("ordinary-too", nil)] {
                    let result = try await sandbox.lineup(
                        ["enqueue", "import-buoy", "input=\(sample.lastPathComponent)", "--id", id, "--spool", "spool"]
                            + (priority.map { ["--priority", $0] } ?? []))
                    try #require(result.termination == .exited(0), "\(result.standardError)")
                }
                let daemon = try await sandbox.startDaemon(["--concurrency", "1", "--flush-interval", "0.2"])
                try await sandbox.poll("four jobs done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 4 }
                let reports = try sandbox.jobFiles("done").map { try sandbox.resultReport(forJobFile: $0) }
                #expect(reports.sorted { $0.startedAt < $1.startedAt }.map(\.id) == ["urgent", "ordinary", "ordinary-too", "background"])
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("--unique-for refuses a job while a job holding its key was done within the period")
        func uniqueFor() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                var result = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=\(sample.lastPathComponent)", "--id", "first", "--unique-key", "waves", "--spool", "spool",
                ])
                try #require(result.termination == .exited(0), "\(result.standardError)")
                try await sandbox.poll("the first job done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 1 }
                result = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=\(sample.lastPathComponent)", "--id", "second", "--unique-key", "waves",
                    "--unique-for", "1h", "--spool", "spool",
                ])
                try #require(result.termination == .exited(0), "\(result.standardError)")
                try await sandbox.poll("the second job failed", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }
                let refusal = try sandbox.failureReport(forJobFile: sandbox.jobFiles("failed")[0])
                #expect(refusal.id == "second" && !refusal.retryable)
                #expect(refusal.reason.contains("uniqueKey `waves`") && refusal.reason.contains("within uniqueFor (3600"), "\(refusal.reason)")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
