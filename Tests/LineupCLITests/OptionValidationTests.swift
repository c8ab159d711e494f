import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// Every option and key is checked before it is used: a bad value is a clear message and exit
    /// status 64 (EX_USAGE), never a trap; a bad file at SIGHUP leaves the running daemon as it was.
    @Suite("Options")
    struct OptionValidationTests {
        @Test(
            "a bad option value exits 64 with a message naming it",
            arguments: [
                (["--flush-interval", "inf"], "`--flush-interval` must be a number of seconds"),
                (["--flush-interval", "nan"], "`--flush-interval` must be a number of seconds"),
                (["--flush-interval=-1"], "`--flush-interval` must be a number of seconds"),
                (["--flush-interval", "1e300"], "`--flush-interval` must be a number of seconds"),
                (["--flush-interval", "0"], "`flushInterval` must be more than 0 s"),
                (["--grace-period=-inf"], "`--grace-period` must be a number of seconds"),
                (["--grace-period", "99999999999"], "`--grace-period` must be a number of seconds"),
                (["--concurrency", "0"], "`concurrency` must be from 1 to 1024; found 0"),
                (["--concurrency=-2"], "`concurrency` must be from 1 to 1024; found -2"),
                (["--concurrency", "1000000"], "`concurrency` must be from 1 to 1024"),
                (["--concurrency", "two"], "--concurrency"),
                (["--database-connections", "8"], "`databaseConnections` needs `database`"),
                (["--database-connections", "eight"], "--database-connections"),
                (["--database", "postgres://db.example/lineup", "--concurrency", "2", "--database-connections", "7"],
                 "`databaseConnections` must be from 8 to 10000; found 7"),
                (["--log-level", "loud"], "unknown log level loud"),
                (["--timeout", "0"], "`timeout` must be more than 0 s"),
                (["--timeout", "soon"], "`--timeout` must be a duration such as 90s"),
                (["--http-address", "localhost"], "`--http-address` must be HOST:PORT"),
                (["--http-address", ":9464"], "`--http-address` must name a host"),
                (["--http-address", "127.0.0.1:70000"], "`--http-address` must be HOST:PORT"),
                (["--allowed-host", "https://www.ndbc.noaa.gov/"], "`allowedHosts` must list host names"),
                (["--no-such-option"], "--no-such-option"),
            ])
        func badOption(arguments: [String], message: String) async throws {
            try await withSandbox { sandbox in
                let result = try await sandbox.run(Binaries.lineupd, sandbox.daemonLocationArguments + arguments)
                #expect(result.termination == .exited(64), "\(arguments): \(result.standardError)")
                #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
                #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "\(arguments) opened the store")
            }
        }

        @Test(
            "a bad configuration file exits 78 (EX_CONFIG) naming the file and the key",
            arguments: [
                (#"{"flushInterval": 1e400}"#, "not a valid configuration file"),
                (#"{"flushInterval": 1e300}"#, "`flushInterval` must be a number of seconds"),
                (#"{"flushIntervl": 5}"#, "unknown key `flushIntervl`"),
                (#"{"concurrency": "2"}"#, "`concurrency` must be a whole number; found a string"),
                (#"{"poisonThreshold": 0}"#, "`poisonThreshold` must be from 1 to 1000"),
                (#"{"statusInterval": 0}"#, "`statusInterval` must be more than 0 s"),
            ])
        func badFile(text: String, message: String) async throws {
            try await withSandbox { sandbox in
                let file = sandbox.root.appending(path: "lineupd.json")
                try Data(text.utf8).write(to: file)
                let result = try await sandbox.run(
                    Binaries.lineupd, sandbox.daemonLocationArguments + ["--config", file.path])
                #expect(result.termination == .exited(78), "\(text): \(result.standardError)")
                #expect(result.standardError.contains(file.path), "\(text): \(result.standardError)")
                #expect(result.standardError.contains(message), "\(text): \(result.standardError)")
            }
        }

        @Test(
            "lineup demo refuses a timeout that is not a duration, before it starts anything",
            arguments: [
                (["--timeout", "inf"], "inf"), (["--timeout", "nan"], "nan"), (["--timeout", "0"], "0.0"),
                (["--timeout=-1"], "-1.0"), (["--timeout", "1e300"], "1e+300"),
            ])
        func demoTimeout(arguments: [String], shown: String) async throws {
            try await withSandbox { sandbox in
                // From the package's top level, where the demo finds Jobs/ and samples/ and would run.
                let package = BuoyFixtures.samplesDirectory.deletingLastPathComponent()
                let result = try await sandbox.run(Binaries.lineup, ["demo"] + arguments, in: package)
                #expect(result.termination == .exited(64), "\(result.standardError)")
                #expect(result.standardError.hasPrefix("Error: `--timeout` must be "), "\(result.standardError)")
                #expect(result.standardError.contains("found \(shown)"), "\(result.standardError)")
                #expect(result.standardOutput == "", "the demo started: \(result.standardOutput)")
            }
        }

        @Test("SIGHUP with a bad configuration file keeps the daemon running with its settings")
        func badFileAtReload() async throws {
            try await withSandbox { sandbox in
                let file = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"flushInterval": 0.2}"#.utf8).write(to: file)
                let daemon = try await sandbox.startDaemon(["--config", file.path])
                for text in [#"{"flushInterval": -1}"#, #"{"concurrency": 0}"#, #"{"gracePeriod": "long"}"#, "{"] {
                    let failures = sandbox.daemonLog.components(separatedBy: "reload failed").count
                    try Data(text.utf8).write(to: file)
                    daemon.send(SIGHUP)
                    try await sandbox.poll("the reload of \(text) to fail", daemon: daemon) {
                        sandbox.daemonLog.components(separatedBy: "reload failed").count > failures
                    }
                    #expect(daemon.isRunning)
                }
                // Still flushing every 0.2 s as configured, and still running jobs.
                try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                try await sandbox.enqueueImport(id: "after-bad-reloads", input: "ndbc-sos-waves-sample.xml")
                try await sandbox.poll("the import to reach done/", daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
