import BuoyXML
import Foundation
import LineupSpool
import Testing
import LineupTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// SIGTERM while jobs run: stop claiming, give running jobs the grace period, cancel the
    /// rest and return them to `new/`, flush what finished, exit 0.
    @Suite("SIGTERM")
    struct ShutdownTests {
        /// Far more than an import can do within the grace period: it is still running when
        /// the grace period ends. And long enough to outlast the four small imports beside it,
        /// which wait for the main context behind its chunks: under the load of the other suites
        /// they took 2 s each in a debug build, and 200,000 observations were imported before
        /// the last of them was done.
        static let longObservationCount = 600_000
        static let gracePeriodSeconds = 2

        @Test("SIGTERM during a long import: exit 0, finished jobs done with their rows on disk, the long one back in new/")
        func sigtermDuringRunningJobs() async throws {
            try await withSandbox { sandbox in
                let clock = ContinuousClock()
                let writing = clock.now
                let long = SampleObservations(seed: 42, count: Self.longObservationCount, stations: 5)
                try SOSDocumentWriter.write(long, to: sandbox.input.appending(path: "long.xml"))
                print("SIGTERM test: wrote \(Self.longObservationCount) observations in \(clock.now - writing)")
                var expected: [String: [String: Int]] = ["long": [:]]
                for (index, station) in long.stations.enumerated() {
                    expected["long", default: [:]][station.stationID] = long.recordCount(ofStationAt: index)
                }
                for number in 1...4 {
                    let records = BuoyFixtures.records(station: "TERM\(number)", seed: UInt64(number), count: 40 * number)
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "small-\(number).xml"))
                    expected["small-\(number)"] = ["TERM\(number)": 40 * number]
                }

                // Nothing is flushed before SIGTERM (the long import's chunks would pass the row
                // limit): the final flush must carry the small imports.
                let daemon = try await sandbox.startDaemon([
                    "--concurrency", "2", "--grace-period", "\(Self.gracePeriodSeconds)", "--flush-interval", "3600", "--no-flush-when-idle",
                    "--flush-row-limit", "0",
                ])
                try await sandbox.enqueueImport(id: "long", input: "long.xml")
                for number in 1...4 {
                    try await sandbox.enqueueImport(id: "small-\(number)", input: "small-\(number).xml")
                }
                try await sandbox.poll("the long import to run while the small ones await the flush", daemon: daemon) {
                    guard let status = sandbox.status() else { return false }
                    return status.running.contains { $0.job.id == "long" } && status.awaitingFlush == 4
                }

                let signalled = clock.now
                daemon.send(SIGTERM)
                let termination = try await daemon.waitForExit(timeout: .seconds(Self.gracePeriodSeconds + 60))
                print("SIGTERM test: lineupd exited \(clock.now - signalled) after SIGTERM (grace period \(Self.gracePeriodSeconds) s)")
                #expect(termination == .exited(0), "\(daemon.logTail())")

                #expect(try sandbox.jobFiles("active") == [])
                #expect(try sandbox.jobFiles("tmp") == [])
                var location: [String: [String]] = [:]
                for directory in ["done", "new", "failed"] {
                    for file in try sandbox.jobFiles(directory) {
                        location[try sandbox.job(directory, file).id ?? file, default: []].append(directory)
                    }
                }
                #expect(location == ["long": ["new"], "small-1": ["done"], "small-2": ["done"], "small-3": ["done"], "small-4": ["done"]])
                // Released at shutdown, not interrupted: the file goes back under its own name.
                #expect(try sandbox.jobFiles("new").allSatisfy { !$0.contains(".i") })
                #expect(sandbox.daemonLog.contains("grace period over; cancelling running jobs"))
                #expect(sandbox.daemonLog.contains("job returned to new/"))

                let store = StoreInspector(url: sandbox.store)
                let onDisk = try store.observationCounts()
                for (job, directories) in location {
                    for (station, count) in expected[job] ?? [:] {
                        if directories == ["done"] {
                            #expect(onDisk[station] == count, "\(job) is done, so all of \(station) must be on disk")
                        } else {
                            // Chunks saved before cancellation may be on disk: a re-run upserts the rest.
                            #expect((onDisk[station] ?? 0) <= count, "\(job): \(station)")
                        }
                    }
                }
                print("SIGTERM test: the cancelled import left \(expected["long"]!.keys.reduce(0) { $0 + (onDisk[$1] ?? 0) }) of its rows on disk")
                #expect(try store.duplicateObservationKeys() == 0)
                #expect(try store.integrityCheck() == "ok")
                #expect(sandbox.status()?.phase == "stopped")
            }
        }
    }
}
