import Foundation
import LineupJobs
import LineupSpool
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// Issue 35's PgBouncer: `lineupd --database` through a real PgBouncer in transaction pooling
    /// mode, whose pool holds fewer server connections than the daemons open. The jobs, their
    /// rows, `lineup enqueue` and `lineup status` work through it; `LISTEN` does not, so a daemon
    /// says so and polls, or listens on a direct URL (`--listen-database`).
    @Suite(
        "PgBouncer in transaction mode",
        .enabled(if: PgBouncerTestServer.isAvailable || PgBouncerTestServer.isRequired))
    struct PgBouncerTests {
        static let observationsPerJob = 40
        /// The daemon's warning when its listener hears nothing.
        static let deafListenerWarning = "notifications do not reach this daemon's listener"
        /// The columns of `SHOW POOLS` that count a pool's server connections.
        static let serverColumns = ["sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"]

        /// A test's database on the shared server, with its URL through PgBouncer and its
        /// direct one.
        struct Database {
            let bouncer: PgBouncerTestServer
            let name: String
            var pooledURL: String { bouncer.url(database: name) }
            var directURL: String { bouncer.server.url(database: name) }

            func psql(_ sql: String) throws -> String {
                try bouncer.server.psql(sql, database: name)
            }

            /// The clients PgBouncer holds for this database, and the server connections it
            /// opened for them.
            func pool() throws -> (clients: Int, servers: Int) {
                guard let row = try bouncer.adminRow("POOLS", database: name) else { return (0, 0) }
                let clients = ["cl_active", "cl_waiting"].compactMap { row[$0].flatMap(Int.init) }.reduce(0, +)
                let servers = PgBouncerTests.serverColumns.compactMap { row[$0].flatMap(Int.init) }.reduce(0, +)
                return (clients, servers)
            }

            /// `SHOW STATS`'s transactions for this database: what went through PgBouncer.
            func transactionsThroughBouncer() throws -> Int {
                try bouncer.adminRow("STATS", database: name)?["total_xact_count"].flatMap(Int.init) ?? 0
            }
        }

        static func withDatabase(_ body: (Database) async throws -> Void) async throws {
            let bouncer = try PgBouncerTestServer.shared()
            let name = try bouncer.server.createDatabase()
            defer { try? bouncer.server.dropDatabase(name) }
            try await body(Database(bouncer: bouncer, name: name))
        }

        /// Writes `count` SOS documents of one station each (`<prefix>-<n>.xml`) into the input
        /// directory; returns the rows they hold.
        static func writeImports(_ count: Int, prefix: String, in sandbox: Sandbox) throws -> Int {
            var rows = 0
            for number in 0..<count {
                let records = BuoyFixtures.records(station: "\(prefix.uppercased())\(number)", seed: UInt64(number + 1), count: observationsPerJob)
                rows += BuoyFixtures.distinctKeysPerStation(records).values.reduce(0, +)
                try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "\(prefix)-\(number).xml"))
            }
            return rows
        }

        static func writeConfiguration(_ json: String, in sandbox: Sandbox) throws -> URL {
            let file = sandbox.root.appending(path: "lineupd-\(UUID().uuidString.prefix(6)).json")
            try Data(json.utf8).write(to: file)
            return file
        }

        /// Starts a `lineupd` with a spool and an output of its own (a host of its own), and waits
        /// for its start-up line.
        static func launchDaemon(
            _ name: String, _ arguments: [String], configuration: URL, in sandbox: Sandbox
        ) async throws -> ChildProcess {
            let host = sandbox.root.appending(path: name, directoryHint: .isDirectory)
            try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
            let daemon = try sandbox.launch(
                Binaries.lineupd,
                arguments + [
                    "--spool", host.appending(path: "spool").path, "--input", sandbox.input.path,
                    "--output", host.appending(path: "output").path, "--config", configuration.path,
                ], logName: name)
            try await sandbox.poll("\(name) to start", timeout: .seconds(60), daemon: daemon) {
                guard daemon.isRunning else { throw HarnessError("\(name) exited at start-up (\(daemon.termination))\n\(daemon.logTail())") }
                return daemon.standardError.contains(Sandbox.startedLine)
            }
            return daemon
        }

        static func enqueueImport(_ input: String, id: String, url: String, in sandbox: Sandbox) async throws {
            let result = try await sandbox.lineup(["enqueue", "import-buoy", "input=\(input)", "--id", id, "--database", url])
            try #require(result.termination == .exited(0), "lineup enqueue --database through PgBouncer: \(result.standardError)")
        }

        static func stop(_ daemons: [ChildProcess]) async throws {
            for daemon in daemons { daemon.send(SIGTERM) }
            for daemon in daemons {
                let termination = try await daemon.waitForExit(timeout: .seconds(60))
                #expect(termination == .exited(0), "\(termination)\n\(daemon.logTail())")
            }
        }

        @Test("two lineupd through PgBouncer, on fewer server connections than they open: every job done once, every row once")
        func twoDaemonsShareThePoolAndDoEveryJobOnce() async throws {
            try await Self.withDatabase { database in
                try await withSandbox { sandbox in
                    let jobCount = 16
                    let expectedRows = try Self.writeImports(jobCount, prefix: "pgb", in: sandbox)
                    // Polling every 0.3 s: through PgBouncer the listener hears nothing.
                    let configuration = try Self.writeConfiguration(
                        #"{"flushInterval": 1, "rescanInterval": 0.3, "concurrency": 2, "lease": 600}"#, in: sandbox)
                    var daemons: [ChildProcess] = []
                    for host in 0..<2 {
                        daemons.append(
                            try await Self.launchDaemon(
                                "lineupd-host\(host)", ["--database", database.pooledURL], configuration: configuration, in: sandbox))
                    }
                    try await sandbox.poll("two daemons to register", timeout: .seconds(60)) {
                        try database.psql("SELECT count(*) FROM lineup_daemons") == "2"
                    }
                    let idle = try database.pool()
                    #expect(
                        idle.clients > PgBouncerTestServer.poolSize,
                        "two daemons hold \(idle.clients) client connections: no more than the pool's \(PgBouncerTestServer.poolSize), nothing is shared")

                    // Half through `lineup enqueue --database` (PgBouncer), half through a host's spool.
                    let spool = try SpoolDirectory(root: sandbox.root.appending(path: "lineupd-host1/spool"))
                    for number in 0..<jobCount {
                        if number.isMultiple(of: 2) {
                            try await Self.enqueueImport("pgb-\(number).xml", id: "pgb-job-\(number)", url: database.pooledURL, in: sandbox)
                        } else {
                            try spool.enqueue(
                                try JobFile(kind: "import-buoy", id: "pgb-job-\(number)", parameters: ["input": .string("pgb-\(number).xml")]))
                        }
                    }
                    var mostServers = 0
                    var mostClients = 0
                    try await sandbox.poll("every job to be settled", timeout: .seconds(180)) {
                        let pool = try database.pool()
                        mostServers = max(mostServers, pool.servers)
                        mostClients = max(mostClients, pool.clients)
                        return try database.psql("SELECT count(*) FROM lineup_jobs WHERE state IN ('done', 'failed')") == "\(jobCount)"
                    }
                    let status = try await sandbox.lineup(["status", "--database", database.pooledURL])
                    #expect(status.termination == .exited(0), "\(status.standardError)")
                    #expect(status.standardOutput.hasPrefix("queued 0, running 0, done \(jobCount), failed 0\ndaemons:\n"), "\(status.standardOutput)")
                    #expect(
                        status.standardOutput.split(separator: "\n").filter { $0.contains("pid \(daemons[0].pid),") || $0.contains("pid \(daemons[1].pid),") }.count == 2,
                        "\(status.standardOutput)")
                    // Both daemons found their listener deaf, and said what to do.
                    for daemon in daemons {
                        try await sandbox.poll("\(daemon.name) to warn that notifications do not reach it", timeout: .seconds(60), daemon: daemon) {
                            daemon.standardError.contains(Self.deafListenerWarning)
                        }
                        #expect(daemon.standardError.contains("--listen-database"), "\(daemon.logTail())")
                    }
                    try await Self.stop(daemons)

                    #expect(try database.psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state") == "done|\(jobCount)")
                    #expect(try database.psql("SELECT count(*), count(DISTINCT job_id) FROM lineup_jobs") == "\(jobCount)|\(jobCount)")
                    #expect(
                        try database.psql(#"SELECT count(*), count(DISTINCT ("station", "time")) FROM "BuoyObservation""#)
                            == "\(expectedRows)|\(expectedRows)")
                    #expect(try database.psql("SELECT count(*) FROM lineup_jobs WHERE claimed_by IS NOT NULL AND claims > 1") == "0", "a job claimed twice")
                    // The traffic went through PgBouncer, on a pool it never grew past its size.
                    #expect(mostServers >= 1 && mostServers <= PgBouncerTestServer.poolSize, "server connections: \(mostServers)")
                    #expect(mostClients > mostServers, "clients \(mostClients), server connections \(mostServers)")
                    let transactions = try database.transactionsThroughBouncer()
                    #expect(transactions > jobCount * 2, "SHOW STATS counts \(transactions) transactions through PgBouncer")
                }
            }
        }

        @Test("with --listen-database direct to the server, a job enqueued through PgBouncer is claimed at once, not at the next 30 s poll")
        func aDirectListenURLWakesTheDaemon() async throws {
            try await Self.withDatabase { database in
                try await withSandbox { sandbox in
                    _ = try Self.writeImports(3, prefix: "listen", in: sandbox)
                    let configuration = try Self.writeConfiguration(
                        #"{"flushInterval": 30, "rescanInterval": 30, "concurrency": 1, "lease": 600}"#, in: sandbox)
                    let daemon = try await Self.launchDaemon(
                        "lineupd-listening", ["--database", database.pooledURL, "--listen-database", database.directURL],
                        configuration: configuration, in: sandbox)
                    #expect(daemon.standardError.contains("listenDatabase=postgres://"), "\(daemon.logTail())")
                    // Past the start's own claim (which finds nothing), so that only a notification wakes it.
                    try await Task.sleep(for: .seconds(1))
                    for number in 0..<3 {
                        try await Self.enqueueImport("listen-\(number).xml", id: "listen-\(number)", url: database.pooledURL, in: sandbox)
                        try await sandbox.poll("listen-\(number) to be claimed", timeout: .seconds(25), daemon: daemon) {
                            try database.psql("SELECT count(*) FROM lineup_jobs WHERE job_id = 'listen-\(number)' AND claimed_at IS NOT NULL") == "1"
                        }
                    }
                    let waits = try database.psql("SELECT max(extract(epoch FROM claimed_at - enqueued_at)) FROM lineup_jobs")
                    let longest = try #require(Double(waits), "\(waits)")
                    #expect(longest < 5, "a job waited \(longest) s for its claim: the notification did not wake the daemon")
                    try await sandbox.poll("the jobs to be done", timeout: .seconds(60), daemon: daemon) {
                        try database.psql("SELECT count(*) FROM lineup_jobs WHERE state = 'done'") == "3"
                    }
                    // The check of the listener ran (ten seconds after the start) and found it hears.
                    try await Task.sleep(for: .seconds(11))
                    #expect(!daemon.standardError.contains(Self.deafListenerWarning), "\(daemon.logTail())")
                    try await Self.stop([daemon])
                    #expect(try database.transactionsThroughBouncer() > 0)
                }
            }
        }

        @Test("a --listen-database that cannot be reached is a warning naming it, and jobs are still found by polling")
        func anUnreachableListenURLFallsBackToPolling() async throws {
            try await Self.withDatabase { database in
                try await withSandbox { sandbox in
                    _ = try Self.writeImports(1, prefix: "poll", in: sandbox)
                    let configuration = try Self.writeConfiguration(
                        #"{"flushInterval": 1, "rescanInterval": 2, "concurrency": 1, "lease": 600}"#, in: sandbox)
                    // A port nothing listens on: the closed one of a socket bound and let go.
                    let port = try Self.closedPort()
                    let unreachable = "postgres://lineup@127.0.0.1:\(port)/\(database.name)?sslmode=disable&connect_timeout=2"
                    let daemon = try await Self.launchDaemon(
                        "lineupd-deaf", ["--database", database.pooledURL, "--listen-database", unreachable], configuration: configuration,
                        in: sandbox)
                    try await sandbox.poll("the warning that it cannot listen", timeout: .seconds(30), daemon: daemon) {
                        daemon.standardError.contains("cannot listen for new jobs; polling only")
                    }
                    let warning = daemon.standardError.split(separator: "\n").first { $0.contains("cannot listen for new jobs") } ?? ""
                    #expect(warning.contains("127.0.0.1:\(port)"), "\(warning)")
                    try await Self.enqueueImport("poll-0.xml", id: "poll-0", url: database.pooledURL, in: sandbox)
                    try await sandbox.poll("the job to be done by polling", timeout: .seconds(60), daemon: daemon) {
                        try database.psql("SELECT state FROM lineup_jobs WHERE job_id = 'poll-0'") == "done"
                    }
                    try await Self.stop([daemon])
                }
            }
        }

        @Test(
            "--listen-database is checked before anything opens",
            arguments: [
                (["--listen-database", "postgres://lineup@127.0.0.1/jobs"], "`listenDatabase` needs `database`"),
                (
                    ["--database", "postgres://lineup@127.0.0.1/jobs", "--listen-database", "http://127.0.0.1/jobs"],
                    "`listenDatabase` must be a PostgreSQL URL"
                ),
            ])
        func badListenDatabase(arguments: [String], message: String) async throws {
            try await withSandbox { sandbox in
                let result = try await sandbox.run(Binaries.lineupd, sandbox.daemonLocationArguments + arguments)
                #expect(result.termination == .exited(64), "\(arguments): \(result.standardError)")
                #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            }
        }

        @Test("the configuration file's listenDatabase is the option's key, and needs a restart to change")
        func listenDatabaseKey() throws {
            let directory = FileManager.default.temporaryDirectory.appending(path: "lineup-pgbouncer-config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appending(path: "lineupd.json")
            try Data(
                #"{"database": "postgres://lineup@pgbouncer:6432/jobs", "listenDatabase": "postgres://lineup:secret@db:5432/jobs"}"#.utf8
            ).write(to: file)
            let base = DaemonConfiguration(
                storeURL: directory.appending(path: "s.sqlite"), spoolURL: directory.appending(path: "spool"),
                inputDirectory: directory, outputDirectory: directory)
            let configuration = try DaemonConfigurationFile.load(file, over: base)
            try configuration.validate()
            #expect(configuration.listenDatabaseURL?.absoluteString == "postgres://lineup:secret@db:5432/jobs")
            #expect(configuration.summary.contains("listenDatabase=postgres://lineup@db:5432/jobs"), "\(configuration.summary)")
            #expect(!configuration.summary.contains("secret"))
            #expect(base.settingsNeedingRestart(toBecome: configuration) == ["database", "listenDatabase"])
        }

        /// A port of 127.0.0.1 that nothing listens on (bound by the kernel's choice, then closed).
        static func closedPort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw HarnessError("socket: \(errno)") }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw HarnessError("bind: \(errno)") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
