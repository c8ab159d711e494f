import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Retention")
    struct RetentionCommandTests {
        @Test("lineupd --keep-done removes done jobs past their retention while it runs; lineup prune does it by hand")
        func keepDone() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon(["--keep-done", "1s", "--flush-interval", "0.2"])
                try await sandbox.enqueueImport(id: "sos", input: sample.lastPathComponent)
                try await sandbox.poll("the job to be done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 1 }
                try await sandbox.poll("the done job to be removed", timeout: .seconds(30), daemon: daemon) {
                    try sandbox.fileNames("done").isEmpty
                }
                // The line is logged just after the files go.
                try await sandbox.poll("the removal to be logged", timeout: .seconds(30), daemon: daemon) {
                    sandbox.daemonLog.contains("removed done jobs past their retention")
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                let other = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                try await sandbox.enqueueImport(id: "sos-2", input: sample.lastPathComponent)
                try await sandbox.poll("the second job to be done", timeout: .seconds(60), daemon: other) { try sandbox.jobFiles("done").count == 1 }
                other.send(SIGTERM)
                #expect(try await other.waitForExit(timeout: .seconds(60)) == .exited(0))
                let kept = try await sandbox.lineup(["prune", "--older-than", "1d", "--spool", "spool"])
                #expect(kept.standardOutput.hasPrefix("removed 0 done jobs"), "\(kept.standardOutput)")
                try await Task.sleep(for: .seconds(1.5))
                let pruned = try await sandbox.lineup(["prune", "--older-than", "1s", "--spool", "spool"])
                #expect(pruned.termination == .exited(0), "\(pruned.standardError)")
                #expect(pruned.standardOutput.hasPrefix("removed 1 done jobs"), "\(pruned.standardOutput)")
                #expect(try sandbox.fileNames("done").isEmpty)
            }
        }

        @Test(
            "lineupd --database --keep-done removes the table's done rows past their retention while it runs",
            .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
        func keepDoneOnADatabase() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon([
                    "--database", server.url(database: database), "--keep-done", "1s", "--flush-interval", "0.2",
                ])
                try await sandbox.enqueueImport(id: "sos", input: sample.lastPathComponent)
                try await sandbox.poll("the job to be done", timeout: .seconds(60), daemon: daemon) {
                    try server.psql("SELECT count(*) FROM lineup_jobs WHERE job_id = 'sos' AND state = 'done'", database: database) == "1"
                }
                try await sandbox.poll("the done row to be removed", timeout: .seconds(30), daemon: daemon) {
                    try server.psql("SELECT count(*) FROM lineup_jobs", database: database) == "0"
                }
                #expect(daemon.isRunning)
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
