import Foundation
import Hummingbird
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal
import SurfJournalFeeds
import Testing

/// A store, a fetcher whose policy allows 127.0.0.1, and a way to run one `fetch-buoy` job the
/// way the daemon does (its own task context, saved into main), then flush.
final class FeedJobFixture {
    let root: URL
    let container: PersistentContainer
    let fetcher: BuoyFeedFetcher
    let registry: JobRegistry

    /// Runs `body` with a fixture and a server of `routes`, and closes both however `body` ends:
    /// a fetcher's client that is not shut down traps when it goes (in a debug build).
    static func with(
        allowedHosts: [String] = ["127.0.0.1"], timeout: Duration = .seconds(60), routes: (Router<BasicRequestContext>) -> Void = { _ in },
        _ body: (FeedJobFixture, FeedServer) async throws -> Void
    ) async throws {
        let server = try await FeedServer.start(routes)
        let fixture: FeedJobFixture
        do {
            fixture = try FeedJobFixture(allowedHosts: allowedHosts, timeout: timeout)
        } catch {
            await server.stop()
            throw error
        }
        do {
            try await body(fixture, server)
        } catch {
            await fixture.close()
            await server.stop()
            throw error
        }
        await fixture.close()
        await server.stop()
    }

    private init(allowedHosts: [String], timeout: Duration) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        container = try PersistentContainer(url: root.appendingPathComponent("store.sqlite"), model: SurfJournalModel.model, logger: logger)
        fetcher = BuoyFeedFetcher(policy: BuoyFeedPolicy(allowedHosts: allowedHosts, timeout: timeout))
        var registry = JobRegistry()
        SurfJournalFeeds.register(in: &registry, fetcher: fetcher)
        self.registry = registry
    }

    private func close() async {
        try? await fetcher.shutdown()
        try? container.close()
        try? FileManager.default.removeItem(at: root)
    }

    func request(_ url: URL, id: String = "fetch") throws -> JobRequest {
        let file = try JobFile(kind: FetchBuoyTask.kind, id: id, parameters: ["url": .string(url.absoluteString)])
        return JobRequest(
            jobID: id, name: id, file: file, jobFilePath: "\(id).job.json",
            paths: PathPolicy(inputDirectory: root, outputDirectory: root), container: container, logger: Logger(label: "test"))
    }

    /// Makes and runs the task of a fetch-buoy job for `url`, on a thread of its own (an async
    /// task blocks the thread that starts it until its work is done, and a test's thread is one
    /// of the cooperative pool's); throws what the factory throws.
    func run(_ url: URL) async throws -> JobTaskResult {
        let task = try registry.makeTask(for: request(url))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                task.start()
                continuation.resume()
            }
        }
        return try #require(task.result)
    }

    /// Runs a job that must succeed, then flushes; returns its outcome.
    func runSucceeding(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JobOutcome {
        let result = try await run(url)
        let outcome = try #require(result.outcome, "job failed: \(String(describing: result.error))", sourceLocation: sourceLocation)
        try container.flush()
        return outcome
    }

    /// Runs a job that must fail with a `JobError`; returns it, after a flush.
    func runFailing(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JobError {
        let result = try await run(url)
        #expect(result.outcome == nil, sourceLocation: sourceLocation)
        try container.flush()
        return try #require(result.error as? JobError, "not a JobError: \(String(describing: result.error))", sourceLocation: sourceLocation)
    }

    /// The stored validators of `url`.
    func validators(of url: URL) throws -> [BuoyFeedValidators] {
        let context = container.newTaskContext(name: "check")
        let key = url.absoluteString
        return try context.performAndWait {
            try context.fetch(FetchRequest<FeedValidators>(predicate: \.url == Optional(key))).map {
                BuoyFeedValidators(etag: $0.etag, lastModified: $0.lastModified)
            }
        }
    }
}
