import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// One process owns a spool and a store: a second `lineupd`, on the same spool or only the
    /// same store, and `lineup run` against a live store are refused at start, naming the
    /// holder's pid; the first daemon goes on as if nothing happened.
    @Suite("One owner")
    struct OwnershipTests {
        @Test("a second lineupd and lineup run are refused while a daemon owns the spool and the store")
        func secondOwnersAreRefused() async throws {
            try await withSandbox { sandbox in
                let first = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                let holder = "pid \(first.pid) (lineupd)"

                // The same spool and store.
                let same = try await sandbox.run(Binaries.lineupd, sandbox.daemonLocationArguments, timeout: .seconds(30))
                #expect(same.termination == .exited(75), "\(same.termination)")
                #expect(same.standardError.contains("\(sandbox.spool.path)/lock"), "\(same.standardError)")
                #expect(same.standardError.contains("the spool is in use by \(holder)"), "\(same.standardError)")

                // Another spool, the same store.
                let otherSpool = sandbox.root.appending(path: "other-spool").path
                let sameStore = try await sandbox.run(
                    Binaries.lineupd,
                    ["--store", sandbox.store.path, "--spool", otherSpool, "--input", sandbox.input.path,
                     "--output", sandbox.output.path],
                    timeout: .seconds(30))
                #expect(sameStore.termination == .exited(75), "\(sameStore.termination)")
                #expect(sameStore.standardError.contains("the store is in use by \(holder)"), "\(sameStore.standardError)")

                // lineup run against the live store.
                try Data(#"{"kind": "statistics", "output": "stats.json"}"#.utf8)
                    .write(to: sandbox.root.appending(path: "stats.job.json"))
                let run = try await sandbox.lineup([
                    "run", "stats.job.json", "--store", sandbox.store.path, "--input", sandbox.input.path,
                    "--output", sandbox.output.path,
                ])
                #expect(run.termination != .exited(0))
                #expect(run.standardError.contains("the store is in use by \(holder)"), "\(run.standardError)")

                // The first daemon still owns both and runs jobs.
                #expect(first.isRunning)
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                try await sandbox.enqueueImport(id: "after-the-refusals", input: sample.lastPathComponent)
                try await sandbox.poll("the import to reach done/", daemon: first) {
                    try sandbox.jobFiles("done").count == 1
                }
                first.send(SIGTERM)
                #expect(try await first.waitForExit(timeout: .seconds(60)) == .exited(0))

                // Once it has stopped, the store is free again.
                let afterwards = try await sandbox.lineup([
                    "run", "stats.job.json", "--store", sandbox.store.path, "--input", sandbox.input.path,
                    "--output", sandbox.output.path,
                ])
                #expect(afterwards.termination == .exited(0), "\(afterwards.standardError)")
            }
        }
    }
}
