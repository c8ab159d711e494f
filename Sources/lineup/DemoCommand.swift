import ArgumentParser
import Foundation
import LineupAllocator
import LineupJobs
import LineupSpool
import Logging
import SurfJournal
import SurfJournalFeeds

/// `lineup demo`: starts the daemon on a temporary spool and store, feeds it the job files in
/// `Jobs/` (inputs from `samples/`), prints what happens and what each job did, then stops it
/// the way SIGTERM does. Its `fetch-buoy` jobs fetch from a server of its own on 127.0.0.1
/// (``DemoFeedServer``), so it needs no network.
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
            // The demo prints the daemon's events itself; the log shows only what goes wrong
            // beyond them.
            handler.logLevel = .error
            return handler
        }
        let jobsDirectory = URL(fileURLWithPath: jobs).standardizedFileURL
        let samplesDirectory = URL(fileURLWithPath: samples).standardizedFileURL
        let jobFiles = try FileManager.default.contentsOfDirectory(atPath: jobsDirectory.path)
            .filter { $0.hasSuffix(".job.json") }.sorted()
        guard !jobFiles.isEmpty, FileManager.default.fileExists(atPath: samplesDirectory.path) else {
            throw CommandFailure("run the demo from the repository's top level: it needs \(jobs)/*.job.json and \(samples)/")
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
        configuration.logLevel = .error
        // A feed on 127.0.0.1, and the one fetcher the daemon's fetch-buoy jobs share: stopped
        // and shut down whatever way the demo ends.
        let feed = try await DemoFeedServer.start(serving: samplesDirectory.appendingPathComponent("ndbc-latest-obs-lnp01.xml"))
        let fetcher = BuoyFeedFetcher(policy: BuoyFeedPolicy(allowedHosts: ["127.0.0.1"]))
        configuration.allowedHosts = ["127.0.0.1"]
        do {
            try await run(configuration: configuration, root: root, output: output, jobsDirectory: jobsDirectory, jobFiles: jobFiles,
                samplesDirectory: samplesDirectory, feed: feed, fetcher: fetcher)
        } catch {
            try? await fetcher.shutdown()
            await feed.stop()
            throw error
        }
        try? await fetcher.shutdown()
        await feed.stop()
    }

    private func run(
        configuration: DaemonConfiguration, root: URL, output: URL, jobsDirectory: URL, jobFiles: [String], samplesDirectory: URL,
        feed: DemoFeedServer, fetcher: BuoyFeedFetcher
    ) async throws {
        var registry = SurfJournalJobs.registry
        registry.register(FlakyFeedTask.kind) { FlakyFeedTask(request: $0) }
        SurfJournalFeeds.register(in: &registry, fetcher: fetcher)
        let daemon = JobDaemon(
            configuration: configuration, registry: registry, model: SurfJournalModel.model, logger: Logger(label: "lineupd"))

        print("Lineup demo in \(root.path)")
        print("  inputs from \(samplesDirectory.path), outputs to \(output.path); malloc: \(ProcessAllocator.current)")
        let spool = try SpoolDirectory(root: configuration.spoolURL)
        for name in jobFiles {
            let url = jobsDirectory.appendingPathComponent(name)
            let job = try JobFile(data: Data(contentsOf: url), path: url.path)
            try spool.enqueue(job)
            print("enqueued \(name) (\(job.kind)\(job.after.isEmpty ? "" : ", after \(job.after.joined(separator: ", "))"))")
        }
        // Two jobs of the demo's own, for what the example files cannot show: a job scheduled
        // for a moment later, and a job whose first attempt fails and is retried.
        let demoJobs = [
            try JobFile(
                kind: "statistics", id: "statistics-after-prune", after: ["prune"], notBefore: Date().addingTimeInterval(3),
                parameters: ["output": "statistics-after-prune.json"]),
            try JobFile(kind: FlakyFeedTask.kind, id: "flaky-feed", maxAttempts: 3, baseDelay: .milliseconds(500)),
            // The feed twice: the second fetch sends the first one's ETag back and gets 304. The
            // first comes after the import of the same sample file, and finds its observation there.
            try JobFile(
                kind: FetchBuoyTask.kind, id: "fetch-feed", after: ["latest-obs"], parameters: ["url": .string(feed.url.absoluteString)]),
            try JobFile(
                kind: FetchBuoyTask.kind, id: "fetch-feed-again", after: ["fetch-feed"],
                parameters: ["url": .string(feed.url.absoluteString)]),
        ]
        for job in demoJobs {
            try spool.enqueue(job)
        }
        print("enqueued statistics-after-prune (statistics, after prune), scheduled 3 s from now")
        print("enqueued flaky-feed (\(FlakyFeedTask.kind)): its first attempt fails, as a feed that is briefly down would")
        print("enqueued fetch-feed (fetch-buoy, after latest-obs) and fetch-feed-again (after fetch-feed): \(feed.url.absoluteString), the demo's own feed server")
        let expected = jobFiles.count + demoJobs.count

        let events = daemon.events()
        let begin = ContinuousClock.now
        /// When an event came, after the start: shows the scheduled job waiting and the backoff.
        func elapsed() -> String {
            "+" + ((ContinuousClock.now - begin) / .seconds(1)).formatted(.number.precision(.fractionLength(1))) + " s"
        }
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
                print("started   \(job) at \(elapsed())")
            case let .jobScheduled(job, notBefore):
                print("scheduled \(job) for \(notBefore.ISO8601Format(.iso8601.time(includingFractionalSeconds: false)))")
            case let .retryScheduled(job, delay, error):
                let seconds = (delay / .seconds(1)).formatted(.number.precision(.fractionLength(2)))
                print("retrying  \(job) in \(seconds) s at \(elapsed()): \(error)")
            case let .jobAcknowledged(job, report):
                finished += 1
                print("done      \(job): \(report.details["summary"]?.stringValue ?? "")")
            case let .jobFailed(job, report):
                finished += 1
                failures += 1
                print("FAILED    \(job): \(report.reason)")
            case let .flushed(summary) where summary.didSomething:
                print("flushed   \(summary.rowsWritten) rows to disk, acknowledged \(summary.acknowledgedCount) job(s)")
            case let .flushFailed(_, error):
                print("flush FAILED: \(error)")
            default:
                break
            }
            if finished == expected {
                daemon.requestShutdown()
            }
        }
        watchdog.cancel()
        try await running.value

        // The scheduled statistics ran last, after the prune: the store as it ended.
        let report = output.appendingPathComponent("statistics-after-prune.txt")
        if let text = try? String(contentsOf: report, encoding: .utf8) {
            print("\nStatistics after the prune (statistics-after-prune.txt):\n\(text)", terminator: "")
        }
        print("\nOutputs:")
        for name in try FileManager.default.contentsOfDirectory(atPath: output.path).sorted() {
            let size = (try? FileManager.default.attributesOfItem(atPath: output.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            print("  \(name) (\(size) bytes)")
        }
        let pictures = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".svg") }.sorted()
        if !pictures.isEmpty {
            print("\nThe statistics as pictures (open them in a browser\(keep ? "" : "; --keep keeps them")):")
            for name in pictures {
                print("  \(output.appendingPathComponent(name).path)")
            }
        }
        let counts = try spool.counts()
        print("\nspool: \(counts.done) done, \(counts.failed) failed, \(counts.queued) queued, \(counts.running) running")
        if keep { print("kept \(root.path)") }
        if failures > 0 || finished < expected {
            throw ExitCode.failure
        }
    }
}
