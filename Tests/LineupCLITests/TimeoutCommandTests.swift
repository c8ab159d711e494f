import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Time limits")
    struct TimeoutCommandTests {
        @Test("lineup enqueue --timeout: an import past its limit is cancelled and fails as timed out; the daemon goes on")
        func importPastItsTimeLimit() async throws {
            try await withSandbox { sandbox in
                // Far more than 0.2 s of work: the import checks for cancellation every
                // thousand records.
                let large = sandbox.input.appending(path: "large.xml")
                try BuoyFixtures.writeSOS(BuoyFixtures.records(station: "LNP01", seed: 7, count: 60_000), to: large)
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                let enqueued = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=large.xml", "--id", "large", "--timeout", "0.2s", "--max-attempts", "1",
                    "--spool", "spool",
                ])
                #expect(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                try await sandbox.poll("the import to fail", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("failed").count == 1
                }
                let failed = try #require(try sandbox.jobFiles("failed").first)
                let reason = try sandbox.failureReport(forJobFile: failed).reason
                #expect(reason.contains("timed out after 0.2 s"), "\(reason)")
                let listed = try await sandbox.lineup(["failed", "--spool", "spool"])
                #expect(listed.standardOutput.contains("timed out"), "\(listed.standardOutput)")

                try await sandbox.enqueueImport(id: "sample", input: sample.lastPathComponent)
                try await sandbox.poll("the next import to be done", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
