import Foundation
import LineupLocking

/// Servers of a test's own, for what a test cannot do to the shared server that every suite
/// uses at once: restart it, make a streaming standby of it, promote the standby, stop the
/// primary. Each has a cluster, a directory, a port and a watchdog of its own, ready for
/// replication (`wal_level=replica`, WAL senders, `replication` connections trusted from
/// 127.0.0.1), and is stopped and removed at exit as the shared one is.
extension PostgresTestServer {
    /// How `pg_ctl` shuts a server down.
    public enum ShutdownMode: String, Sendable {
        /// Ends the sessions, rolling back their transactions, and writes a checkpoint.
        case fast
        /// Kills the server's processes at once; the next start recovers from the WAL, as after a crash.
        case immediate
    }

    /// Private servers still to stop and remove at exit.
    private static let privateServersToStopAtExit = Locked<[PostgresTestServer]>([])
    private static let privateExitHandler = Locked(false)

    /// Starts a server of the caller's own: a fresh cluster on a free port, with replication on.
    /// `settings` (`name=value`) are given to the server after the tests' own, so they win:
    /// `fsync=on` makes a server that syncs its commits, where the tests' do not.
    ///
    /// - Throws: ``PostgresTestServerError`` if it cannot be started.
    public static func startPrivate(settings: [String] = []) throws(PostgresTestServerError) -> PostgresTestServer {
        try launchPrivate(settings: settings) { directory, binDirectory throws(PostgresTestServerError) in
            try initializeCluster(directory: directory, binDirectory: binDirectory)
            // initdb's trust lines for replication cover the loopback addresses on most
            // versions; said again, so that a standby's pg_basebackup never depends on it.
            let hba = dataDirectory(in: directory).appending(path: "pg_hba.conf")
            let line = "\nhost replication all \(loopbackAddress)/32 trust\n"
            let appended = try run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "printf %s \(shellQuoted(line)) >> \(shellQuoted(hba.path))"],
                in: directory)
            guard appended.status == 0 else {
                throw PostgresTestServerError("cannot allow replication in \(hba.path)", commandOutput: appended.output)
            }
        }
    }

    /// Makes a streaming standby of this server (`pg_basebackup -R`) and starts it on a port of
    /// its own: read-only until ``promote()``.
    public func startStandby() throws(PostgresTestServerError) -> PostgresTestServer {
        try Self.launchPrivate { directory, binDirectory throws(PostgresTestServerError) in
            let backup = try Self.run(
                Self.companionProgram("pg_basebackup", of: binDirectory),
                [
                    "-R", "-X", "stream", "-D", Self.dataDirectory(in: directory).path, "-h", host, "-p", String(port),
                    "-U", username,
                ], in: directory)
            guard backup.status == 0 else {
                throw PostgresTestServerError(
                    "pg_basebackup from port \(port) failed (exit status \(backup.status))", commandOutput: backup.output)
            }
        }
    }

    /// A program of the same installation as `pg_ctl`: `$PATH` may hold links to a few of its
    /// programs only (initdb and pg_ctl), so the directory the link leads to comes first.
    private static func companionProgram(_ name: String, of binDirectory: URL) -> URL {
        let candidates = [
            binDirectory.appending(path: "pg_ctl").resolvingSymlinksInPath().deletingLastPathComponent().appending(path: name),
            binDirectory.appending(path: name),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    private static func launchPrivate(
        settings: [String] = [], makeCluster: (URL, URL) throws(PostgresTestServerError) -> Void
    ) throws(PostgresTestServerError) -> PostgresTestServer {
        guard let binDirectory = installedBinDirectory else {
            throw PostgresTestServerError("PostgreSQL is not installed: no initdb and pg_ctl (apt-get install postgresql)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appending(path: "lineup-postgres-private-\(UUID().uuidString)", directoryHint: .isDirectory)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PostgresTestServerError("cannot create \(directory.path): \(error)")
        }
        do {
            try handOverToServerUser(directory)
            try startWatchdog(directory: directory, binDirectory: binDirectory)
            try makeCluster(directory, binDirectory)
            let port = try startServer(
                directory: directory, binDirectory: binDirectory,
                extraOptions: ["-c wal_level=replica", "-c max_wal_senders=5", "-c hot_standby=on"]
                    + settings.map { "-c \(shellQuoted($0))" })
            let server = PostgresTestServer(
                host: loopbackAddress, port: port, username: superuserName, directory: directory,
                binDirectory: binDirectory)
            privateServersToStopAtExit.withLock { $0.append(server) }
            let registers = privateExitHandler.withLock { registered in
                defer { registered = true }
                return !registered
            }
            if registers { atexit { PostgresTestServer.stopPrivateServersAtExit() } }
            return server
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private static func stopPrivateServersAtExit() {
        for server in privateServersToStopAtExit.withLock({ $0 }) { try? server.stop() }
    }

    /// `pg_ctl restart -m <mode>`: the server stops and starts again on the same port, with the
    /// same options (pg_ctl keeps them in `postmaster.opts`). Returns once it accepts connections.
    public func restart(mode: ShutdownMode) throws(PostgresTestServerError) {
        try pgCtl(["-m", mode.rawValue, "-w", "-t", "60", "-l", Self.serverLog(in: directory).path, "restart"], "restart -m \(mode)")
    }

    /// `pg_ctl stop -m <mode>`: the server stops; its directory stays until ``stop()`` or exit.
    public func shutDown(mode: ShutdownMode) throws(PostgresTestServerError) {
        try pgCtl(["-m", mode.rawValue, "-w", "-t", "60", "stop"], "stop -m \(mode)")
    }

    /// `pg_ctl promote` of a standby: returns once it has left recovery and takes writes.
    public func promote() throws(PostgresTestServerError) {
        try pgCtl(["-w", "-t", "60", "promote"], "promote")
    }

    private func pgCtl(_ arguments: [String], _ what: String) throws(PostgresTestServerError) {
        let result = try Self.run(
            binDirectory.appending(path: "pg_ctl"), ["-D", Self.dataDirectory(in: directory).path] + arguments, in: directory)
        guard result.status == 0 else {
            throw PostgresTestServerError(
                "pg_ctl \(what) on port \(port) failed (exit status \(result.status))", commandOutput: result.output,
                serverLogTail: Self.logTail(of: Self.serverLog(in: directory)))
        }
    }
}
