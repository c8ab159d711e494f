import Foundation

/// The `sqlite3` command-line tool (Debian's `sqlite3` package), the baseline of the export and
/// statistics benchmarks.
enum SQLiteShell {
    /// `sqlite3` from the PATH.
    static func executable() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("sqlite3")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw BenchError(.usage, "the sqlite3 command-line tool is not on the PATH (apt-get install sqlite3)")
    }

    /// Runs `sqlite3 ARGUMENTS > output`, then fsyncs `output` (so that the baseline's file is as
    /// durable as Lineup's, which CSVWriter fsyncs before renaming it into place).
    ///
    /// - Returns: the wall time from launching the process until the fsync returned, and the
    ///   part of it the fsync took.
    static func run(_ arguments: [String], output: URL) throws -> (elapsed: UInt64, fsync: UInt64) {
        let executable = try executable()
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw BenchError(.usage, "cannot create \(output.path)")
        }
        let outputHandle = try FileHandle(forWritingTo: output)
        defer { try? outputHandle.close() }
        let errors = Pipe()
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = outputHandle
        process.standardError = errors
        let started = MonotonicClock.now()
        try process.run()
        // The error output is small; reading it to the end also waits for the process to close it.
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let exited = MonotonicClock.now()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError(
                .sqlite, "sqlite3 \(arguments.dropLast().joined(separator: " ")) failed (status \(process.terminationStatus)): \(errorText)")
        }
        guard fsync(outputHandle.fileDescriptor) == 0 else {
            throw BenchError(.usage, "\(output.path): fsync failed: \(String(cString: strerror(errno)))")
        }
        let ended = MonotonicClock.now()
        return (ended - started, ended - exited)
    }

    /// What `sqlite3 -version` says, e.g. "3.40.1 2022-12-28 …", or "?".
    static func version() -> String {
        guard let executable = try? executable() else { return "?" }
        let output = Pipe()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-version"]
        process.standardOutput = output
        guard (try? process.run()) != nil else { return "?" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: " ").first.map(String.init) ?? "?"
    }
}
