import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
@testable import SurfJournalFeeds
import Testing

/// The HTTP part of `fetch-buoy`, against a server on 127.0.0.1: what it downloads, what it
/// refuses before or while downloading, and how each failure is classified.
/// A fetch that should have failed, and did not.
struct UnexpectedSuccess: Error, CustomStringConvertible {
    let description: String
}

@Suite("Buoy feed fetcher")
struct BuoyFeedFetcherTests {
    static let logger = Logger(label: "test")

    /// Runs `body` with a server of `routes`, a fetcher whose policy allows 127.0.0.1 (and takes
    /// `adjust`), and a file to download into; stops and removes them after.
    static func withFetcher<T>(
        policy adjust: (inout BuoyFeedPolicy) -> Void = { _ in }, routes: (Router<BasicRequestContext>) -> Void,
        _ body: (FeedServer, BuoyFeedFetcher, URL) async throws -> T
    ) async throws -> T {
        let server = try await FeedServer.start(routes)
        var policy = BuoyFeedPolicy(allowedHosts: ["127.0.0.1"])
        adjust(&policy)
        let fetcher = BuoyFeedFetcher(policy: policy)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fetcher-test-\(UUID().uuidString).xml")
        do {
            let result = try await body(server, fetcher, file)
            try? FileManager.default.removeItem(at: file)
            try await fetcher.shutdown()
            await server.stop()
            return result
        } catch {
            try? FileManager.default.removeItem(at: file)
            try? await fetcher.shutdown()
            await server.stop()
            throw error
        }
    }

    /// The fetch's error, which must be a `BuoyFeedError`.
    static func fetchError(
        _ fetcher: BuoyFeedFetcher, _ url: URL, into file: URL, validators: BuoyFeedValidators? = nil
    ) async throws -> BuoyFeedError {
        do {
            let response = try await fetcher.fetch(url, validators: validators, into: file, logger: logger)
            throw UnexpectedSuccess(description: "the fetch of \(url) succeeded: \(response)")
        } catch let error as BuoyFeedError {
            return error
        }
    }

    @Test("a 200 is written to the file, with its ETag and Last-Modified")
    func downloads() async throws {
        let rss = try Corpus.data(Corpus.rss42002)
        try await Self.withFetcher(routes: { router in
            router.get("/42002.rss") { _, _ in
                Response.document(rss, headers: [.eTag: "\"v1\"", .lastModified: "Sun, 27 Feb 2022 11:40:00 GMT"])
            }
        }) { server, fetcher, file in
            let response = try await fetcher.fetch(server.url("/42002.rss"), validators: nil, into: file, logger: Self.logger)
            guard case let .downloaded(download) = response else {
                Issue.record("expected a download, got \(response)")
                return
            }
            #expect(try Data(contentsOf: file) == rss)
            #expect(download.byteCount == rss.count)
            #expect(download.validators == BuoyFeedValidators(etag: "\"v1\"", lastModified: "Sun, 27 Feb 2022 11:40:00 GMT"))
            #expect(download.redirects == 0)
            let request = try #require(server.requests(for: "/42002.rss").first)
            #expect(request.headers[.ifNoneMatch] == nil)
            #expect(request.headers[.ifModifiedSince] == nil)
        }
    }

    @Test("the validators are sent back, and a 304 downloads nothing")
    func notModified() async throws {
        try await Self.withFetcher(routes: { router in
            router.get("/42002.rss") { request, _ in
                request.headers[.ifNoneMatch] == "\"v1\"" ? Response.status(.notModified) : Response.status(.internalServerError)
            }
        }) { server, fetcher, file in
            let validators = BuoyFeedValidators(etag: "\"v1\"", lastModified: "Sun, 27 Feb 2022 11:40:00 GMT")
            let url = server.url("/42002.rss")
            let response = try await fetcher.fetch(url, validators: validators, into: file, logger: Self.logger)
            #expect(response == .notModified(finalURL: url))
            #expect(!FileManager.default.fileExists(atPath: file.path))
            let request = try #require(server.requests(for: "/42002.rss").first)
            #expect(request.headers[.ifModifiedSince] == "Sun, 27 Feb 2022 11:40:00 GMT")
        }
    }

    @Test("a host the policy does not allow is refused before anything is sent")
    func disallowedHost() async throws {
        try await Self.withFetcher(routes: { router in
            router.get("/42002.rss") { _, _ in Response.document(Data("<rss/>".utf8)) }
        }) { server, fetcher, file in
            // The same server by another name: only the name decides.
            let url = server.url("/42002.rss", host: "localhost")
            let error = try await Self.fetchError(fetcher, url, into: file)
            #expect(error.code == .hostNotAllowed)
            #expect(!error.isRetryable)
            #expect(error.description.contains(url.absoluteString))
            #expect(error.description.contains("allowed hosts: 127.0.0.1"))
            #expect(server.requests.isEmpty)
        }
    }

    @Test("a redirect is followed to an allowed host, and one to another host is refused before it is followed")
    func redirects() async throws {
        try await Self.withFetcher(routes: { router in
            router.get("/moved") { _, _ in Response.moved(to: "/42002.rss", status: .movedPermanently) }
            router.get("/elsewhere") { request, _ in
                let port = request.head.authority?.split(separator: ":").last ?? ""
                return Response.moved(to: "http://localhost:\(port)/42002.rss")
            }
            router.get("/42002.rss") { _, _ in Response.document(Data("<rss/>".utf8)) }
        }) { server, fetcher, file in
            let followed = try await fetcher.fetch(server.url("/moved"), validators: nil, into: file, logger: Self.logger)
            guard case let .downloaded(download) = followed else {
                Issue.record("expected a download, got \(followed)")
                return
            }
            #expect(download.finalURL == server.url("/42002.rss"))
            #expect(download.redirects == 1)

            let before = server.requests(for: "/42002.rss").count
            let error = try await Self.fetchError(fetcher, server.url("/elsewhere"), into: file)
            #expect(error.code == .hostNotAllowed)
            #expect(!error.isRetryable)
            #expect(error.description.contains("localhost:\(server.port)/42002.rss"))
            #expect(error.description.contains(server.url("/elsewhere").absoluteString))
            #expect(server.requests(for: "/42002.rss").count == before)
        }
    }

    @Test("more redirects than the policy allows fail the fetch")
    func tooManyRedirects() async throws {
        // A deadline far past the six hops, however loaded the machine (under ThreadSanitizer,
        // beside the other suites, they once took over a minute): only the redirects can end it.
        try await Self.withFetcher(policy: { $0.maxRedirects = 5; $0.timeout = .seconds(600) }, routes: { router in
            router.get("/hop/{n}") { _, context in
                let n = try context.parameters.require("n", as: Int.self)
                return Response.moved(to: "/hop/\(n + 1)", status: .temporaryRedirect)
            }
        }) { server, fetcher, file in
            let error = try await Self.fetchError(fetcher, server.url("/hop/0"), into: file)
            #expect(error.code == .redirectRefused)
            #expect(!error.isRetryable)
            #expect(error.description.contains("more than 5 redirects"))
            // The first request and five redirects followed; the sixth is not.
            #expect(server.requests.count == 6)
        }
    }

    @Test("a redirect from https down to http is refused")
    func downgrade() throws {
        let policy = BuoyFeedPolicy(allowedHosts: ["www.ndbc.noaa.gov"])
        let response = HTTPClientResponse(status: .found, headers: ["Location": "http://www.ndbc.noaa.gov/data/latest_obs/42002.rss"])
        let from = URL(string: "https://www.ndbc.noaa.gov/data/latest_obs/42002.rss")!
        let error = try #require(throws: BuoyFeedError.self) {
            try BuoyFeedFetcher.redirectTarget(of: response, from: from, redirects: 1, policy: policy)
        }
        #expect(error.code == .redirectRefused)
        #expect(error.description.contains("https down to http"))
        // The same redirect over https is followed.
        let secure = HTTPClientResponse(status: .found, headers: ["Location": "https://www.ndbc.noaa.gov/data/latest_obs/42002.rss"])
        #expect(try BuoyFeedFetcher.redirectTarget(of: secure, from: from, redirects: 1, policy: policy).scheme == "https")
    }

    @Test("a body over the limit is refused: from its Content-Length, or once the bytes read pass it")
    func tooLarge() async throws {
        let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 16 * 1024)
        try await Self.withFetcher(policy: { $0.maxBodyBytes = 100_000 }, routes: { router in
            router.get("/declared") { _, _ in
                Response.document(Data("<rss>".utf8) + Data(repeating: UInt8(ascii: " "), count: 200_000), contentType: "text/xml")
            }
            router.get("/streamed") { _, _ in
                // No Content-Length: chunked, 64 MB if it were all read.
                Response(
                    status: .ok, headers: [.contentType: "text/xml"],
                    body: ResponseBody { writer in
                        // The fetcher hangs up at its limit: finish the writer all the same (NIO
                        // traps on a writer dropped unfinished, in a debug build).
                        do {
                            try await writer.write(ByteBuffer(string: "<rss>"))
                            for _ in 0..<4_096 { try await writer.write(chunk) }
                        } catch {
                            try? await writer.finish(nil)
                            throw error
                        }
                        try await writer.finish(nil)
                    })
            }
        }) { server, fetcher, file in
            let declared = try await Self.fetchError(fetcher, server.url("/declared"), into: file)
            #expect(declared.code == .tooLarge)
            #expect(!declared.isRetryable)
            #expect(declared.description.contains("200005 bytes"))
            #expect(!FileManager.default.fileExists(atPath: file.path))

            let streamed = try await Self.fetchError(fetcher, server.url("/streamed"), into: file)
            #expect(streamed.code == .tooLarge)
            #expect(streamed.description.contains(server.url("/streamed").absoluteString))
            let written = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? -1
            #expect(written <= 100_000)
        }
    }

    @Test("an error status fails with the status and the URL: retryable for 5xx and 429, not for another 4xx")
    func errorStatuses() async throws {
        try await Self.withFetcher(routes: { router in
            router.get("/missing") { _, _ in Response.status(.notFound) }
            router.get("/forbidden") { _, _ in Response.status(.forbidden) }
            router.get("/down") { _, _ in Response.status(.serviceUnavailable) }
            router.get("/slow-down") { _, _ in Response.status(.tooManyRequests) }
        }) { server, fetcher, file in
            for (path, status, retryable) in [("/missing", 404, false), ("/forbidden", 403, false), ("/down", 503, true), ("/slow-down", 429, true)] {
                let error = try await Self.fetchError(fetcher, server.url(path), into: file)
                #expect(error.code == .httpStatus, "\(path)")
                #expect(error.status == status, "\(path)")
                #expect(error.isRetryable == retryable, "\(path)")
                #expect(error.description.hasPrefix("\(server.url(path).absoluteString): HTTP \(status)"), "\(error)")
            }
        }
    }

    @Test("an answer that is not XML fails, naming the URL and what it was")
    func notXML() async throws {
        try await Self.withFetcher(routes: { router in
            router.get("/page") { _, _ in
                Response.document(Data("<!DOCTYPE html><html><body>Station not found</body></html>".utf8), contentType: "text/html; charset=UTF-8")
            }
            router.get("/json") { _, _ in Response.document(Data("{\"station\": 1}".utf8), contentType: "text/plain") }
        }) { server, fetcher, file in
            let html = try await Self.fetchError(fetcher, server.url("/page"), into: file)
            #expect(html.code == .notXML)
            #expect(!html.isRetryable)
            #expect(html.description == "\(server.url("/page").absoluteString): HTTP 200: the answer is text/html; charset=UTF-8, not XML")
            // A type that says nothing of the content: its first bytes decide.
            let json = try await Self.fetchError(fetcher, server.url("/json"), into: file)
            #expect(json.code == .notXML)
            #expect(json.description.contains(server.url("/json").absoluteString))
        }
    }

    @Test("Content-Types that may hold XML")
    func contentTypes() {
        for type in ["text/xml", "application/xml; charset=utf-8", "application/rss+xml", "text/xml;subtype=\"om/1.0.0\"", "text/plain", "application/octet-stream"] {
            #expect(BuoyFeedFetcher.mayBeXML(type), "\(type)")
        }
        for type in ["text/html", "application/json", "image/png", "text/html; charset=utf-8"] {
            #expect(!BuoyFeedFetcher.mayBeXML(type), "\(type)")
        }
    }

    @Test("a server that does not answer in time, or whose body trickles past the deadline, times out (retryable)")
    func timeout() async throws {
        try await Self.withFetcher(policy: { $0.timeout = .milliseconds(500) }, routes: { router in
            router.get("/silent") { _, _ in
                try await Task.sleep(for: .seconds(60))
                return Response.document(Data("<rss/>".utf8))
            }
            router.get("/trickle") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/xml"],
                    body: ResponseBody { writer in
                        // The fetcher hangs up at its deadline: finish the writer all the same (NIO
                        // traps on a writer dropped unfinished, in a debug build).
                        do {
                            try await writer.write(ByteBuffer(string: "<rss>"))
                            for _ in 0..<600 {
                                try await Task.sleep(for: .milliseconds(100))
                                try await writer.write(ByteBuffer(string: " "))
                            }
                            try await writer.write(ByteBuffer(string: "</rss>"))
                        } catch {
                            try? await writer.finish(nil)
                            throw error
                        }
                        try await writer.finish(nil)
                    })
            }
        }) { server, fetcher, file in
            for path in ["/silent", "/trickle"] {
                let start = ContinuousClock.now
                let error = try await Self.fetchError(fetcher, server.url(path), into: file)
                #expect(error.code == .timedOut, "\(path): \(error)")
                #expect(error.isRetryable)
                #expect(error.description.contains(server.url(path).absoluteString))
                // Short of the server's minute, with room for a loaded machine (ThreadSanitizer
                // beside the other suites took 33 s).
                #expect(ContinuousClock.now - start < .seconds(55), "\(path)")
            }
        }
    }

    @Test("a connection that cannot be made is retryable, naming the URL")
    func connectionRefused() async throws {
        // A port that was just free: nothing listens there now.
        let closed = try await FeedServer.start { _ in }
        let port = closed.port
        await closed.stop()
        let fetcher = BuoyFeedFetcher(policy: BuoyFeedPolicy(allowedHosts: ["127.0.0.1"]))
        let url = URL(string: "http://127.0.0.1:\(port)/42002.rss")!
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fetcher-test-\(UUID().uuidString).xml")
        let result = await Result(catching: { try await Self.fetchError(fetcher, url, into: file) })
        try await fetcher.shutdown()
        let error = try result.get()
        #expect(error.code == .connectionFailed)
        #expect(error.isRetryable)
        #expect(error.description.hasPrefix(url.absoluteString))
    }

    @Test("a cancelled task cancels its fetch")
    func cancellation() async throws {
        try await Self.withFetcher(routes: { router in
            router.get("/silent") { _, _ in
                try await Task.sleep(for: .seconds(60))
                return Response.document(Data("<rss/>".utf8))
            }
        }) { server, fetcher, file in
            let start = ContinuousClock.now
            let fetch = Task { try await fetcher.fetch(server.url("/silent"), validators: nil, into: file, logger: Self.logger) }
            while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            fetch.cancel()
            await #expect(throws: CancellationError.self) { try await fetch.value }
            // Short of the server's minute (ThreadSanitizer beside the other suites took 42 s).
            #expect(ContinuousClock.now - start < .seconds(55))
        }
    }
}
