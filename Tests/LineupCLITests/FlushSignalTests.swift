import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// SIGUSR1 makes finished work durable now instead of at the next flush interval.
    @Suite("SIGUSR1")
    struct FlushSignalTests {
        @Test("a finished job waits for the flush in active/ with nothing on disk; SIGUSR1 writes it and files it in done/")
        func sigusr1FlushesAndAcknowledges() async throws {
            try await withSandbox { sandbox in
                try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon(["--flush-interval", "3600", "--no-flush-when-idle", "--concurrency", "1"])
                let enqueued = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=ndbc-sos-waves-sample.xml", "--id", "sample", "--spool", sandbox.spool.path,
                ])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")

                try await sandbox.poll("the import to finish and await the flush", daemon: daemon) {
                    sandbox.status()?.awaitingFlush == 1
                }
                #expect(sandbox.daemonLog.contains("job finished; acknowledged at the next flush"))
                #expect(try sandbox.jobFiles("active").count == 1)
                #expect(try sandbox.jobFiles("done") == [])
                let store = StoreInspector(url: sandbox.store)
                #expect(try store.observationCount() == 0, "the finished import reached the disk before any flush")

                let status = try await sandbox.lineup(["status", "--spool", sandbox.spool.path])
                #expect(status.termination == .exited(0))
                #expect(status.standardOutput.hasPrefix("queued 0, running 1, done 0, failed 0\n"), "\(status.standardOutput)")
                #expect(status.standardOutput.contains("daemon: pid \(daemon.pid), running"), "\(status.standardOutput)")
                #expect(status.standardOutput.contains("finished, awaiting the next flush: 1"), "\(status.standardOutput)")

                daemon.send(SIGUSR1)
                try await sandbox.poll("the job to reach done/ after SIGUSR1", daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1
                }
                #expect(sandbox.daemonLog.contains("SIGUSR1: flushing"))
                #expect(try store.observationCounts() == ["LNP01": 100, "LNP02": 100, "LNP03": 100])
                #expect(try sandbox.jobFiles("active") == [])
                let done = try sandbox.jobFiles("done")
                let report = try sandbox.resultReport(forJobFile: done[0])
                #expect(report.id == "sample")
                #expect(report.kind == "import-buoy")
                guard case let .object(counts)? = report.details["counts"] else {
                    Issue.record("no counts in the result report: \(report.details)")
                    return
                }
                #expect(counts["observationsInserted"] == .integer(300))
                #expect(counts["stationsInserted"] == .integer(3))

                try await sandbox.poll("status.json to show the signalled flush", daemon: daemon) {
                    sandbox.status()?.lastFlush?.reason == "signal"
                }
                let after = try await sandbox.lineup(["status", "--spool", sandbox.spool.path])
                #expect(after.standardOutput.hasPrefix("queued 0, running 0, done 1, failed 0\n"), "\(after.standardOutput)")
                #expect(after.standardOutput.contains("(signal) ok, "), "\(after.standardOutput)")
                #expect(after.standardOutput.contains(" rows, 1 jobs acknowledged"), "\(after.standardOutput)")

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                #expect(try store.integrityCheck() == "ok")
            }
        }
    }
}
