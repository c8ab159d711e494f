import BuoyXML
import Foundation
import LineupSpool
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// Issue 12's kill test: three `lineupd --database` on one PostgreSQL database, each with a
    /// spool of its own (three hosts, simulated by directories: no network namespaces), share a
    /// stream of imports while one of them, at random, is SIGKILLed and restarted, again and again.
    /// Every job is done exactly once, every row is there once, and the jobs a killed daemon held
    /// are taken back within its lease.
    @Suite("SIGKILL, three daemons on one database", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct DatabaseCrashTests {
        static let hostCount = 3
        static let killCount = 8
        static let jobsPerRound = 6
        static let observationsPerJob = 40
        /// Seconds: short, so that the test sees several leases run out.
        static let lease = 2.0
        static let defaultSeed: UInt64 = 20_261_125

        @Test("three daemons, 8 SIGKILLs of one of them: every job done once, every row once, no job held past the lease")
        func killsWhileThreeDaemonsShareTheJobs() async throws {
            let seed = ProcessInfo.processInfo.environment["LINEUP_CRASH_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed
            print("database crash test: seed \(seed) (LINEUP_CRASH_SEED=<n> replays another)")
            var random = SeededRandom(seed: seed)
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            func psql(_ sql: String) throws -> String { try server.psql(sql, database: database) }

            try await withSandbox { sandbox in
                let jobCount = Self.killCount * Self.jobsPerRound
                // One station a job: no two jobs write the same rows, so a row twice is a job
                // whose rows were written twice.
                var expectedRows = 0
                for number in 0..<jobCount {
                    let records = BuoyFixtures.records(station: "DB\(number)", seed: UInt64(number + 1), count: Self.observationsPerJob)
                    expectedRows += BuoyFixtures.distinctKeysPerStation(records).values.reduce(0, +)
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "db-\(number).xml"))
                }
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"poisonThreshold": 1000, "flushInterval": 1, "flushWhenIdle": false, "rescanInterval": 0.1, "statusInterval": 0.5, "concurrency": 2, "lease": \#(Self.lease)}"#
                        .utf8
                ).write(to: configuration)
                let url = server.url(database: database)
                let hosts = (0..<Self.hostCount).map { sandbox.root.appending(path: "host-\($0)", directoryHint: .isDirectory) }
                for host in hosts { try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true) }
                let spools = try hosts.map { try SpoolDirectory(root: $0.appending(path: "spool")) }
                var launches = Array(repeating: 0, count: Self.hostCount)
                func launch(_ host: Int) throws -> ChildProcess {
                    launches[host] += 1
                    return try sandbox.launch(
                        Binaries.lineupd,
                        [
                            "--database", url, "--spool", hosts[host].appending(path: "spool").path, "--input", sandbox.input.path,
                            "--output", hosts[host].appending(path: "output").path, "--config", configuration.path,
                        ], logName: "lineupd-host\(host)")
                }
                var daemons = try (0..<Self.hostCount).map(launch)
                try await sandbox.poll("three daemons to register", timeout: .seconds(60)) {
                    (try? psql("SELECT count(*) FROM lineup_daemons")) == "3"
                }

                var longestRescue = Duration.zero
                var jobsTakenBack = 0
                for round in 0..<Self.killCount {
                    // The stream: half inserted by `lineup enqueue --database`, half through a
                    // host's spool (its intake moves them into the database).
                    for number in (round * Self.jobsPerRound)..<((round + 1) * Self.jobsPerRound) {
                        let job = try JobFile(kind: "import-buoy", id: "db-job-\(number)", parameters: ["input": .string("db-\(number).xml")])
                        if number.isMultiple(of: 2) {
                            let result = try await sandbox.lineup([
                                "enqueue", "import-buoy", "input=db-\(number).xml", "--id", "db-job-\(number)", "--database", url,
                            ])
                            try #require(result.termination == .exited(0), "\(result.standardError)")
                        } else {
                            try spools[Int.random(in: 0..<Self.hostCount, using: &random)].enqueue(job)
                        }
                    }
                    try await Task.sleep(for: .milliseconds(Int.random(in: 100..<700, using: &random)))
                    let victim = Int.random(in: 0..<Self.hostCount, using: &random)
                    let daemonID = try psql("SELECT id FROM lineup_daemons WHERE pid = \(daemons[victim].pid)")
                    daemons[victim].send(SIGKILL)
                    let termination = try await daemons[victim].waitForExit(timeout: .seconds(30))
                    try #require(termination == .signalled(SIGKILL), "\(daemons[victim].logTail())")
                    let killedAt = ContinuousClock.now
                    if !daemonID.isEmpty {
                        jobsTakenBack += Int(try psql("SELECT count(*) FROM lineup_jobs WHERE claimed_by = \(daemonID) AND state = 'running'")) ?? 0
                        try await sandbox.poll("the jobs of killed daemon \(daemonID) to be taken back", timeout: .seconds(60)) {
                            try psql("SELECT count(*) FROM lineup_jobs WHERE claimed_by = \(daemonID) AND state = 'running'") == "0"
                        }
                        longestRescue = max(longestRescue, ContinuousClock.now - killedAt)
                    }
                    daemons[victim] = try launch(victim)
                }

                try await sandbox.poll("every job to be done or failed", timeout: .seconds(120)) {
                    try psql("SELECT count(*) FROM lineup_jobs WHERE state IN ('done', 'failed')") == "\(jobCount)"
                }
                // A SIGTERM before lineupd handles signals ends it by default, as it would any
                // process: the stop waits until each has started (this test checks clean stops).
                try await sandbox.poll("the last daemons to start", timeout: .seconds(60)) {
                    try (0..<Self.hostCount).allSatisfy { host in
                        let log = try String(contentsOf: sandbox.logs.appending(path: "lineupd-host\(host).stderr"), encoding: .utf8)
                        return log.components(separatedBy: Sandbox.startedLine).count - 1 == launches[host]
                    }
                }
                for daemon in daemons { daemon.send(SIGTERM) }
                for daemon in daemons {
                    let termination = try await daemon.waitForExit(timeout: .seconds(60))
                    #expect(termination == .exited(0), "\(termination)\n\(daemon.logTail())")
                }
                print("database crash test: \(jobsTakenBack) running job(s) taken back after kills; longest wait \(longestRescue)")

                #expect(try psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state") == "done|\(jobCount)")
                #expect(try psql("SELECT count(DISTINCT job_id) FROM lineup_jobs") == "\(jobCount)", "a job enqueued twice")
                #expect(
                    try psql(#"SELECT count(*), count(DISTINCT ("station", "time")) FROM "BuoyObservation""#)
                        == "\(expectedRows)|\(expectedRows)")
                let pids = daemons.map { String($0.pid) }.joined(separator: ",")
                #expect(try psql("SELECT count(*) FROM lineup_daemons WHERE pid IN (\(pids))") == "0", "a daemon that stopped kept its lease")
                for host in hosts {
                    let left = try FileManager.default.contentsOfDirectory(atPath: host.appending(path: "spool/new").path)
                        + FileManager.default.contentsOfDirectory(atPath: host.appending(path: "spool/active").path)
                    #expect(left.isEmpty, "\(host.lastPathComponent): \(left)")
                }
                // The lease, plus a heartbeat's tick and the time to notice: no job waits longer.
                #expect(longestRescue < .seconds(Self.lease + 1.5), "jobs of a killed daemon waited \(longestRescue)")
            }
        }
    }
}
