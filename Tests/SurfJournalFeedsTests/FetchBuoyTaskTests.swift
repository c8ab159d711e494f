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

/// `fetch-buoy` as a job: real NDBC documents from a server on 127.0.0.1, imported as
/// `import-buoy` imports them, with the feed's validators kept beside the import.
@Suite("fetch-buoy")
struct FetchBuoyTaskTests {
    /// Serves `body` with ETag `"v1"` at `/feed`, answering 304 to a request that sends it back.
    static func conditionalFeed(_ body: Data, contentType: String = "application/rss+xml") -> (Router<BasicRequestContext>) -> Void {
        { router in
            router.get("/feed") { request, _ in
                request.headers[.ifNoneMatch] == "\"v1\""
                    ? Response.status(.notModified, headers: [.eTag: "\"v1\""])
                    : Response.document(body, contentType: contentType, headers: [.eTag: "\"v1\"", .lastModified: "Sun, 27 Feb 2022 11:40:00 GMT"])
            }
        }
    }

    @Test("a real latest_obs feed is imported; fetched again, it answers 304 to its ETag and nothing is imported")
    func importsThenUnchanged() async throws {
        try await FeedJobFixture.with(routes: Self.conditionalFeed(try Corpus.data(Corpus.rss42002))) { fixture, server in
            let url = server.url("/feed")
            let first = try await fixture.runSucceeding(url)
            #expect(first.counts["observationsInserted"] == 1)
            #expect(first.counts["stationsInserted"] == 1)
            #expect(first.summary.hasPrefix("\(url.absoluteString) (ndbc-latest-obs-rss)"), "\(first.summary)")
            #expect(first.details["url"] == .string(url.absoluteString))
            #expect(try fixture.container.rowCount(of: "BuoyObservation") == 1)
            #expect(try fixture.validators(of: url) == [BuoyFeedValidators(etag: "\"v1\"", lastModified: "Sun, 27 Feb 2022 11:40:00 GMT")])

            let second = try await fixture.runSucceeding(url)
            #expect(second.summary == "\(url.absoluteString): unchanged since the last fetch (304 Not Modified); nothing imported")
            #expect(second.details["unchanged"] == .bool(true))
            #expect(second.counts.isEmpty)
            #expect(try fixture.container.rowCount(of: "BuoyObservation") == 1)
            let requests = server.requests(for: "/feed")
            #expect(requests.count == 2)
            #expect(requests.first?.headers[.ifNoneMatch] == nil)
            #expect(requests.last?.headers[.ifNoneMatch] == "\"v1\"")
            #expect(requests.last?.headers[.ifModifiedSince] == "Sun, 27 Feb 2022 11:40:00 GMT")
        }
    }

    @Test("an SOS answer is imported row by row")
    func importsSOS() async throws {
        let sos = try Corpus.data(Corpus.sosWinds41012)
        try await FeedJobFixture.with(routes: Self.conditionalFeed(sos, contentType: "text/xml;subtype=\"om/1.0.0\"")) { fixture, server in
            let outcome = try await fixture.runSucceeding(server.url("/feed"))
            #expect(outcome.counts["observationsInserted"] == 24)
            #expect(try fixture.container.rowCount(of: "BuoyObservation") == 24)
        }
    }

    @Test("a document that fails to import records no validators: the next fetch downloads it again")
    func failedImportKeepsNoValidators() async throws {
        // Served as XML, with an ETag, but not a buoy document: the import refuses it.
        let page = Data("<html><body>maintenance</body></html>".utf8)
        try await FeedJobFixture.with(routes: Self.conditionalFeed(page, contentType: "text/xml")) { fixture, server in
            let url = server.url("/feed")
            for _ in 0..<2 {
                let error = try await fixture.runFailing(url)
                #expect(!error.isRetryable)
                #expect(error.message.hasPrefix(url.absoluteString), "\(error)")
            }
            #expect(try fixture.validators(of: url).isEmpty)
            #expect(server.requests(for: "/feed").count == 2)
            #expect(server.requests(for: "/feed").allSatisfy { $0.headers[.ifNoneMatch] == nil })
            #expect(try fixture.container.rowCount(of: "BuoyObservation") == 0)
        }
    }

    @Test("a job naming a host that is not allowed fails at once, not retryable, naming the URL")
    func disallowedHost() async throws {
        try await FeedJobFixture.with(allowedHosts: ["www.ndbc.noaa.gov"]) { fixture, _ in
            let url = URL(string: "https://example.com/data/latest_obs/42002.rss")!
            let error = try #require(throws: JobError.self) { try fixture.registry.makeTask(for: fixture.request(url)) }
            #expect(error.code == .invalidParameters)
            #expect(!error.isRetryable)
            #expect(error.message.contains(url.absoluteString))
            #expect(error.message.contains("allowed hosts: www.ndbc.noaa.gov"))
        }
    }

    @Test("a URL that is not http or https is refused")
    func notHTTP() async throws {
        try await FeedJobFixture.with { fixture, _ in
            for text in ["file:///etc/passwd", "ftp://127.0.0.1/feed", "not a url"] {
                let file = try JobFile(kind: FetchBuoyTask.kind, id: "fetch", parameters: ["url": .string(text)])
                let request = JobRequest(
                    jobID: "fetch", name: "fetch", file: file, jobFilePath: "fetch.job.json",
                    paths: PathPolicy(inputDirectory: fixture.root, outputDirectory: fixture.root), container: fixture.container,
                    logger: .init(label: "test"))
                let error = try #require(throws: JobError.self) { try fixture.registry.makeTask(for: request) }
                #expect(error.code == .invalidParameters, "\(text)")
                #expect(!error.isRetryable)
            }
        }
    }

    @Test("404 fails the attempt for good, 503 for a retry; both name the URL and the status, and store nothing")
    func errorStatuses() async throws {
        try await FeedJobFixture.with(routes: { router in
            router.get("/missing") { _, _ in Response.status(.notFound) }
            router.get("/down") { _, _ in Response.status(.serviceUnavailable) }
        }) { fixture, server in
            let missing = try await fixture.runFailing(server.url("/missing"))
            #expect(!missing.isRetryable)
            #expect(missing.message.hasPrefix("\(server.url("/missing").absoluteString): HTTP 404"), "\(missing)")
            let down = try await fixture.runFailing(server.url("/down"))
            #expect(down.isRetryable)
            #expect(down.message.hasPrefix("\(server.url("/down").absoluteString): HTTP 503"), "\(down)")
            #expect(try fixture.container.rowCount(of: "BuoyStation") == 0)
        }
    }

    @Test("an HTML page fails the attempt, naming the URL, not retried")
    func htmlAnswer() async throws {
        try await FeedJobFixture.with(routes: { router in
            router.get("/feed") { _, _ in Response.document(Data("<!DOCTYPE html><html></html>".utf8), contentType: "text/html") }
        }) { fixture, server in
            let error = try await fixture.runFailing(server.url("/feed"))
            #expect(!error.isRetryable)
            #expect(error.message == "\(server.url("/feed").absoluteString): HTTP 200: the answer is text/html, not XML")
        }
    }

    @Test("a feed that does not answer in time fails the attempt for a retry")
    func timeout() async throws {
        try await FeedJobFixture.with(timeout: .seconds(2), routes: { router in
            router.get("/feed") { _, _ in
                try await Task.sleep(for: .seconds(60))
                return Response.document(Data("<rss/>".utf8))
            }
        }) { fixture, server in
            let start = ContinuousClock.now
            let error = try await fixture.runFailing(server.url("/feed"))
            #expect(error.isRetryable)
            #expect(error.message.contains("no complete answer within 2 s"), "\(error)")
            // Short of the server's minute, with room for a loaded machine (ThreadSanitizer beside
            // the other suites took 42 s).
            #expect(ContinuousClock.now - start < .seconds(55))
        }
    }
}
