public import Foundation
import LineupLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real PostgreSQL server of the test process's own: a fresh cluster in a temporary
/// directory, listening on a free port of 127.0.0.1, trusting every local connection as the
/// superuser ``username``. It needs the `initdb` and `pg_ctl` of an installed PostgreSQL
/// (Debian's `postgresql`), nothing else: no cluster of the system's, no service.
///
/// PostgreSQL refuses to run as root, so when the tests run as root the server (and every
/// PostgreSQL program this type runs) runs as `nobody`, through `runuser`.
///
/// The server never outlives the test process: an `atexit` handler stops it and removes its
/// directory, and a detached watchdog process does the same when the test process ends without
/// running its `atexit` handlers (a crash, SIGKILL).
public final class PostgresTestServer: Sendable {
    public let host: String
    public let port: Int
    /// The superuser every connection may use without a password.
    public let username: String
    /// The cluster (`data`), the server's log (`server.log`) and its Unix socket.
    public let directory: URL

    let binDirectory: URL
    private let databaseCounter = Locked(0)
    private let isStopped = Locked(false)

    init(host: String, port: Int, username: String, directory: URL, binDirectory: URL) {
        self.host = host
        self.port = port
        self.username = username
        self.directory = directory
        self.binDirectory = binDirectory
    }

    // MARK: - The one server of the process

    /// Starting takes seconds, so the tests share one server and keep apart by database
    /// (``createDatabase()``). A failure is kept, so that every later caller gets the same
    /// error at once instead of waiting for a start that fails again.
    private static let sharedStart = Locked<Result<PostgresTestServer, PostgresTestServerError>?>(nil)

    /// Apart from ``sharedStart``, whose lock is held for as long as a start takes: an `exit` in
    /// the middle of a start must not wait for it.
    private static let serverToStopAtExit = Locked<PostgresTestServer?>(nil)

    /// The server of this test process, started by the first call. Callers block while it starts.
    ///
    /// - Throws: ``PostgresTestServerError`` if it cannot be started, on this call and every later one.
    public static func shared() throws(PostgresTestServerError) -> PostgresTestServer {
        let result = sharedStart.withLock { start in
            if let start { return start }
            let result = Result { () throws(PostgresTestServerError) in try launch() }
            if case .success(let server) = result {
                serverToStopAtExit.withLock { $0 = server }
                atexit { PostgresTestServer.stopServerAtExit() }
            }
            start = result
            return result
        }
        return try result.get()
    }

    private static func stopServerAtExit() {
        let server = serverToStopAtExit.withLock { $0 }
        try? server?.stop()
    }

    // MARK: - Finding PostgreSQL

    /// Whether `initdb` and `pg_ctl` are installed, so that a server can be started.
    public static var isAvailable: Bool { installedBinDirectory != nil }

    /// Whether a missing PostgreSQL fails the tests that need it rather than skipping them
    /// (`.ci/run` sets `LINEUP_REQUIRE_POSTGRES=1`).
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["LINEUP_REQUIRE_POSTGRES"] == "1"
    }

    /// The first directory of `$PATH` with both `initdb` and `pg_ctl`, else Debian's
    /// `/usr/lib/postgresql/<version>/bin` of the newest version: Debian puts neither program
    /// on `$PATH`.
    static let installedBinDirectory: URL? = {
        let pathDirectories = (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":").map { URL(fileURLWithPath: String($0), isDirectory: true) }
        let debianRoot = URL(fileURLWithPath: "/usr/lib/postgresql", isDirectory: true)
        let debianVersions = ((try? FileManager.default.contentsOfDirectory(atPath: debianRoot.path)) ?? [])
            .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
            .map { debianRoot.appending(path: $0).appending(path: "bin", directoryHint: .isDirectory) }
        return (pathDirectories + debianVersions).first { directory in
            ["initdb", "pg_ctl"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: directory.appending(path: $0).path)
            }
        }
    }()

    /// The `psql` of the server's own version where there is one: `/usr/bin/psql` is Debian's
    /// wrapper, which picks a version of its own.
    var psqlExecutable: URL {
        let pgCtl = binDirectory.appending(path: "pg_ctl")
        let candidates = [
            pgCtl.resolvingSymlinksInPath().deletingLastPathComponent().appending(path: "psql"),
            binDirectory.appending(path: "psql"),
            URL(fileURLWithPath: "/usr/bin/psql"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    // MARK: - Starting

    static let superuserName = "lineup"
    static let loopbackAddress = "127.0.0.1"
    private static let startAttempts = 5

    private static func launch() throws(PostgresTestServerError) -> PostgresTestServer {
        guard let binDirectory = installedBinDirectory else {
            throw PostgresTestServerError(
                "PostgreSQL is not installed: no initdb and pg_ctl on $PATH or in /usr/lib/postgresql/*/bin"
                    + " (apt-get install postgresql)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appending(path: "lineup-postgres-\(UUID().uuidString)", directoryHint: .isDirectory)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PostgresTestServerError("cannot create \(directory.path): \(error)")
        }
        do {
            try handOverToServerUser(directory)
            try startWatchdog(directory: directory, binDirectory: binDirectory)
            try initializeCluster(directory: directory, binDirectory: binDirectory)
            // TLS, and the roles of the connection tests (PostgresTestServer+TLS.swift).
            let accessOptions = try prepareAccess(in: directory) { script throws(PostgresTestServerError) in
                try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: directory)
            }
            let port = try startServer(directory: directory, binDirectory: binDirectory, extraOptions: accessOptions)
            let server = PostgresTestServer(
                host: loopbackAddress, port: port, username: superuserName, directory: directory,
                binDirectory: binDirectory)
            try server.createTestRoles()
            return server
        } catch {
            // Once the directory is gone the watchdog ends too.
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// PostgreSQL refuses to run as root; as root it runs as this user instead.
    private static let unprivilegedUserName = "nobody"
    private static let isRoot = geteuid() == 0
    private static let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        .first(where: FileManager.default.isExecutableFile(atPath:)) ?? "/usr/sbin/runuser"

    static func handOverToServerUser(_ directory: URL) throws(PostgresTestServerError) {
        guard isRoot else { return }
        guard FileManager.default.isExecutableFile(atPath: runuser) else {
            throw PostgresTestServerError(
                "running as root, and runuser (util-linux) is not installed to run PostgreSQL as \(unprivilegedUserName)")
        }
        guard let user = getpwnam(unprivilegedUserName) else {
            throw PostgresTestServerError(
                "running as root, and there is no user \(unprivilegedUserName) to run PostgreSQL as")
        }
        guard chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw PostgresTestServerError(
                "cannot give \(directory.path) to \(unprivilegedUserName): \(String(cString: strerror(errno)))")
        }
    }

    static func initializeCluster(directory: URL, binDirectory: URL) throws(PostgresTestServerError) {
        let initdb = binDirectory.appending(path: "initdb")
        let common = [
            "-D", dataDirectory(in: directory).path, "-U", superuserName, "--auth=trust", "--encoding=UTF8",
        ]
        let withLocale = try run(initdb, common + ["--locale=C.UTF-8"], in: directory)
        guard withLocale.status != 0 else { return }
        // A system without the C.UTF-8 locale (older glibc): the C locale, still UTF-8 text.
        // initdb removes what it made of the cluster when it fails.
        guard withLocale.output.contains("invalid locale name") else {
            throw PostgresTestServerError(
                "initdb failed (exit status \(withLocale.status))", commandOutput: withLocale.output)
        }
        let withoutLocale = try run(initdb, common + ["--no-locale"], in: directory)
        guard withoutLocale.status == 0 else {
            throw PostgresTestServerError(
                "initdb failed with --locale=C.UTF-8 and with --no-locale (exit status \(withoutLocale.status))",
                commandOutput: withLocale.output + "\n" + withoutLocale.output)
        }
    }

    /// Starts the server on a port that was free a moment ago; another process may take it
    /// first, so a failure to bind is tried again on another.
    static func startServer(
        directory: URL, binDirectory: URL, extraOptions: [String]
    ) throws(PostgresTestServerError) -> Int {
        let logFile = serverLog(in: directory)
        var lastFailure: PostgresTestServerError?
        for _ in 1...startAttempts {
            let port = try unusedLoopbackPort()
            // A fresh log for each attempt: an earlier attempt's "could not bind" must not count.
            try? FileManager.default.removeItem(at: logFile)
            // Every suite that runs beside the others shares this server, and each daemon of a test
            // holds a pool, a listener and its lease's connections: 200 ran out once the operator
            // controls' suites joined the run.
            let serverOptions = ([
                "-c listen_addresses=\(loopbackAddress)", "-p \(port)", "-k \(shellQuoted(directory.path))",
                "-c fsync=off", "-c max_connections=500", "-c shared_buffers=32MB",
            ] + extraOptions).joined(separator: " ")
            let arguments = [
                "-D", dataDirectory(in: directory).path, "-l", logFile.path, "-w", "-t", "60",
                "-o", serverOptions, "start",
            ]
            let started = try run(binDirectory.appending(path: "pg_ctl"), arguments, in: directory)
            if started.status == 0 { return port }
            let log = logTail(of: logFile)
            let failure = PostgresTestServerError(
                "pg_ctl start on port \(port) failed (exit status \(started.status))",
                commandOutput: started.output, serverLogTail: log)
            guard (started.output + log).contains("could not bind") else { throw failure }
            lastFailure = failure
        }
        throw lastFailure ?? PostgresTestServerError("pg_ctl start failed")
    }

    /// A port no socket of 127.0.0.1 uses, as the kernel picks one for a socket bound to port 0.
    static func unusedLoopbackPort() throws(PostgresTestServerError) -> Int {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else {
            throw PostgresTestServerError(
                "cannot make a socket to find a free port: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(loopbackAddress)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            throw PostgresTestServerError(
                "cannot find a free port on \(loopbackAddress): \(String(cString: strerror(errno)))")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts a shell, in a session of its own so that what kills the test process and its
    /// process group does not kill it, that waits for the test process to end and then stops
    /// the server and removes its directory; it ends early once the directory is gone (the
    /// start failed, or ``stop()`` ran). As root it stays root, to remove whatever the server
    /// left in the directory.
    static func startWatchdog(directory: URL, binDirectory: URL) throws(PostgresTestServerError) {
        let quotedDirectory = shellQuoted(directory.path)
        let stopCommand = serverUserCommand(
            binDirectory.appending(path: "pg_ctl"),
            ["-D", dataDirectory(in: directory).path, "-m", "immediate", "stop"]
        ).map(shellQuoted).joined(separator: " ")
        let script = """
            while kill -0 \(getpid()) 2>/dev/null && [ -d \(quotedDirectory) ]; do sleep 1; done
            if [ -d \(quotedDirectory) ]; then
                cd / && \(stopCommand) >/dev/null 2>&1
                rm -rf \(quotedDirectory)
            fi
            """
        let setsid = ["/usr/bin/setsid", "/bin/setsid"].first(where: FileManager.default.isExecutableFile(atPath:))
        // setsid -f forks and returns at once; without setsid, a background job at least
        // outlives the test process, though not a kill of its process group.
        let commandLine =
            setsid.map { [$0, "-f", "/bin/sh", "-c", script] } ?? ["/bin/sh", "-c", "(\(script)) &"]
        let launcher = try spawn(commandLine, in: URL(fileURLWithPath: "/"), output: nil)
        let status = waitForExit(of: launcher)
        guard status == 0 else {
            throw PostgresTestServerError(
                "the watchdog of the server did not start: \(commandLine[0]) ended with status \(status)")
        }
    }

    // MARK: - Databases

    /// Makes a new, empty database of a name no other call of this process returns.
    ///
    /// - Returns: The database's name, for ``url(database:)``.
    public func createDatabase() throws(PostgresTestServerError) -> String {
        let number = databaseCounter.withLock { counter in
            counter += 1
            return counter
        }
        let name = "lineup_test_\(number)_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try psql("CREATE DATABASE \(name)", database: "postgres")
        return name
    }

    /// Drops a database, disconnecting whoever is still connected to it.
    public func dropDatabase(_ name: String) throws(PostgresTestServerError) {
        _ = try psql("DROP DATABASE IF EXISTS \(quotedIdentifier(name)) WITH (FORCE)", database: "postgres")
    }

    /// The connection URL of one database, for a client of the test's own. Without TLS, which
    /// the server offers (and libpq's default, `sslmode=prefer`, would take): the stack's tests
    /// and the benchmark's raw baseline connect alike, and the TLS tests say what they use.
    public func url(database: String) -> String {
        "postgres://\(username)@\(host):\(port)/\(database)?sslmode=disable"
    }

    /// Runs SQL with `psql` and returns what it printed: unaligned, tuples only (`-A -t`), one
    /// row a line, without the trailing newline. For tests that check a database apart from
    /// their own client.
    ///
    /// - Throws: ``PostgresTestServerError`` with psql's output if psql fails or the SQL does.
    public func psql(_ sql: String, database: String) throws(PostgresTestServerError) -> String {
        let arguments = [
            "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", String(port), "-U", username,
            "-d", database, "-c", sql,
        ]
        let result = try Self.run(psqlExecutable, arguments, in: directory)
        guard result.status == 0 else {
            throw PostgresTestServerError(
                "psql -d \(database) -c \(Self.shellQuoted(sql)) failed (exit status \(result.status))",
                commandOutput: result.output, serverLogTail: Self.logTail(of: Self.serverLog(in: directory)))
        }
        return result.output.trimmingCharacters(in: .newlines)
    }

    private func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: - Stopping

    /// Stops the server at once (immediate shutdown: its data is thrown away) and removes its
    /// directory. Later calls do nothing. ``shared()`` goes on returning the stopped server.
    public func stop() throws(PostgresTestServerError) {
        let wasStopped = isStopped.withLock { isStopped in
            defer { isStopped = true }
            return isStopped
        }
        guard !wasStopped else { return }
        let dataDirectory = Self.dataDirectory(in: directory)
        let stopped = try Self.run(
            binDirectory.appending(path: "pg_ctl"), ["-D", dataDirectory.path, "-m", "immediate", "stop"],
            in: directory)
        // pg_ctl also fails when the server is not running any more; then there is nothing to stop.
        let pidFile = dataDirectory.appending(path: "postmaster.pid")
        if stopped.status != 0 && FileManager.default.fileExists(atPath: pidFile.path) {
            throw PostgresTestServerError(
                "pg_ctl stop failed (exit status \(stopped.status))", commandOutput: stopped.output,
                serverLogTail: Self.logTail(of: Self.serverLog(in: directory)))
        }
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            throw PostgresTestServerError("cannot remove \(directory.path): \(error)")
        }
    }

    // MARK: - Running PostgreSQL's programs

    static func dataDirectory(in directory: URL) -> URL {
        directory.appending(path: "data", directoryHint: .isDirectory)
    }

    static func serverLog(in directory: URL) -> URL {
        directory.appending(path: "server.log")
    }

    /// The end of the server's log, where the reason it failed is.
    static func logTail(of file: URL, maximumBytes: Int = 4_000) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "" }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd() else { return "" }
        try? handle.seek(toOffset: end > UInt64(maximumBytes) ? end - UInt64(maximumBytes) : 0)
        let data = (try? handle.readToEnd()) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The command line that runs `executable` as the user the server runs as.
    private static func serverUserCommand(_ executable: URL, _ arguments: [String]) -> [String] {
        guard isRoot else { return [executable.path] + arguments }
        return [runuser, "-u", unprivilegedUserName, "--", executable.path] + arguments
    }

    /// Runs one of PostgreSQL's programs, as the server's user, to its end and returns its exit
    /// status and its output (standard output and standard error together, as they came).
    static func run(
        _ executable: URL, _ arguments: [String], in directory: URL
    ) throws(PostgresTestServerError) -> (status: Int32, output: String) {
        let commandLine = serverUserCommand(executable, arguments)
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw PostgresTestServerError(
                "cannot make a pipe for \(executable.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        let (reading, writing) = (descriptors[0], descriptors[1])
        // Another thread's child must not hold the pipe open: its reader would wait for it.
        _ = fcntl(reading, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writing, F_SETFD, FD_CLOEXEC)
        defer { close(reading) }
        let pid: pid_t
        do {
            defer { close(writing) }
            pid = try spawn(commandLine, in: directory, output: writing)
        }
        // Read before waiting: a program that fills the pipe would otherwise wait for us forever.
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return (waitForExit(of: pid), String(decoding: output, as: UTF8.self))
    }

    /// Starts a program with standard input from /dev/null and standard output and standard
    /// error to `output` (/dev/null if nil), in `directory`.
    ///
    /// posix_spawn, not Foundation's `Process`: on Linux, `Process` learns that a child ended
    /// when a socket the child inherits is closed, and the server and the watchdog, which
    /// outlive the program started, would keep it open, so `waitUntilExit` would wait for the
    /// server to stop. Here a child inherits no descriptor but the three it is given.
    static func spawn(
        _ commandLine: [String], in directory: URL, output: Int32?
    ) throws(PostgresTestServerError) -> pid_t {
        // The shell changes the directory: posix_spawn's own chdir action is not in Swift's Glibc.
        let commandLine = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path] + commandLine
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Signals as a fresh process has them, not as the spawning thread (a Dispatch worker
        // that may block some) has them.
        var flags = Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        try closeDescriptorsAboveStandardError(in: &actions)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        sigdelset(&allSignals, SIGKILL)
        sigdelset(&allSignals, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)

        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        // English messages, to recognize "could not bind"; no PG* variables of the caller's
        // (PGDATABASE, PGSSLMODE, …) to change what the programs do.
        environment["LC_ALL"] = "C"
        environment["LANGUAGE"] = nil
        environment["PGCONNECT_TIMEOUT"] = "10"
        let argv = commandLine.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, commandLine[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            let program = commandLine.dropFirst(4).map(shellQuoted).joined(separator: " ")
            throw PostgresTestServerError("cannot run \(program): \(String(cString: strerror(result)))")
        }
        return pid
    }

    #if !canImport(Darwin)
    /// glibc's closefrom action (2.34 and later), found at run time because Swift's Glibc module
    /// leaves it out; else a close action for each descriptor open now.
    private static func closeDescriptorsAboveStandardError(
        in actions: inout posix_spawn_file_actions_t
    ) throws(PostgresTestServerError) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
            guard unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3) == 0 else {
                throw PostgresTestServerError("posix_spawn_file_actions_addclosefrom_np failed")
            }
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
    #endif

    /// The exit status of a child, or 128 + the signal that ended it, as a shell reports it.
    static func waitForExit(of pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// What starting, using or stopping a ``PostgresTestServer`` failed at, with the output of the
/// command that failed and the end of the server's log.
public struct PostgresTestServerError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// Standard output and standard error of the command that failed, if a command did.
    public let commandOutput: String
    /// The last few kilobytes of `server.log`, if the server got as far as writing one.
    public let serverLogTail: String

    init(_ message: String, commandOutput: String = "", serverLogTail: String = "") {
        self.message = message
        self.commandOutput = commandOutput
        self.serverLogTail = serverLogTail
    }

    public var description: String {
        var text = message
        if !commandOutput.isEmpty { text += "\n--- output ---\n" + commandOutput }
        if !serverLogTail.isEmpty { text += "\n--- end of server.log ---\n" + serverLogTail }
        return text
    }
}
