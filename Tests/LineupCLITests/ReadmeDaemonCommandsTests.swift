import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// The README's "Running the daemon" commands, run as written in a fresh directory (with
    /// the built binaries for `.build/release/` and the repository's `samples/`): a reader who
    /// copies them must end with the jobs done and the export in `output/`.
    @Suite("The README's daemon commands")
    struct ReadmeDaemonCommandsTests {
        static let packageRoot = BuoyFixtures.samplesDirectory.deletingLastPathComponent()

        /// The command lines of the first `sh` block of the README's "Running the daemon" section.
        static func daemonCommands() throws -> [String] {
            let readme = try String(contentsOf: packageRoot.appending(path: "README.md"), encoding: .utf8)
            guard let section = readme.components(separatedBy: "\n## Running the daemon\n").dropFirst().first,
                let block = section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first
            else {
                throw HarnessError("README.md has no sh block under \"## Running the daemon\"")
            }
            return block.split(separator: "\n").map { line in
                String(line.split(separator: "#", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
        }

        @Test("the README's daemon commands work as written in a fresh directory")
        func readmeCommandsWork() async throws {
            let commands = try Self.daemonCommands()
            try #require(commands.contains { $0.contains("lineupd") } && commands.contains { $0.contains("export-csv") })
            try await withSandbox { sandbox in
                let directory = sandbox.root.appending(path: "fresh")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    at: directory.appending(path: "samples"), withDestinationURL: BuoyFixtures.samplesDirectory)
                #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "output").path))

                var daemon: ChildProcess?
                var enqueued = 0
                for command in commands {
                    var words = command.split(separator: " ").map(String.init)
                    if words.first == "swift" { continue }  // the build: the tests run the built binaries
                    if words == ["kill", "-USR1", "$(pgrep", "lineupd)"] {
                        let running = try #require(daemon, "kill before lineupd started")
                        running.send(SIGUSR1)
                        continue
                    }
                    let inBackground = words.last == "&"
                    if inBackground { words.removeLast() }
                    let program = try #require(words.first.map { URL(fileURLWithPath: $0).lastPathComponent })
                    let executable = try program == "lineupd" ? Binaries.lineupd : Binaries.lineup
                    let arguments = Array(words.dropFirst())
                    if program == "lineupd" {
                        #expect(inBackground, "the README starts lineupd in the foreground: the next line would never run")
                        let before = sandbox.daemonLog.components(separatedBy: Sandbox.startedLine).count
                        let started = try sandbox.launch(executable, arguments, in: directory, logName: "lineupd")
                        try await sandbox.poll("lineupd to start", daemon: started) {
                            guard started.isRunning else { throw HarnessError("lineupd exited: \(started.logTail())") }
                            return sandbox.daemonLog.components(separatedBy: Sandbox.startedLine).count > before
                        }
                        daemon = started
                        continue
                    }
                    let result = try await sandbox.run(executable, arguments, in: directory)
                    #expect(result.termination == .exited(0), "\(command): \(result.standardError)")
                    if arguments.first == "enqueue" { enqueued += 1 }
                }
                let running = try #require(daemon)
                let spool = directory.appending(path: "spool")
                try await sandbox.poll("every job to reach done/", timeout: .seconds(60), daemon: running) {
                    running.send(SIGUSR1)
                    let done = try FileManager.default.contentsOfDirectory(atPath: spool.appending(path: "done").path)
                    let failed = try FileManager.default.contentsOfDirectory(atPath: spool.appending(path: "failed").path)
                    if let report = failed.first(where: { $0.hasSuffix(".error.json") }) {
                        let text = try String(contentsOf: spool.appending(path: "failed/\(report)"), encoding: .utf8)
                        throw HarnessError("a README job failed: \(text)")
                    }
                    return done.filter { $0.hasSuffix(".job.json") }.count == enqueued
                }
                let export = directory.appending(path: "output/observations.csv")
                let csv = try String(contentsOf: export, encoding: .utf8)
                #expect(csv.split(whereSeparator: \.isNewline).count == 301, "a header and the 300 observations of the sample")
                running.send(SIGTERM)
                #expect(try await running.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
