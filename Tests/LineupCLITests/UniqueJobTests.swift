import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Unique jobs")
    struct UniqueJobTests {
        @Test("a second job with a uniqueKey held by a queued or running job fails at once, naming it; the key is free once that job is done")
        func uniqueKey() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                for id in ["first", "second"] {
                    let result = try await sandbox.lineup([
                        "enqueue", "import-buoy", "input=\(sample.lastPathComponent)", "--id", id, "--unique-key", "waves",
                        "--spool", "spool",
                    ])
                    try #require(result.termination == .exited(0), "\(result.standardError)")
                }
                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                try await sandbox.poll("one job done and one failed", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1 && sandbox.jobFiles("failed").count == 1
                }
                #expect(try sandbox.resultReport(forJobFile: sandbox.jobFiles("done")[0]).id == "first")
                let refusal = try sandbox.failureReport(forJobFile: sandbox.jobFiles("failed")[0])
                #expect(refusal.id == "second" && !refusal.retryable && refusal.attempts == 1)
                #expect(refusal.reason.contains("refused: job first") && refusal.reason.contains("holds uniqueKey `waves`"), "\(refusal.reason)")

                let third = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=\(sample.lastPathComponent)", "--id", "third", "--unique-key", "waves",
                    "--spool", "spool",
                ])
                try #require(third.termination == .exited(0))
                try await sandbox.poll("the third job done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 2 }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
