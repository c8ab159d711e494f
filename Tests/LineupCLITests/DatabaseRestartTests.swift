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
    /// Issue 35's restarts and failover: `lineupd --database` daemons on a PostgreSQL server of
    /// the test's own (the shared one serves every suite at once and is never restarted) while
    /// the server restarts under them, or fails over to a standby. The daemons ride through:
    /// every job is done once, every row is there once, and they stop cleanly afterwards.
    @Suite(
        "PostgreSQL restarts and failover under two daemons",
        .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct DatabaseRestartTests {
        static let daemonCount = 2
        static let rounds = 4
        static let jobsPerRound = 8
        static let observationsPerJob = 40
        /// Seconds: longer than a restart or a failover takes, so that no daemon loses its lease
        /// while the server is away (a daemon whose heartbeats fail for a whole lease stops).
        static let lease = 10.0

        @Test("pg_ctl restart -m fast twice under load: every job done once, every row once, the daemons still run")
        func fastRestarts() async throws {
            let server = try PostgresTestServer.startPrivate()
            defer { try? server.stop() }
            try await runStream(through: server, url: { server.url(database: $0) }, check: server) { round, _ in
                guard round == 0 || round == 1 else { return }
                try server.restart(mode: .fast)
            }
        }

        @Test("pg_ctl restart -m immediate twice under load: every job done once, every row once, the daemons still run")
        func immediateRestarts() async throws {
            let server = try PostgresTestServer.startPrivate()
            defer { try? server.stop() }
            try await runStream(through: server, url: { server.url(database: $0) }, check: server) { round, _ in
                guard round == 0 || round == 1 else { return }
                try server.restart(mode: .immediate)
            }
        }

        /// Issue 49's setup: six restarts under two daemons, crash (`-m immediate`) and fast in
        /// turn, with a short lease (3 s) and frequent flushes (0.3 s), while 42 imports run.
        /// An attempt that meets the restart fails (transiently, so it is retried); a settle that
        /// cannot reach the server is kept until it lands. No job may stay `running` longer than
        /// the lease and a tick after the server is back (a sampler reads the table all along),
        /// and every job is done once, its rows written once.
        @Test("six restarts, crash and fast in turn, lease 3 s: every job done once, none left running under a live daemon")
        func restartsStrandNoJob() async throws {
            let server = try PostgresTestServer.startPrivate()
            defer { try? server.stop() }
            let stream = Stream(
                rounds: 6, jobsPerRound: 7, observationsPerJob: 1500, lease: 3,
                configuration: #""flushInterval": 0.3, "maxAttempts": 20, "baseDelay": 0.2, "maxDelay": 1"#)
            let sampler = RunningJobSampler()
            try await runStream(stream, through: server, url: { server.url(database: $0) }, check: server, sampler: sampler) {
                round, _ in
                try server.restart(mode: round.isMultiple(of: 2) ? .immediate : .fast)
            }
            let longest = sampler.longestRunningSinceServerBack
            print(
                "database restart test: 6 restarts, \(stream.rounds * stream.jobsPerRound) jobs; the longest a job stayed running "
                    + "after the server was back: \(longest) (\(sampler.samples) samples)")
            // The lease (3 s) and a tick (1 s), and as much again for a loaded machine: without the
            // kept settles, a job stayed running for minutes, until its daemon stopped.
            #expect(longest <= .seconds(8), "a job stayed running \(longest) after the server was back")
        }

        @Test("failover: the primary stops at once, the standby is promoted; through a two-host URL the daemons follow it")
        func failoverToAPromotedStandby() async throws {
            let primary = try PostgresTestServer.startPrivate()
            defer { try? primary.stop() }
            let standby = try primary.startStandby()
            defer { try? standby.stop() }
            // Synchronous replication: a commit the daemons were told of is on the standby, so
            // that the primary's immediate stop loses none (asynchronous replication may lose
            // the last commits in a failover, whatever the client does). Set after the standby's
            // base backup, which would otherwise copy it: the promoted standby must not wait for
            // a standby of its own.
            _ = try primary.psql("ALTER SYSTEM SET synchronous_standby_names = '*'", database: "postgres")
            _ = try primary.psql("SELECT pg_reload_conf()", database: "postgres")
            try await pollUntil("the standby to stream synchronously", timeout: .seconds(60)) {
                (try? primary.psql("SELECT sync_state FROM pg_stat_replication", database: "postgres")) == "sync"
            }
            let hosts = "\(primary.host):\(primary.port),\(standby.host):\(standby.port)"
            try await runStream(
                through: primary,
                url: { "postgres://\(primary.username)@\(hosts)/\($0)?sslmode=disable&target_session_attrs=read-write" },
                check: standby
            ) { round, database in
                guard round == 1 else { return }
                // The database was made on the primary: the standby has it once it has replayed it.
                try primary.shutDown(mode: .immediate)
                try standby.promote()
                #expect(try standby.psql("SELECT pg_is_in_recovery()", database: database) == "f")
            }
        }

        /// Runs the stream: `daemonCount` daemons on a new database of `server`, `rounds` rounds of
        /// `jobsPerRound` imports enqueued through `url`, `disrupt(round, database)` after each round
        /// is enqueued (while its jobs run); then checks on `check` (the server the database ends
        /// on) that every job is done once, every row is there once, the daemons ran throughout
        /// and stop cleanly on SIGTERM.
        /// The load of a stream: how many rounds of how many imports, and the daemons' settings.
        struct Stream {
            var rounds = DatabaseRestartTests.rounds
            var jobsPerRound = DatabaseRestartTests.jobsPerRound
            var observationsPerJob = DatabaseRestartTests.observationsPerJob
            var lease = DatabaseRestartTests.lease
            /// More keys of the daemons' configuration file, JSON (`"key": value, …`).
            var configuration = #""flushInterval": 0.5"#
        }

        private func runStream(
            _ stream: Stream = Stream(), through server: PostgresTestServer, url makeURL: (String) -> String,
            check: PostgresTestServer, sampler: RunningJobSampler? = nil, disrupt: (Int, String) throws -> Void
        ) async throws {
            let database = try server.createDatabase()
            let url = makeURL(database)
            func psql(_ sql: String) throws -> String { try check.psql(sql, database: database) }

            try await withSandbox { sandbox in
                let jobCount = stream.rounds * stream.jobsPerRound
                // One station a job: a job whose rows were written twice shows as a row twice.
                var expectedRows = 0
                for number in 0..<jobCount {
                    let records = BuoyFixtures.records(station: "RS\(number)", seed: UInt64(number + 1), count: stream.observationsPerJob)
                    expectedRows += BuoyFixtures.distinctKeysPerStation(records).values.reduce(0, +)
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "rs-\(number).xml"))
                }
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"poisonThreshold": 1000, "flushWhenIdle": false, "rescanInterval": 0.1, "statusInterval": 0.5, "concurrency": 2, "lease": \#(stream.lease), \#(stream.configuration)}"#
                        .utf8
                ).write(to: configuration)
                let hosts = (0..<Self.daemonCount).map { sandbox.root.appending(path: "host-\($0)", directoryHint: .isDirectory) }
                let daemons = try hosts.enumerated().map { index, host in
                    try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
                    return try sandbox.launch(
                        Binaries.lineupd,
                        [
                            "--database", url, "--spool", host.appending(path: "spool").path, "--input", sandbox.input.path,
                            "--output", host.appending(path: "output").path, "--config", configuration.path,
                        ], logName: "lineupd-host\(index)")
                }
                try await sandbox.poll("the daemons to register", timeout: .seconds(60)) {
                    (try? server.psql("SELECT count(*) FROM lineup_daemons", database: database)) == "\(Self.daemonCount)"
                }
                // A SIGTERM before lineupd handles signals ends it by default: wait for the start.
                try await sandbox.poll("the daemons to start", timeout: .seconds(60)) {
                    try (0..<Self.daemonCount).allSatisfy { try log(of: $0, in: sandbox).contains(Sandbox.startedLine) }
                }

                let sampling = sampler.map { sampler in
                    Task { [check] in await sampler.sample { try? check.psql($0, database: database) } }
                }
                defer { sampling?.cancel() }
                for round in 0..<stream.rounds {
                    for number in (round * stream.jobsPerRound)..<((round + 1) * stream.jobsPerRound) {
                        let result = try await sandbox.lineup([
                            "enqueue", "import-buoy", "input=rs-\(number).xml", "--id", "rs-job-\(number)", "--database", url,
                        ])
                        try #require(result.termination == .exited(0), "round \(round): \(result.standardError)")
                    }
                    // Some of the round's jobs run, some flush, some wait: the disruption meets all three.
                    try await Task.sleep(for: .milliseconds(400))
                    try disrupt(round, database)
                    sampler?.serverIsBack()
                }

                try await sandbox.poll("every job to be done or failed", timeout: .seconds(90)) {
                    (try? psql("SELECT count(*) FROM lineup_jobs WHERE state IN ('done', 'failed')")) == "\(jobCount)"
                }
                sampling?.cancel()
                await sampling?.value
                for (index, daemon) in daemons.enumerated() {
                    #expect(daemon.isRunning, "host \(index) stopped:\n\(daemon.logTail())")
                }
                for daemon in daemons { daemon.send(SIGTERM) }
                for daemon in daemons {
                    let termination = try await daemon.waitForExit(timeout: .seconds(60))
                    #expect(termination == .exited(0), "\(termination)\n\(daemon.logTail())")
                }
                let logs = try (0..<Self.daemonCount).map { try log(of: $0, in: sandbox) }
                // Notifications stop with the connection that listened: each daemon listens again.
                for (index, log) in logs.enumerated() {
                    #expect(log.contains("listening for new jobs again"), "host \(index) never listened again")
                }
                let unanswered = logs.map { $0.components(separatedBy: "had committed all the same").count - 1 }.reduce(0, +)
                print("database restart test: \(unanswered) flush(es) found committed after their connection was lost")

                #expect(try psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state") == "done|\(jobCount)")
                #expect(try psql("SELECT count(DISTINCT job_id) FROM lineup_jobs") == "\(jobCount)", "a job enqueued twice")
                #expect(
                    try psql(#"SELECT count(*), count(DISTINCT ("station", "time")) FROM "BuoyObservation""#)
                        == "\(expectedRows)|\(expectedRows)")
                let pids = daemons.map { String($0.pid) }.joined(separator: ",")
                #expect(try psql("SELECT count(*) FROM lineup_daemons WHERE pid IN (\(pids))") == "0", "a daemon that stopped kept its lease")
            }
        }

        private func log(of host: Int, in sandbox: Sandbox) throws -> String {
            try String(contentsOf: sandbox.logs.appending(path: "lineupd-host\(host).stderr"), encoding: .utf8)
        }

        private func pollUntil(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                try #require(ContinuousClock.now < deadline, "timed out waiting for \(what)")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

/// Reads which jobs are `running`, every 100 ms while a stream runs, and keeps the longest time
/// one claim of a job stayed so after the server last came back (or, for a claim made after, since
/// it was first seen): a job stranded under a live daemon shows as a long one.
///
/// `@unchecked Sendable`: its state is only touched while `lock` is held.
final class RunningJobSampler: @unchecked Sendable {
    private let lock = NSLock()
    /// When each claim (`id/claims`) was first seen running.
    private var firstSeen: [String: ContinuousClock.Instant] = [:]
    private var serverBackAt: ContinuousClock.Instant?
    private var longest = Duration.zero
    private var sampleCount = 0

    var longestRunningSinceServerBack: Duration { lock.withLock { longest } }
    var samples: Int { lock.withLock { sampleCount } }

    /// The server has come back from a restart.
    func serverIsBack() {
        lock.withLock { serverBackAt = .now }
    }

    /// Samples with `query` (nil while the server is down) until the task is cancelled.
    func sample(_ query: @Sendable (String) -> String?) async {
        while !Task.isCancelled {
            if let rows = query("SELECT id || '/' || claims FROM lineup_jobs WHERE state = 'running'") {
                let now = ContinuousClock.now
                lock.withLock {
                    sampleCount += 1
                    for claim in rows.split(separator: "\n").map(String.init) {
                        let first = firstSeen[claim] ?? now
                        firstSeen[claim] = first
                        longest = max(longest, now - max(first, serverBackAt ?? first))
                    }
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
