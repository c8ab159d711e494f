import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A built binary running as a child process, its standard output and error going to files
/// (so that they survive a SIGKILL and can be read while it runs).
///
/// `@unchecked Sendable`: `Process` is thread-safe for the calls made here (`isRunning`,
/// `processIdentifier`, termination status after exit), and the other properties are `let`s.
final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    enum Termination: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        var description: String {
            switch self {
            case let .exited(status): "exit status \(status)"
            case let .signalled(signal): "killed by signal \(signal)"
            }
        }
    }

    let name: String
    let process = Process()
    let standardOutputURL: URL
    let standardErrorURL: URL

    /// Starts `executable` with `arguments` in `directory` (with `environment` added to this
    /// process's); its output goes to
    /// `<logDirectory>/<name>.stdout` and `.stderr` (appended to, so that restarts of one
    /// daemon share a log).
    init(
        name: String, executable: URL, arguments: [String], directory: URL, logDirectory: URL,
        environment: [String: String] = [:]
    ) throws {
        self.name = name
        standardOutputURL = logDirectory.appending(path: "\(name).stdout")
        standardErrorURL = logDirectory.appending(path: "\(name).stderr")
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = try Self.appendingHandle(standardOutputURL)
        let error = try Self.appendingHandle(standardErrorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
    }

    var pid: Int32 {
        process.processIdentifier
    }

    var isRunning: Bool {
        process.isRunning
    }

    /// Sends `signal` if the child still runs.
    func send(_ signal: Int32) {
        if process.isRunning {
            kill(process.processIdentifier, signal)
        }
    }

    /// Waits (polling) until the child has exited, for at most `timeout`.
    func waitForExit(timeout: Duration) async throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("\(name) (pid \(pid)) still runs after \(timeout)\n\(logTail())")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return termination
    }

    /// How it ended; only once it has.
    var termination: Termination {
        process.terminationReason == .uncaughtSignal
            ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
    }

    /// SIGKILLs the child if it still runs and reaps it. For clean-up after a test, whatever
    /// happened.
    func killAndReap() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Everything the child wrote to standard output so far.
    var standardOutput: String {
        (try? String(contentsOf: standardOutputURL, encoding: .utf8)) ?? ""
    }

    /// Everything the child wrote to standard error so far.
    var standardError: String {
        (try? String(contentsOf: standardErrorURL, encoding: .utf8)) ?? ""
    }

    /// The last lines of standard error, for failure messages.
    func logTail(lines: Int = 30) -> String {
        let all = standardError.split(separator: "\n", omittingEmptySubsequences: false)
        return "--- last lines of \(standardErrorURL.path) ---\n" + all.suffix(lines).joined(separator: "\n")
    }

    private static func appendingHandle(_ url: URL) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        return handle
    }
}
