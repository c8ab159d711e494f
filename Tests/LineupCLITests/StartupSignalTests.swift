import Foundation
import LineupSpool
import Testing
import LineupTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// SIGHUP and SIGUSR1 end a process by default. A supervisor may send them while the daemon
    /// is still opening its store and recovering `active/`: the daemon must live through that.
    @Suite("Signals during start-up")
    struct StartupSignalTests {
        static let launchesPerSignal = 50
        /// Jobs left in `active/` before each launch. With a poison threshold of 1, recovery sets
        /// each aside with a report written and fsynced: a start-up that lasts long enough for a
        /// signal to land inside it.
        static let leftoversPerLaunch = 40
        static let defaultSeed: UInt64 = 20_261_123

        @Test("SIGHUP and SIGUSR1 at random moments of start-up, 50 launches each: the daemon starts and stops cleanly every time")
        func signalsDuringStartUp() async throws {
            let seed = ProcessInfo.processInfo.environment["LINEUP_STARTUP_SIGNAL_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed
            print("start-up signal test: seed \(seed) (LINEUP_STARTUP_SIGNAL_SEED=<n> replays another)")
            var random = SeededRandom(seed: seed)
            try await withSandbox { sandbox in
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"poisonThreshold": 1, "flushInterval": 3600}"#.utf8).write(to: configuration)
                let spool = try SpoolDirectory(root: sandbox.spool)
                var handled = 0
                var startUpMilliseconds: [Int] = []
                for (signal, name) in [(SIGHUP, "SIGHUP"), (SIGUSR1, "SIGUSR1")] {
                    for launch in 0..<Self.launchesPerSignal {
                        for number in 0..<Self.leftoversPerLaunch {
                            try Data(#"{"kind": "statistics"}"#.utf8)
                                .write(to: spool.directory(.running).appending(path: "left-\(launch)-\(number).job.json"))
                        }
                        let logName = "startup-\(name)-\(launch)"
                        let daemon = try sandbox.launch(
                            Binaries.lineupd, sandbox.daemonLocationArguments + ["--config", configuration.path], logName: logName)
                        let began = ContinuousClock.now
                        try await sandbox.poll("lineupd to log that it is starting", daemon: daemon) {
                            daemon.standardError.contains("lineupd starting") || !daemon.isRunning
                        }
                        // Somewhere in the recovery of active/ (or just after it, now and then).
                        try await Task.sleep(for: .microseconds(Int.random(in: 0..<60_000, using: &random)))
                        daemon.send(signal)
                        try await sandbox.poll("lineupd to start after \(name)", daemon: daemon) {
                            guard daemon.isRunning else {
                                throw HarnessError("lineupd died after \(name) during start-up (\(daemon.termination))\n\(daemon.logTail())")
                            }
                            return daemon.standardError.contains(Sandbox.startedLine)
                        }
                        startUpMilliseconds.append(Int((ContinuousClock.now - began) / .milliseconds(1)))
                        daemon.send(SIGTERM)
                        let termination = try await daemon.waitForExit(timeout: .seconds(60))
                        try #require(termination == .exited(0), "\(name), launch \(launch): \(termination)\n\(daemon.logTail())")
                        if daemon.standardError.contains("\(name): ") { handled += 1 }
                        #expect(try sandbox.jobFiles("active") == [])
                    }
                }
                // A signal that came before the daemon trapped it was ignored, not fatal; most
                // land during recovery, after the trap, and are acted on.
                let sorted = startUpMilliseconds.sorted()
                print(
                    "start-up signal test: \(handled) of \(2 * Self.launchesPerSignal) signals acted on; "
                        + "start-up took \(sorted[sorted.count / 2]) ms (median), \(sorted.last ?? 0) ms (max)")
                #expect(handled > 0)
                #expect(try sandbox.jobFiles("failed").count == 2 * Self.launchesPerSignal * Self.leftoversPerLaunch)
            }
        }

        static let launchesPerCase = 20
        static let delaysInMilliseconds = [0, 1, 2, 5, 10]

        /// A supervisor's signal in the very first milliseconds: each of SIGHUP, SIGUSR1, SIGUSR2
        /// and SIGTERM, 0, 1, 2, 5 and 10 ms after lineupd's own code first runs, 20 launches each.
        /// Before that the kernel and the dynamic loader run, and no program can handle a signal;
        /// from there on, lineupd handles all five (`/proc/<pid>/status` shows them caught, which
        /// is when the clock starts). An early SIGTERM stops the daemon cleanly (exit 0), an early
        /// SIGHUP reloads and an early SIGUSR1 flushes once the daemon has started, SIGUSR2 does
        /// nothing; a daemon killed by one fails the test.
        @Test("SIGHUP, SIGUSR1, SIGUSR2 and SIGTERM 0–10 ms after lineupd's code first runs, 20 launches each: handled, never fatal")
        func signalsInTheFirstMilliseconds() async throws {
            try await withSandbox { sandbox in
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"flushInterval": 3600}"#.utf8).write(to: configuration)
                var loaderMicroseconds: [Int] = []
                for (signal, name) in [(SIGHUP, "SIGHUP"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGTERM, "SIGTERM")] {
                    for delay in Self.delaysInMilliseconds {
                        for launch in 0..<Self.launchesPerCase {
                            let label = "\(name) \(delay) ms, launch \(launch)"
                            let daemon = try sandbox.launch(
                                Binaries.lineupd, sandbox.daemonLocationArguments + ["--config", configuration.path],
                                logName: "early-\(name)-\(delay)-\(launch)")
                            let launched = ContinuousClock.now
                            try Self.waitUntilSignalsAreCaught(by: daemon, label)
                            loaderMicroseconds.append(Int((ContinuousClock.now - launched) / .microseconds(1)))
                            if delay > 0 { usleep(useconds_t(delay * 1000)) }
                            daemon.send(signal)
                            if signal == SIGTERM {
                                let termination = try await daemon.waitForExit(timeout: .seconds(60))
                                try #require(termination == .exited(0), "\(label): \(termination)\n\(daemon.logTail())")
                                continue
                            }
                            try await sandbox.poll("lineupd to start after \(label)", daemon: daemon) {
                                guard daemon.isRunning else {
                                    throw HarnessError("lineupd died after \(label) (\(daemon.termination))\n\(daemon.logTail())")
                                }
                                return daemon.standardError.contains(Sandbox.startedLine)
                            }
                            // Handed to the daemon's own handler once it has started.
                            let handled = ["SIGHUP": "SIGHUP: reloading", "SIGUSR1": "SIGUSR1: flushing"][name]
                            if let handled {
                                try await sandbox.poll("lineupd to act on \(label)", daemon: daemon) {
                                    daemon.standardError.contains(handled)
                                }
                            }
                            daemon.send(SIGTERM)
                            let termination = try await daemon.waitForExit(timeout: .seconds(60))
                            try #require(termination == .exited(0), "\(label): \(termination)\n\(daemon.logTail())")
                        }
                    }
                }
                let sorted = loaderMicroseconds.sorted()
                print(
                    "early signal test: \(sorted.count) launches; from the launch to lineupd's handlers "
                        + "\(sorted[sorted.count / 2]) µs (median), \(sorted.last ?? 0) µs (max)")
            }
        }

        /// The bits of SIGHUP, SIGINT, SIGUSR1, SIGUSR2 and SIGTERM in `/proc/<pid>/status`'s masks.
        private static let earlySignalBits: UInt64 = [SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGTERM]
            .reduce(0) { $0 | (1 << UInt64($1 - 1)) }

        /// Spins (the window is milliseconds) until the kernel says that `daemon` catches the five
        /// signals: its first code has run.
        private static func waitUntilSignalsAreCaught(by daemon: ChildProcess, _ label: String) throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                guard daemon.isRunning else {
                    throw HarnessError("lineupd ended before it caught its signals (\(label), \(daemon.termination))\n\(daemon.logTail())")
                }
                let status = (try? String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)) ?? ""
                let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                    .flatMap { UInt64($0.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
                if let caught, caught & earlySignalBits == earlySignalBits { return }
            }
            throw HarnessError("lineupd did not catch SIGHUP, SIGINT, SIGUSR1, SIGUSR2 and SIGTERM within 10 s (\(label))")
        }
    }
}
