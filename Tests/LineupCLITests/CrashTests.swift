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
    /// The crash test of the issue: SIGKILL at random moments while 200 jobs flow, a restart
    /// after each kill, and at the end every job in `done/` or `failed/` exactly once, no job
    /// file lost, no row duplicated or missing, and an intact store.
    @Suite("SIGKILL")
    struct CrashTests {
        static let jobCount = 200
        static let killCount = 25
        static let inputCount = 20
        static let stationCount = 5
        static let observationsPerInput = 120
        /// Kills land this long after a launch, uniformly: some during start-up (store open,
        /// recovery of `active/`), most while jobs run, flush and are filed.
        static let killWindowMilliseconds = 0..<400
        static let defaultSeed: UInt64 = 20_261_122

        @Test("200 jobs, 25 SIGKILLs at random moments, a restart after each: every job done exactly once, every row once")
        func randomKillsWhileJobsFlow() async throws {
            let seed = ProcessInfo.processInfo.environment["LINEUP_CRASH_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed
            print("crash test: seed \(seed) (LINEUP_CRASH_SEED=<n> replays another)")
            var random = SeededRandom(seed: seed)
            let clock = ContinuousClock()
            let began = clock.now
            try await withSandbox { sandbox in
                // 20 small inputs over 5 stations; inputs of one station overlap by half, so
                // re-imports update rows as well as insert them.
                var allRecords: [BuoyObservationRecord] = []
                for number in 0..<Self.inputCount {
                    let records = BuoyFixtures.records(
                        station: "CR0\(number % Self.stationCount + 1)", seed: UInt64(number + 1),
                        count: Self.observationsPerInput, offset: (number / Self.stationCount) * Self.observationsPerInput / 2)
                    allRecords += records
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "crash-\(number).xml"))
                }
                let expectedRows = BuoyFixtures.distinctKeysPerStation(allRecords)
                let jobs = try (0..<Self.jobCount).map { number in
                    try JobFile(
                        kind: "import-buoy", id: Self.jobID(number),
                        parameters: ["input": .string("crash-\(number % Self.inputCount).xml")])
                }
                // A high poison threshold: no job is interrupted often enough to be set aside, so
                // every job must end in done/.
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"poisonThreshold": 1000, "flushInterval": 0.2, "rescanInterval": 0.1, "statusInterval": 0.2, "concurrency": 2}"#
                        .utf8
                ).write(to: configuration)
                let arguments = ["--config", configuration.path]
                let spool = try SpoolDirectory(root: sandbox.spool)

                var killsDuringStartUp = 0
                var killsWithJobsInActive = 0
                let batch = Self.jobCount / Self.killCount
                for run in 0..<Self.killCount {
                    let startsBefore = sandbox.daemonLog.components(separatedBy: Sandbox.startedLine).count
                    let daemon = try sandbox.launch(
                        Binaries.lineupd, sandbox.daemonLocationArguments + arguments, logName: "lineupd")
                    // A producer enqueues while the daemon starts and runs.
                    for job in jobs[(run * batch)..<((run + 1) * batch)] {
                        try spool.enqueue(job)
                    }
                    // The kill moment is what this test varies at random; nothing waits on it.
                    let delay = Int.random(in: Self.killWindowMilliseconds, using: &random)
                    try await Task.sleep(for: .milliseconds(delay))
                    if try !sandbox.jobFiles("active").isEmpty { killsWithJobsInActive += 1 }
                    daemon.send(SIGKILL)
                    let termination = try await daemon.waitForExit(timeout: .seconds(30))
                    try #require(
                        termination == .signalled(SIGKILL),
                        "run \(run + 1) ended before its SIGKILL (\(termination))\n\(daemon.logTail())")
                    if sandbox.daemonLog.components(separatedBy: Sandbox.startedLine).count == startsBefore {
                        killsDuringStartUp += 1
                    }
                }

                let daemon = try await sandbox.startDaemon(arguments)
                try await sandbox.poll("every job to be done or failed", timeout: .seconds(120), daemon: daemon) {
                    try sandbox.jobFiles("done").count + sandbox.jobFiles("failed").count >= Self.jobCount
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0), "\(daemon.logTail())")

                // Every job file exactly once, in done/ or failed/, with its report beside it.
                var places: [String: [String]] = [:]
                var rerunAfterKills = 0
                var failureReasons: [String] = []
                var poisoned = 0
                for directory in ["done", "failed"] {
                    for file in try sandbox.jobFiles(directory) {
                        let id = try sandbox.job(directory, file).id ?? "<no id: \(file)>"
                        places[id, default: []].append(directory)
                        if directory == "done" {
                            let report = try sandbox.resultReport(forJobFile: file)
                            #expect(report.id == id, "\(file)")
                            if report.interruptions > 0 { rerunAfterKills += 1 }
                        } else {
                            let report = try sandbox.failureReport(forJobFile: file)
                            #expect(report.id == id, "\(file)")
                            if report.reason.contains("set aside as poison") { poisoned += 1 }
                            failureReasons.append("\(id): \(report.reason)")
                        }
                    }
                }
                let doneCount = places.values.filter { $0 == ["done"] }.count
                let failedCount = places.values.filter { $0 == ["failed"] }.count
                #expect(Set(places.keys) == Set((0..<Self.jobCount).map(Self.jobID)), "job files lost or invented")
                #expect(places.values.allSatisfy { $0.count == 1 }, "\(places.filter { $0.value.count != 1 })")
                #expect(failureReasons.isEmpty, "\(failureReasons.joined(separator: "\n"))")
                #expect(try sandbox.jobFiles("new") == [])
                #expect(try sandbox.jobFiles("active") == [])
                #expect(try sandbox.jobFiles("tmp") == [])
                // A kill between writing a report into tmp/ and renaming it may leave the report's
                // temporary file (`.<name>.result.json`); the daemon removes those after 36 h.
                let strayTemporaries = try sandbox.fileNames("tmp")
                #expect(
                    strayTemporaries.allSatisfy { $0.hasPrefix(".") && ($0.hasSuffix(".result.json") || $0.hasSuffix(".error.json")) },
                    "\(strayTemporaries)")

                // Every (station, time) once: none lost, none duplicated.
                let store = StoreInspector(url: sandbox.store)
                #expect(try store.observationCounts() == expectedRows)
                #expect(try store.duplicateObservationKeys() == 0)
                #expect(try store.orphanObservations() == 0)
                #expect(try store.stationRowCounts() == expectedRows.mapValues { _ in 1 })
                #expect(try store.integrityCheck() == "ok")

                print(
                    """
                    crash test: seed \(seed), \(Self.killCount) SIGKILLs (\(killsDuringStartUp) during start-up, \
                    \(killsWithJobsInActive) with jobs in active/), \(Self.killCount) restarts after a kill + 1 to drain; \
                    \(doneCount) done, \(failedCount) failed (\(poisoned) as poison), \(rerunAfterKills) done jobs re-run \
                    after a kill, \(strayTemporaries.count) stray report temporaries in tmp/; \
                    \(expectedRows.values.reduce(0, +)) rows on disk as expected; \(clock.now - began)
                    """)
            }
        }

        static func jobID(_ number: Int) -> String {
            "crash-\(String(repeating: "0", count: 3 - String(number).count))\(number)"
        }
    }
}
