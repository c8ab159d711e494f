public import Foundation
public import LineupJobs
import LineupLocking
public import LineupSpool
public import LineupStore
import Logging

/// A real daemon for a test: your model and your job kinds, a store, a spool and input and
/// output directories in a temporary directory, and a ``TestClock`` that only the test moves.
///
/// ```swift
/// @Test func importThenStatistics() async throws {
///     try await withJobTester(model: SurfJournalModel.model, registry: SurfJournalJobs.registry) { tester in
///         let run = try await tester.run(JobFile(kind: "import-buoy", parameters: ["input": "obs.xml"]))
///         #expect(run.outcome?.counts["inserted"] == 24)
///
///         try tester.client.enqueue("statistics", Statistics(output: "stats"), options: JobOptions(notBefore: tester.clock.now + 3600))
///         #expect(try await tester.drain().done.isEmpty)          // not due yet
///         try await tester.advance(by: .seconds(3600))
///         #expect(try await tester.drain().doneKinds == ["statistics"])
///     }
/// }
/// ```
///
/// - ``run(_:attempt:)`` runs one job's task inline, in a child context of the main context as the
///   daemon would, flushes, and returns its outcome and its report.
/// - ``client`` enqueues as your code would (hand it to the code under test); ``enqueued()``
///   lists what is queued, to assert on.
/// - ``drain()`` has the daemon run every job that is due, flush, and repeat until nothing is
///   due; ``advance(by:)`` moves the clock (scheduled jobs, retries, cron, time limits).
///
/// The daemon claims only while the test drains: what the code under test enqueues stays in
/// the spool, to be looked at, until then. Nothing sleeps: waits end on the daemon's events, and
/// time moves only when the test says.
/// Retries wait their full backoff (no jitter), so that a test knows when they are due.
public final class JobTester: Sendable {
    /// The clock of the jobs' schedules.
    public let clock: TestClock
    /// The daemon, running over the temporary directory.
    public let daemon: JobDaemon
    /// The spool that the daemon claims from.
    public let spool: SpoolDirectory
    /// The temporary directory that holds it all; removed when the tester ends.
    public let directory: URL
    /// The configuration's recurring jobs, which the tester enqueues on its clock.
    let cron: [CronJob]
    /// Whether the daemon may claim: only while the test drains.
    let draining: Locked<Bool>
    let activity: ActivitySignal
    let logger: Logger

    init(
        clock: TestClock, daemon: JobDaemon, spool: SpoolDirectory, directory: URL, cron: [CronJob], draining: Locked<Bool>,
        activity: ActivitySignal, logger: Logger
    ) {
        self.cron = cron
        self.draining = draining
        self.clock = clock
        self.daemon = daemon
        self.spool = spool
        self.directory = directory
        self.activity = activity
        self.logger = logger
    }

    /// The daemon's stack.
    public var container: PersistentContainer {
        guard let container = daemon.container else {
            preconditionFailure("the tester's daemon is not running: use the tester inside withJobTester only")
        }
        return container
    }

    /// Where jobs read their input (`JobRequest.resolveInput(_:)`): put the files they need here.
    public var inputDirectory: URL { daemon.configuration.inputDirectory }

    /// Where jobs write their output.
    public var outputDirectory: URL { daemon.configuration.outputDirectory }

    /// A client that enqueues into the tester's spool, for the code under test.
    public var client: JobClient { JobClient(spool: spool) }

    /// The jobs queued in the spool and not claimed yet, due or not, in the order they were
    /// enqueued (a bulk file's lines in their order).
    public func enqueued() throws -> [JobFile] {
        var jobs: [JobFile] = []
        for entry in try spool.entries(.queued).sorted(by: { $0.fileName < $1.fileName }) {
            let contents = try Data(contentsOf: URL(fileURLWithPath: entry.path))
            if entry.fileName.hasSuffix(".jobs.jsonl") {
                for line in SpoolDirectory.jobLines(ofBulk: contents) {
                    jobs.append(try JobFile(data: line.contents, path: "\(entry.path):\(line.number)"))
                }
            } else {
                jobs.append(try JobFile(data: contents, path: entry.path))
            }
        }
        return jobs
    }

    /// Every job done so far, by report name.
    public func doneJobs() throws -> [JobResultReport] {
        try spool.entries(.done).map { try spool.resultReport(for: $0) }.sorted { $0.name < $1.name }
    }

    /// Every job failed so far, by report name.
    public func failedJobs() throws -> [JobFailureReport] {
        try spool.entries(.failed).map { try spool.failureReport(for: $0) }.sorted { $0.name < $1.name }
    }
}
