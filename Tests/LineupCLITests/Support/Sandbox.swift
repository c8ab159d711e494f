import Foundation
import LineupSpool

/// One temporary directory per test with everything a daemon needs of its own: a store, a
/// spool, an input and an output directory; and the child processes started in it, which
/// ``withSandbox(_:)`` kills when the test ends, whatever happened.
///
/// ```
/// <root>/store.sqlite   spool/   input/   output/   logs/
/// ```
///
/// `@unchecked Sendable`: `children` is only touched while `lock` is held; the rest is `let`.
final class Sandbox: @unchecked Sendable {
    let root: URL
    let store: URL
    let spool: URL
    let input: URL
    let output: URL
    let logs: URL

    private let lock = NSLock()
    private var children: [ChildProcess] = []
    private var launches = 0

    fileprivate init() throws {
        let base = FileManager.default.temporaryDirectory
            .appending(path: "lineup-cli-tests-\(UUID().uuidString.prefix(8))", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        // The daemon compares real paths (PathPolicy): /tmp may be a symbolic link.
        root = base.resolvingSymlinksInPath()
        store = root.appending(path: "store.sqlite")
        spool = root.appending(path: "spool", directoryHint: .isDirectory)
        input = root.appending(path: "input", directoryHint: .isDirectory)
        output = root.appending(path: "output", directoryHint: .isDirectory)
        logs = root.appending(path: "logs", directoryHint: .isDirectory)
        for directory in [input, output, logs] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    // MARK: - Child processes

    /// Starts a binary in the sandbox's root (or in `directory`); it is killed at the end of the
    /// test if it still runs.
    func launch(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, logName: String? = nil,
        environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let name = lock.withLock {
            launches += 1
            return logName ?? "\(executable.lastPathComponent)-\(launches)"
        }
        let child = try ChildProcess(
            name: name, executable: executable, arguments: arguments, directory: directory ?? root, logDirectory: logs,
            environment: environment)
        lock.withLock { children.append(child) }
        return child
    }

    /// Runs a binary with `arguments` to the end and returns its exit status and output.
    func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, timeout: Duration = .seconds(60)
    ) async throws -> CommandResult {
        let child = try launch(executable, arguments, in: directory)
        let termination = try await child.waitForExit(timeout: timeout)
        return CommandResult(termination: termination, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    /// Runs `lineup` with `arguments` to the end.
    func lineup(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> CommandResult {
        try await run(Binaries.lineup, arguments, timeout: timeout)
    }

    /// The arguments that point `lineupd` at this sandbox.
    var daemonLocationArguments: [String] {
        ["--store", store.path, "--spool", spool.path, "--input", input.path, "--output", output.path]
    }

    /// Starts `lineupd` on this sandbox and waits for its start-up log line (store open,
    /// `active/` recovered, claiming begun). All runs share the log `logs/lineupd.stderr`.
    func startDaemon(
        _ extraArguments: [String] = [], environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) async throws -> ChildProcess {
        let before = daemonLog.components(separatedBy: Self.startedLine).count
        let daemon = try launch(
            Binaries.lineupd, daemonLocationArguments + extraArguments, logName: "lineupd", environment: environment)
        try await poll("lineupd to log that it started", timeout: timeout, daemon: daemon) {
            guard daemon.isRunning else {
                throw HarnessError("lineupd exited at start-up (\(daemon.termination))\n\(daemon.logTail())")
            }
            return daemonLog.components(separatedBy: Self.startedLine).count > before
        }
        return daemon
    }

    /// Enqueues an `import-buoy` job of `input` (relative to the input directory) with
    /// `lineup enqueue`.
    func enqueueImport(id: String, input: String) async throws {
        let result = try await lineup(["enqueue", "import-buoy", "input=\(input)", "--id", id, "--spool", spool.path])
        guard result.termination == .exited(0) else {
            throw HarnessError("lineup enqueue of \(input) failed (\(result.termination)): \(result.standardError)")
        }
    }

    /// The line lineupd logs once it runs.
    static let startedLine = "lineup daemon started"

    /// Everything every `lineupd` run in this sandbox wrote to standard error.
    var daemonLog: String {
        (try? String(contentsOf: logs.appending(path: "lineupd.stderr"), encoding: .utf8)) ?? ""
    }

    fileprivate func tearDown() {
        let children = lock.withLock { self.children }
        for child in children {
            child.killAndReap()
        }
        if ProcessInfo.processInfo.environment["LINEUP_KEEP_TEST_SANDBOX"] == "1" {
            print("kept \(root.path)")
        } else {
            try? FileManager.default.removeItem(at: root)
        }
    }

    // MARK: - Waiting

    /// Polls `condition` until it holds or `timeout` passes (then throws, with the daemon's log).
    func poll(
        _ what: String, timeout: Duration = .seconds(60), daemon: ChildProcess? = nil,
        _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("timed out after \(timeout) waiting for \(what)\n\(daemon?.logTail() ?? "")")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: - The spool, as any observer sees it

    /// The job files (`*.job.json`) in one of the spool's directories, sorted.
    func jobFiles(_ directory: String) throws -> [String] {
        try fileNames(directory).filter { $0.hasSuffix(".job.json") }
    }

    /// Every entry in one of the spool's directories, sorted; none when it does not exist.
    func fileNames(_ directory: String) throws -> [String] {
        let url = spool.appending(path: directory)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// The spool's `status.json` as the daemon last wrote it; nil before the first write.
    func status() -> StatusFile? {
        guard let data = try? Data(contentsOf: spool.appending(path: "status.json")) else { return nil }
        return try? JSONDecoder().decode(StatusFile.self, from: data)
    }

    /// Writes `contents` as a job file the way any producer may: into `tmp/`, then renamed
    /// into `new/` under `name`.
    func dropJob(named name: String, contents: String) throws {
        let directory = try SpoolDirectory(root: spool, durability: .none)
        let temporary = directory.root.appending(path: "tmp/\(name)")
        try Data(contents.utf8).write(to: temporary)
        try FileManager.default.moveItem(at: temporary, to: directory.root.appending(path: "new/\(name)"))
    }

    /// The job file (parsed) in `done/` or `failed/` named `file`.
    func job(_ directory: String, _ file: String) throws -> JobFile {
        let url = spool.appending(path: "\(directory)/\(file)")
        return try JobFile(data: Data(contentsOf: url), path: url.path)
    }

    /// The job files of one of the spool's directories as they were enqueued: without the claim
    /// (`.c<12 hex digits>`) that a daemon adds to the name when it claims a job.
    func enqueuedJobFiles(_ directory: String) throws -> [String] {
        try jobFiles(directory).map(Self.enqueuedName(of:)).sorted()
    }

    /// The file in `directory` of the job enqueued as `file` (the first, if several share it).
    func claimedJobFile(_ directory: String, enqueuedAs file: String) throws -> String {
        guard let claimed = try jobFiles(directory).first(where: { Self.enqueuedName(of: $0) == file }) else {
            throw HarnessError("no job enqueued as \(file) in \(directory)/: \(try jobFiles(directory))")
        }
        return claimed
    }

    static func enqueuedName(of file: String) -> String {
        let stem = file.dropLast(".job.json".count)
        guard let dot = stem.lastIndex(of: "."), stem[stem.index(after: dot)...].first == "c",
            stem.distance(from: dot, to: stem.endIndex) == 14
        else { return file }
        return stem[..<dot] + ".job.json"
    }

    /// The report beside a job file in `done/` or `failed/`: the job file and its report share
    /// a stem (the file name without `.job.json`, its claim included).
    func reportURL(_ directory: String, forJobFile file: String) -> URL {
        let stem = file.dropLast(".job.json".count)
        let suffix = directory == "done" ? "result.json" : "error.json"
        return spool.appending(path: "\(directory)/\(stem).\(suffix)")
    }

    func failureReport(forJobFile file: String) throws -> JobFailureReport {
        let url = reportURL("failed", forJobFile: file)
        return try JobFailureReport(data: Data(contentsOf: url), path: url.path)
    }

    func resultReport(forJobFile file: String) throws -> JobResultReport {
        let url = reportURL("done", forJobFile: file)
        return try JobResultReport(data: Data(contentsOf: url), path: url.path)
    }
}

/// Runs `body` with a fresh sandbox; afterwards kills every child process started in it
/// that still runs and removes the directory (kept with `LINEUP_KEEP_TEST_SANDBOX=1`), also
/// when `body` throws.
func withSandbox<Result>(_ body: (Sandbox) async throws -> Result) async throws -> Result {
    let sandbox = try Sandbox()
    defer { sandbox.tearDown() }
    return try await body(sandbox)
}
