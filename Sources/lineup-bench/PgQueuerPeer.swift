import Foundation

/// PgQueuer (Python), the peer that `postgres-jobs` runs beside Lineup: a venv of its own with
/// PgQueuer and asyncpg from PyPI, made once and kept in the temporary directory, and the runner
/// `scripts/pgqueuer-peer.py` of this checkout.
struct PgQueuerPeer {
    let python: URL
    let script: URL

    /// The venv, made if it is not there yet (`python3 -m venv`, Debian's `python3-venv`, then
    /// `pip install`); a failure says why, and the benchmark runs without the peer.
    static func prepare(in workDirectory: URL) -> Result<PgQueuerPeer, BenchError> {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "scripts/pgqueuer-peer.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            return .failure(BenchError(.usage, "\(script.path) is not there: run the benchmark from its checkout"))
        }
        let version = PostgresJobsBenchmark.pgqueuerVersion
        let venv = FileManager.default.temporaryDirectory.appending(path: "lineup-bench-pgqueuer-\(version)", directoryHint: .isDirectory)
        let python = venv.appending(path: "bin/python")
        let installed = (try? run(python, ["-c", "import importlib.metadata as m; print(m.version('pgqueuer'))"]))?.output
        if installed?.trimmingCharacters(in: .whitespacesAndNewlines) != version {
            progress("postgres-jobs: making a venv with PgQueuer \(version) in \(venv.path) …")
            do {
                try? FileManager.default.removeItem(at: venv)
                let made = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-m", "venv", venv.path])
                guard made.status == 0 else {
                    return .failure(BenchError(.usage, "python3 -m venv failed (Debian's python3-venv?): \(made.output)"))
                }
                let pip = try run(venv.appending(path: "bin/pip"), ["install", "--quiet", "pgqueuer==\(version)", "asyncpg"])
                guard pip.status == 0 else { return .failure(BenchError(.usage, "pip install pgqueuer==\(version) failed: \(pip.output)")) }
            } catch {
                return .failure(BenchError(.usage, "cannot make the PgQueuer venv: \(error)"))
            }
        }
        return .success(PgQueuerPeer(python: python, script: script))
    }

    /// Jobs per second of `workers` PgQueuer processes draining `jobs` no-op jobs from the new,
    /// empty database at `databaseURL`.
    func run(jobs: Int, workers: Int, databaseURL: URL) throws -> Double {
        let result = try Self.run(
            python, [script.path, "--dsn", databaseURL.absoluteString, "--jobs", "\(jobs)", "--workers", "\(workers)", "--batch", "10"])
        guard result.status == 0, let line = result.output.split(separator: "\n").last(where: { $0.hasPrefix("pgqueuer ") }) else {
            throw BenchError(.verification, "the PgQueuer run failed (exit status \(result.status)): \(result.output.suffix(2_000))")
        }
        var fields: [String: String] = [:]
        for word in line.split(separator: " ").dropFirst() {
            let pair = word.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let seconds = fields["seconds"].flatMap(Double.init), seconds > 0, let done = fields["done"].flatMap(Int.init) else {
            throw BenchError(.verification, "cannot read PgQueuer's line: \(line)")
        }
        guard done == jobs else { throw BenchError(.verification, "PgQueuer logged \(done) jobs done, not \(jobs)") }
        return Double(jobs) / seconds
    }

    /// Runs `executable` and returns its exit status with its output and errors together.
    private static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
