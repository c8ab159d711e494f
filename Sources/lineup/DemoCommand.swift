import ArgumentParser
import Foundation
import LineupJobs
import LineupSpool
import Logging
import SurfJournal

/// `lineup demo`: starts the daemon on a temporary spool and store, feeds it the job files in
/// `Jobs/` (inputs from `samples/`), prints what happens and what each job did, then stops it
/// the way SIGTERM does.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Run the daemon on a temporary spool with the example jobs and print what happened.")

    @Option(help: "The directory of example job files.")
    var jobs: String = "Jobs"
    @Option(help: "The directory the jobs read their inputs from.")
    var samples: String = "samples"
    @Flag(help: "Keep the temporary directory (store, spool, outputs) and print its path.")
    var keep = false
    @Option(help: "Seconds to wait for the jobs before giving up, more than 0 and at most a year.")
    var timeout: Double = 120

    /// Refuses a timeout that is not a duration (NaN, infinite, negative, zero) or that would
    /// overflow the sleep's nanoseconds, as `lineupd` refuses its intervals.
    func validate() throws {
        _ = try timeoutDuration()
    }

    private func timeoutDuration() throws -> Duration {
        let duration: Duration
        do {
            duration = try DaemonConfiguration.duration(seconds: timeout, of: "--timeout")
        } catch {
            throw ValidationError(error.message)
        }
        guard duration > .zero else {
            throw ValidationError("`--timeout` must be more than 0 s; found \(timeout)")
        }
        return duration
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let jobsDirectory = URL(fileURLWithPath: jobs).standardizedFileURL
        let samplesDirectory = URL(fileURLWithPath: samples).standardizedFileURL
        let jobFiles = try FileManager.default.contentsOfDirectory(atPath: jobsDirectory.path)
            .filter { $0.hasSuffix(".job.json") }.sorted()
        guard !jobFiles.isEmpty, FileManager.default.fileExists(atPath: samplesDirectory.path) else {
            throw ValidationError("run the demo from the repository's top level: it needs \(jobs)/*.job.json and \(samples)/")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lineup-demo-\(UUID().uuidString.prefix(8))")
        let output = root.appendingPathComponent("output")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: root) } }

        var configuration = DaemonConfiguration(
            storeURL: root.appendingPathComponent("store.sqlite"), spoolURL: root.appendingPathComponent("spool"),
            inputDirectory: samplesDirectory, outputDirectory: output)
        configuration.flushInterval = .milliseconds(500)
        configuration.gracePeriod = .seconds(5)
        configuration.rescanInterval = .milliseconds(200)
        configuration.logLevel = .warning
        let daemon = JobDaemon(
            configuration: configuration, registry: SurfJournalJobs.registry, model: SurfJournalModel.model,
            logger: Logger(label: "lineupd"))

        print("Lineup demo in \(root.path)")
        print("  inputs from \(samplesDirectory.path), outputs to \(output.path)")
        let spool = try SpoolDirectory(root: configuration.spoolURL)
        for name in jobFiles {
            let url = jobsDirectory.appendingPathComponent(name)
            let job = try JobFile(data: Data(contentsOf: url), path: url.path)
            try spool.enqueue(job)
            print("enqueued \(name) (\(job.kind)\(job.after.isEmpty ? "" : ", after \(job.after.joined(separator: ", "))"))")
        }

        let events = daemon.events()
        let running = Task { try await daemon.run() }
        let watchdog = Task {
            try await Task.sleep(for: timeoutDuration())
            print("timed out after \(timeout) s; stopping")
            daemon.requestShutdown()
        }
        var finished = 0
        var failures = 0
        for await event in events {
            switch event {
            case let .jobStarted(job):
                print("started   \(job)")
            case let .retryScheduled(job, delay, error):
                print("retrying  \(job) in \(delay): \(error)")
            case let .jobAcknowledged(job, report):
                finished += 1
                print("done      \(job): \(report.details["summary"]?.stringValue ?? "")")
            case let .jobFailed(job, report):
                finished += 1
                failures += 1
                print("FAILED    \(job): \(report.reason)")
            case let .flushed(summary) where summary.rowsWritten > 0 || !summary.acknowledged.isEmpty:
                print("flushed   \(summary.rowsWritten) rows to disk, acknowledged \(summary.acknowledged.count) job(s)")
            case let .flushFailed(_, error):
                print("flush FAILED: \(error)")
            default:
                break
            }
            if finished == jobFiles.count {
                daemon.requestShutdown()
            }
        }
        watchdog.cancel()
        try await running.value

        let report = output.appendingPathComponent("statistics.txt")
        if let text = try? String(contentsOf: report, encoding: .utf8) {
            print("\n\(text)", terminator: "")
        }
        print("\nOutputs:")
        for name in try FileManager.default.contentsOfDirectory(atPath: output.path).sorted() {
            let size = (try? FileManager.default.attributesOfItem(atPath: output.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            print("  \(name) (\(size) bytes)")
        }
        let counts = try spool.counts()
        print("\nspool: \(counts.done) done, \(counts.failed) failed, \(counts.queued) queued, \(counts.running) running")
        if keep { print("kept \(root.path)") }
        if failures > 0 || finished < jobFiles.count {
            throw ExitCode.failure
        }
    }
}
