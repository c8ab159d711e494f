import ArgumentParser
import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal
import SurfJournalFeeds

/// `lineup run FILE`: runs one job file in the foreground, flushes, and prints what it did.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run one job file in the foreground.")

    @Argument(help: "The job file.")
    var file: String
    @Option(help: "The SQLite store.")
    var store: String = "lineup.sqlite"
    @Option(help: "The directory job inputs are read from.")
    var input: String = "."
    @Option(help: "The directory job outputs are written to.")
    var output: String = "output"
    @Option(help: "A host name a fetch-buoy job may fetch from, exactly (e.g. www.ndbc.noaa.gov); repeat it for several (default: none).")
    var allowedHost: [String] = []

    func run() throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "lineup")
        let url = URL(fileURLWithPath: file)
        let job = try JobFile(data: Data(contentsOf: url), path: url.path)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        // The store's owner, as a daemon would be: refused while a daemon runs on this store.
        let ownership = try OwnershipLock.acquire(store + ".lock", guarding: "store")
        defer { ownership.release() }
        let container = try PersistentContainer(url: URL(fileURLWithPath: store), model: SurfJournalModel.model, logger: logger)
        defer { try? container.close() }
        let request = JobRequest(
            jobID: job.id ?? url.lastPathComponent, name: url.lastPathComponent, file: job, jobFilePath: url.path,
            paths: PathPolicy(inputDirectory: URL(fileURLWithPath: input), outputDirectory: URL(fileURLWithPath: output)),
            container: container, logger: logger)
        // As in the daemon (`flushRowLimit`): a large import reaches the disk while it runs, and
        // the main context's memory stays bounded.
        let flushing = BackgroundFlush(container: container, rowLimit: DaemonConfiguration.defaultFlushRowLimit, logger: logger)
        let fetcher = BuoyFeedFetcher(policy: BuoyFeedPolicy(allowedHosts: allowedHost))
        // Shut down on every way out: a client that is not trips an assertion of its own.
        defer { try? fetcher.shutdownSynchronously() }
        var registry = SurfJournalJobs.registry
        SurfJournalFeeds.register(in: &registry, fetcher: fetcher)
        let task = try registry.makeTask(for: request)
        task.start()
        try flushing.finish()
        switch task.result {
        case let .succeeded(outcome)?:
            try container.flush()
            print(outcome.summary)
        case let result:
            print("failed: \(result?.error.map { "\($0)" } ?? "cancelled")")
            throw ExitCode.failure
        }
    }
}
