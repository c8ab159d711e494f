public import Foundation
import LineupLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real PgBouncer of the test process's own, in front of ``PostgresTestServer/shared()``, in
/// transaction pooling mode: a client holds a server connection only for the length of a
/// transaction (or of a statement outside one), so session state such as `LISTEN` stays with a
/// server connection that the next transaction of any client may get. It needs Debian's
/// `pgbouncer` (the program only: no service, no `/etc/pgbouncer`).
///
/// It listens on a free port of 127.0.0.1 and routes every database name to the same database of
/// the PostgreSQL server (`* =` in `[databases]`), so a test's database from
/// ``PostgresTestServer/createDatabase()`` is reached through ``url(database:)``, and each
/// database has a pool of its own of at most ``poolSize`` server connections: fewer than one
/// daemon opens, so the clients of a test really share them. Every local client is trusted as
/// ``PostgresTestServer/username``, which is also an admin of the console (``admin(_:)``).
///
/// As PostgreSQL, PgBouncer refuses to run as root: as root it runs as `nobody` (`runuser`). It
/// never outlives the test process: an `atexit` handler stops it (before the PostgreSQL server's
/// own, registered earlier, stops the server), and a detached watchdog does the same when the
/// test process ends without running its `atexit` handlers.
public final class PgBouncerTestServer: Sendable {
    public let host: String
    public let port: Int
    /// The PostgreSQL server behind it.
    public let server: PostgresTestServer
    /// Its configuration (`pgbouncer.ini`, `userlist.txt`), its log (`pgbouncer.log`), its pid
    /// file and its Unix socket.
    public let directory: URL

    /// `default_pool_size`: the server connections of one database's pool. Below what one daemon
    /// opens (its store's writer and readers, its jobs' pool, its listener), so that two daemons'
    /// transactions take turns on them.
    public static let poolSize = 3
    /// `max_client_conn`: every client of every test that runs beside the others.
    public static let maxClientConnections = 400

    private let isStopped = Locked(false)

    private init(host: String, port: Int, server: PostgresTestServer, directory: URL) {
        self.host = host
        self.port = port
        self.server = server
        self.directory = directory
    }

    // MARK: - The one PgBouncer of the process

    /// The start's outcome, a failure too, as ``PostgresTestServer/shared()`` keeps its own.
    private static let sharedStart = Locked<Result<PgBouncerTestServer, PostgresTestServerError>?>(nil)
    /// Apart from ``sharedStart``, whose lock is held while PgBouncer starts.
    private static let bouncerToStopAtExit = Locked<PgBouncerTestServer?>(nil)

    /// The PgBouncer of this test process, in front of the shared PostgreSQL server, started
    /// (with that server, if need be) by the first call. Callers block while it starts.
    ///
    /// - Throws: ``PostgresTestServerError`` if it or the server cannot be started, on this call
    ///   and every later one.
    public static func shared() throws(PostgresTestServerError) -> PgBouncerTestServer {
        let result = sharedStart.withLock { start in
            if let start { return start }
            let result = Result { () throws(PostgresTestServerError) in try launch() }
            if case .success(let bouncer) = result {
                bouncerToStopAtExit.withLock { $0 = bouncer }
                // Registered after the PostgreSQL server's handler (launch() started it first), so
                // it runs before that one: the pooler goes before the server behind it.
                atexit { PgBouncerTestServer.stopAtExit() }
            }
            start = result
            return result
        }
        return try result.get()
    }

    private static func stopAtExit() {
        let bouncer = bouncerToStopAtExit.withLock { $0 }
        bouncer?.stop()
    }

    // MARK: - Finding PgBouncer

    /// Whether `pgbouncer` and PostgreSQL are installed, so that both can be started.
    public static var isAvailable: Bool { installedExecutable != nil && PostgresTestServer.isAvailable }

    /// Whether a missing PgBouncer fails the tests that need it rather than skipping them
    /// (`.ci/run` sets `LINEUP_REQUIRE_PGBOUNCER=1`). Apart from
    /// ``PostgresTestServer/isRequired``: a machine with PostgreSQL and no PgBouncer still runs
    /// the PostgreSQL tests.
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["LINEUP_REQUIRE_PGBOUNCER"] == "1"
    }

    /// `pgbouncer` on `$PATH`, else in `/usr/sbin`, where Debian puts it (not on a user's `$PATH`).
    private static let installedExecutable: URL? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/usr/bin"]
        return directories.map { URL(fileURLWithPath: $0, isDirectory: true).appending(path: "pgbouncer") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    // MARK: - Starting

    private static let loopbackAddress = "127.0.0.1"
    private static let startAttempts = 5
    /// How long PgBouncer may take from its fork to its "process up" line.
    private static let startTimeout: Duration = .seconds(20)

    private static func launch() throws(PostgresTestServerError) -> PgBouncerTestServer {
        let server = try PostgresTestServer.shared()
        guard let executable = installedExecutable else {
            throw PostgresTestServerError("PgBouncer is not installed: no pgbouncer on $PATH or in /usr/sbin (apt-get install pgbouncer)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appending(path: "lineup-pgbouncer-\(UUID().uuidString)", directoryHint: .isDirectory)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PostgresTestServerError("cannot create \(directory.path): \(error)")
        }
        do throws(PostgresTestServerError) {
            try PostgresTestServer.handOverToServerUser(directory)
            try startWatchdog(directory: directory)
            try write(#""\#(server.username)" """# + "\n", to: userList(in: directory))
            var lastFailure: PostgresTestServerError?
            for _ in 1...startAttempts {
                let port = try PostgresTestServer.unusedLoopbackPort()
                switch try start(executable, port: port, server: server, directory: directory) {
                case .listening:
                    return PgBouncerTestServer(host: loopbackAddress, port: port, server: server, directory: directory)
                case .portTaken(let failure):
                    // Another process took the port between the look and PgBouncer's bind.
                    lastFailure = failure
                }
            }
            throw lastFailure ?? PostgresTestServerError("pgbouncer did not start")
        } catch {
            terminate(directory: directory)
            // Once the directory is gone the watchdog ends too.
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private enum StartOutcome {
        case listening
        /// PgBouncer could not bind the port: it warns and goes on with its Unix socket alone,
        /// so it was stopped.
        case portTaken(PostgresTestServerError)
    }

    /// Starts PgBouncer on `port`; returns once it listens there, or has been stopped again
    /// because it could not.
    private static func start(
        _ executable: URL, port: Int, server: PostgresTestServer, directory: URL
    ) throws(PostgresTestServerError) -> StartOutcome {
        let log = logFile(in: directory)
        try? FileManager.default.removeItem(at: log)
        let configuration = directory.appending(path: "pgbouncer.ini")
        try write(self.configuration(port: port, server: server, directory: directory), to: configuration)
        // -d: PgBouncer reads its configuration, forks and returns; the fork lives on.
        let started = try PostgresTestServer.run(executable, ["-d", configuration.path], in: directory)
        guard started.status == 0 else {
            throw PostgresTestServerError(
                "pgbouncer -d on port \(port) failed (exit status \(started.status))",
                commandOutput: started.output + logTail(in: directory))
        }
        // The daemon binds after the fork, and a port it cannot bind is only a warning in its log.
        let deadline = ContinuousClock.now + startTimeout
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.contains("cannot listen on \(loopbackAddress):\(port)") {
                let failure = PostgresTestServerError("pgbouncer could not bind port \(port)", commandOutput: logTail(in: directory))
                terminate(directory: directory)
                return .portTaken(failure)
            }
            if text.contains("process up") && text.contains("listening on \(loopbackAddress):\(port)") { return .listening }
            guard ContinuousClock.now < deadline else {
                terminate(directory: directory)
                throw PostgresTestServerError(
                    "pgbouncer on port \(port) did not report it was up within \(startTimeout)", commandOutput: logTail(in: directory))
            }
            usleep(20_000)
        }
    }

    /// Transaction pooling, every database name to the server's database of that name, and a
    /// pool small enough to be shared. No `ignore_startup_parameters`: postgres-nio's startup
    /// message holds `user`, `database` and at most `application_name`, which PgBouncer takes;
    /// a URL's `options`, which PgBouncer refuses, is the user's to leave out (Deploying.md).
    private static func configuration(port: Int, server: PostgresTestServer, directory: URL) -> String {
        """
        [databases]
        * = host=\(server.host) port=\(server.port)

        [pgbouncer]
        listen_addr = \(loopbackAddress)
        listen_port = \(port)
        unix_socket_dir = \(directory.path)
        auth_type = trust
        auth_file = \(userList(in: directory).path)
        admin_users = \(server.username)
        pool_mode = transaction
        default_pool_size = \(poolSize)
        max_client_conn = \(maxClientConnections)
        logfile = \(logFile(in: directory).path)
        pidfile = \(pidFile(in: directory).path)

        """
    }

    private static func write(_ text: String, to file: URL) throws(PostgresTestServerError) {
        do {
            // Readable by the user PgBouncer runs as, who owns the directory but not the file.
            try Data(text.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        } catch {
            throw PostgresTestServerError("cannot write \(file.path): \(error)")
        }
    }

    /// A shell, in a session of its own, that waits for the test process to end and then stops
    /// PgBouncer and removes its directory; it ends early once the directory is gone. As
    /// ``PostgresTestServer``'s watchdog, which stops the server behind it.
    private static func startWatchdog(directory: URL) throws(PostgresTestServerError) {
        let quotedDirectory = PostgresTestServer.shellQuoted(directory.path)
        let quotedPidFile = PostgresTestServer.shellQuoted(pidFile(in: directory).path)
        let script = """
            while kill -0 \(getpid()) 2>/dev/null && [ -d \(quotedDirectory) ]; do sleep 1; done
            if [ -d \(quotedDirectory) ]; then
                [ -f \(quotedPidFile) ] && kill -TERM "$(cat \(quotedPidFile))" 2>/dev/null
                rm -rf \(quotedDirectory)
            fi
            """
        let setsid = ["/usr/bin/setsid", "/bin/setsid"].first(where: FileManager.default.isExecutableFile(atPath:))
        let commandLine = setsid.map { [$0, "-f", "/bin/sh", "-c", script] } ?? ["/bin/sh", "-c", "(\(script)) &"]
        let launcher = try PostgresTestServer.spawn(commandLine, in: URL(fileURLWithPath: "/"), output: nil)
        let status = PostgresTestServer.waitForExit(of: launcher)
        guard status == 0 else {
            throw PostgresTestServerError("the watchdog of pgbouncer did not start: \(commandLine[0]) ended with status \(status)")
        }
    }

    // MARK: - Using it

    /// The connection URL of one of the server's databases through PgBouncer. Without TLS, as
    /// ``PostgresTestServer/url(database:)``.
    public func url(database: String) -> String {
        "postgres://\(server.username)@\(host):\(port)/\(database)?sslmode=disable"
    }

    /// Runs a command of PgBouncer's admin console (the database `pgbouncer`: `SHOW POOLS`,
    /// `SHOW STATS`, `SHOW SERVERS`…) with `psql` and returns its rows, each by column name.
    public func admin(_ command: String) throws(PostgresTestServerError) -> [[String: String]] {
        let arguments = [
            "-X", "-q", "-A", "-F", "\t", "-P", "footer=off", "-h", host, "-p", String(port), "-U", server.username,
            "-d", "pgbouncer", "-c", command,
        ]
        let result = try PostgresTestServer.run(server.psqlExecutable, arguments, in: directory)
        guard result.status == 0 else {
            throw PostgresTestServerError(
                "psql -d pgbouncer -c \(PostgresTestServer.shellQuoted(command)) failed (exit status \(result.status))",
                commandOutput: result.output + Self.logTail(in: directory))
        }
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: true)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, cells))
        }
    }

    /// The row of `SHOW <list>` (`POOLS`, `STATS`…) for `database`; nil when it has none yet.
    public func adminRow(_ list: String, database: String) throws(PostgresTestServerError) -> [String: String]? {
        try admin("SHOW \(list)").first { $0["database"] == database }
    }

    // MARK: - Stopping

    /// Stops PgBouncer (SIGTERM: at once, dropping its clients) and removes its directory. Later
    /// calls do nothing; the PostgreSQL server behind it goes on.
    public func stop() {
        let wasStopped = isStopped.withLock { isStopped in
            defer { isStopped = true }
            return isStopped
        }
        guard !wasStopped else { return }
        Self.terminate(directory: directory)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Ends the PgBouncer whose pid file is in `directory`, and waits (up to ten seconds) until
    /// it has: its port and socket are free when this returns.
    private static func terminate(directory: URL) {
        guard let text = try? String(contentsOf: pidFile(in: directory), encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return }
        guard kill(pid, SIGTERM) == 0 else { return }
        for _ in 0..<500 where kill(pid, 0) == 0 {
            usleep(20_000)
        }
    }

    // MARK: - Files

    private static func userList(in directory: URL) -> URL { directory.appending(path: "userlist.txt") }
    private static func logFile(in directory: URL) -> URL { directory.appending(path: "pgbouncer.log") }
    private static func pidFile(in directory: URL) -> URL { directory.appending(path: "pgbouncer.pid") }

    private static func logTail(in directory: URL) -> String {
        "\n--- end of pgbouncer.log ---\n" + PostgresTestServer.logTail(of: logFile(in: directory))
    }
}
