import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineup failed`, `retry`, `cancel` and `show`, as an operator runs them on a daemon's spool.
    @Suite("Operator commands")
    struct OperatorCommandsTests {
        @Test("a failed job is listed with its reason, shown, queued again once with a fresh attempt count, and fails afresh")
        func failedRetryShow() async throws {
            try await withSandbox { sandbox in
                var daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                let enqueued = try await sandbox.lineup(["enqueue", "no-such-kind", "--id", "broken", "--spool", "spool"])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                try await sandbox.poll("the job to fail", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                let listed = try await sandbox.lineup(["failed", "--spool", "spool"])
                #expect(listed.termination == .exited(0))
                #expect(listed.standardOutput.contains("id broken, no-such-kind, 1 attempt, failed "), "\(listed.standardOutput)")
                #expect(listed.standardOutput.hasSuffix("1 failed job\n"), "\(listed.standardOutput)")

                let shown = try await sandbox.lineup(["show", "broken", "--spool", "spool"])
                #expect(shown.termination == .exited(0))
                #expect(shown.standardOutput.contains(": failed/") && shown.standardOutput.contains(#""kind":"no-such-kind""#), "\(shown.standardOutput)")

                let failedFile = try sandbox.jobFiles("failed")[0]
                let retried = try await sandbox.lineup(["retry", "broken", "--spool", "spool"])
                #expect(retried.termination == .exited(0), "\(retried.standardError)")
                let queued = try sandbox.jobFiles("new")
                #expect(queued.count == 1)
                // The name it was enqueued under: no claim, no attempt or interruption count.
                #expect(queued == [Sandbox.enqueuedName(of: failedFile)], "\(queued), failed as \(failedFile)")
                #expect(try sandbox.fileNames("failed") == [], "the job file and its report left failed/")

                let again = try await sandbox.lineup(["retry", "broken", "--spool", "spool"])
                #expect(again.termination != .exited(0))
                #expect(again.standardError.contains("no failed job broken"), "\(again.standardError)")
                #expect(try sandbox.jobFiles("new").count == 1)

                daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                try await sandbox.poll("the retried job to fail again", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("failed").count == 1
                }
                let report = try sandbox.failureReport(forJobFile: try sandbox.jobFiles("failed")[0])
                #expect(report.attempts == 1 && report.id == "broken")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("a queued job is cancelled into failed/ with the reason \"cancelled\", once, and can be queued again")
        func cancel() async throws {
            try await withSandbox { sandbox in
                let enqueued = try await sandbox.lineup(["enqueue", "statistics", "output=s.json", "--id", "later", "--spool", "spool"])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                let cancelled = try await sandbox.lineup(["cancel", "later", "--spool", "spool"])
                #expect(cancelled.termination == .exited(0), "\(cancelled.standardError)")
                #expect(try sandbox.jobFiles("new") == [])
                let failed = try sandbox.jobFiles("failed")
                try #require(failed.count == 1)
                let report = try sandbox.failureReport(forJobFile: failed[0])
                #expect(report.reason == "cancelled" && report.id == "later" && report.kind == "statistics" && !report.retryable)

                let twice = try await sandbox.lineup(["cancel", "later", "--spool", "spool"])
                #expect(twice.termination != .exited(0))
                #expect(twice.standardError.contains("no queued job later"), "\(twice.standardError)")

                let retried = try await sandbox.lineup(["retry", "--all", "--spool", "spool"])
                #expect(retried.termination == .exited(0), "\(retried.standardError)")
                #expect(try sandbox.jobFiles("new").count == 1)
                #expect(try sandbox.jobFiles("failed") == [])
            }
        }

        @Test("lineup retry needs IDs or --all, not both")
        func retryArguments() async throws {
            try await withSandbox { sandbox in
                for arguments in [["retry"], ["retry", "x", "--all"]] {
                    let result = try await sandbox.lineup(arguments + ["--spool", "spool"])
                    #expect(result.termination == .exited(64), "\(arguments): \(result.termination)")
                }
            }
        }
    }
}
