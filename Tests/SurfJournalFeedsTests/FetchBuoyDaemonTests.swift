import Foundation
import Hummingbird
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import NIOCore
import SurfJournal
import SurfJournalFeeds
import Testing

/// `fetch-buoy` through a running daemon: claimed from the spool, fetched from a server on
/// 127.0.0.1, imported, flushed and acknowledged; a 404 failed at once, a 503 retried, a
/// disallowed host failed without a request.
@Suite("fetch-buoy in the daemon")
struct FetchBuoyDaemonTests {
    @Test("the daemon fetches and imports a feed, then finds it unchanged; it fails a 404 at once, retries a 503, and refuses another host")
    func throughTheDaemon() async throws {
        let rss = try Corpus.data(Corpus.rss42002)
        let server = try await FeedServer.start { router in
            router.get("/42002.rss") { request, _ in
                request.headers[.ifNoneMatch] == "\"v1\""
                    ? Response.status(.notModified)
                    : Response.document(rss, headers: [.eTag: "\"v1\""])
            }
            router.get("/missing.rss") { _, _ in Response.status(.notFound) }
            router.get("/down.rss") { _, _ in Response.status(.serviceUnavailable) }
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-daemon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = DaemonConfiguration(
            storeURL: root.appendingPathComponent("store.sqlite"), spoolURL: root.appendingPathComponent("spool"),
            inputDirectory: root, outputDirectory: root.appendingPathComponent("output"))
        configuration.flushInterval = .milliseconds(200)
        configuration.rescanInterval = .milliseconds(100)
        configuration.allowedHosts = ["127.0.0.1"]
        configuration.logLevel = .warning
        let spool = try SpoolDirectory(root: configuration.spoolURL)
        func job(_ id: String, _ url: URL, after: [String] = [], maxAttempts: Int? = nil) throws -> JobFile {
            try JobFile(kind: FetchBuoyTask.kind, id: id, after: after, maxAttempts: maxAttempts, baseDelay: .milliseconds(100), parameters: ["url": .string(url.absoluteString)])
        }
        let feed = server.url("/42002.rss")
        for file in [
            try job("feed", feed), try job("feed-again", feed, after: ["feed"]), try job("missing", server.url("/missing.rss"), maxAttempts: 3),
            try job("down", server.url("/down.rss"), maxAttempts: 2),
            try job("elsewhere", server.url("/42002.rss", host: "localhost"), maxAttempts: 3),
        ] {
            _ = try spool.enqueue(file)
        }

        // From here nothing throws before the fetcher is shut down (its client traps otherwise).
        let fetcher = BuoyFeedFetcher(policy: BuoyFeedPolicy(allowedHosts: configuration.allowedHosts))
        var registry = SurfJournalJobs.registry
        SurfJournalFeeds.register(in: &registry, fetcher: fetcher)
        var logger = Logger(label: "lineupd")
        logger.logLevel = .warning
        let daemon = JobDaemon(configuration: configuration, registry: registry, model: SurfJournalModel.model, logger: logger)
        let events = daemon.events()
        let running = Task { try await daemon.run() }
        var done: [String: JobResultReport] = [:]
        var failed: [String: JobFailureReport] = [:]
        var retried: [String] = []
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            daemon.requestShutdown()
        }
        for await event in events {
            switch event {
            case let .jobAcknowledged(job, report): done[job.id ?? job.name] = report
            case let .jobFailed(job, report): failed[job.id ?? job.name] = report
            case let .retryScheduled(job, _, _): retried.append(job.id ?? job.name)
            default: break
            }
            if done.count + failed.count == 5 { daemon.requestShutdown() }
        }
        watchdog.cancel()
        let stopped = await running.result
        try await fetcher.shutdown()
        await server.stop()
        try stopped.get()

        let first = try #require(done["feed"])
        guard case let .object(counts)? = first.details["counts"] else {
            Issue.record("no counts in \(first.details)")
            return
        }
        #expect(counts["observationsInserted"] == .integer(1))
        let again = try #require(done["feed-again"])
        #expect(again.details["unchanged"] == .bool(true))
        #expect(again.details["summary"]?.stringValue?.contains("304 Not Modified") == true)

        let missing = try #require(failed["missing"])
        #expect(missing.attempts == 1)
        #expect(!missing.retryable)
        #expect(missing.reason.contains("\(server.url("/missing.rss").absoluteString): HTTP 404"), "\(missing.reason)")
        let down = try #require(failed["down"])
        #expect(down.attempts == 2)
        #expect(down.reason.contains("HTTP 503"), "\(down.reason)")
        #expect(retried.filter { $0 == "down" }.count == 1)
        let elsewhere = try #require(failed["elsewhere"])
        #expect(elsewhere.attempts == 1)
        #expect(elsewhere.reason.contains(server.url("/42002.rss", host: "localhost").absoluteString), "\(elsewhere.reason)")
        #expect(server.requests(for: "/42002.rss").count == 2)
        #expect(server.requests(for: "/missing.rss").count == 1)

        let container = try PersistentContainer(url: configuration.storeURL, model: SurfJournalModel.model, logger: logger)
        defer { try? container.close() }
        #expect(try container.rowCount(of: "BuoyObservation") == 1)
        #expect(try container.rowCount(of: "FeedValidators") == 1)
    }
}
