import AsyncHTTPClient
public import Foundation
import LineupLocking
public import Logging
import NIOCore
import NIOHTTP1

/// Downloads NDBC feeds over HTTP or HTTPS for `fetch-buoy`, within a ``BuoyFeedPolicy``: only
/// allowed hosts, redirects counted and each target checked (and never from `https` down to
/// `http`), a body no larger than the limit (refused from its `Content-Length`, or as soon as
/// the bytes read pass it), and one deadline for the whole fetch.
///
/// It owns one `HTTPClient`, made with redirects off (the fetcher follows them itself, to check
/// each one) and shared by every fetch: make one fetcher per process, and ``shutdown()`` it when
/// the daemon stops. A fetch is cancelled with the Swift task that runs it.
public final class BuoyFeedFetcher: Sendable {
    private let client: HTTPClient
    private let currentPolicy: Locked<BuoyFeedPolicy>

    /// Makes a fetcher, and its client, with `policy`.
    public init(policy: BuoyFeedPolicy) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            // Connecting and each read wait at most this long; the policy's timeout bounds the whole.
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(30)),
            decompression: .disabled)
        configuration.httpVersion = .automatic
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.currentPolicy = Locked(policy)
    }

    /// The policy fetches that start now follow.
    public var policy: BuoyFeedPolicy {
        get { currentPolicy.withLock { $0 } }
        set { currentPolicy.withLock { $0 = newValue } }
    }

    /// Closes the client's connections. Fetches after it fail.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Closes the client's connections, waiting on the calling thread: for a synchronous
    /// command (`lineup run`), never from async code.
    @available(*, noasync, message: "use shutdown()")
    public func shutdownSynchronously() throws {
        try client.syncShutdown()
    }

    /// Fetches `url`, sending `validators` as `If-None-Match` and `If-Modified-Since`, and writes
    /// a `200`'s body into `file` (created or replaced).
    ///
    /// - Throws: ``BuoyFeedError`` naming the URL (and the status, for an answer), or
    ///   `CancellationError` when the task was cancelled.
    public func fetch(
        _ url: URL, validators: BuoyFeedValidators?, into file: URL, logger: Logger
    ) async throws -> BuoyFeedResponse {
        let policy = self.policy
        guard policy.allows(url) else {
            throw BuoyFeedError(.hostNotAllowed, url: url, Self.refusal(of: url, policy: policy))
        }
        // Raced against a timer rather than left to the client's deadline, which ends when the
        // answer's head arrives: a body that trickles in must not hold the job past it.
        let deadline = NIODeadline.now() + .nanoseconds(Int64(policy.timeout / .nanoseconds(1)))
        return try await withThrowingTaskGroup(of: BuoyFeedResponse?.self) { group in
            group.addTask {
                try await self.fetchFollowingRedirects(url, validators: validators, into: file, policy: policy, deadline: deadline, logger: logger)
            }
            group.addTask {
                try await Task.sleep(for: policy.timeout)
                return nil
            }
            defer { group.cancelAll() }
            do {
                guard let response = try await group.next() ?? nil else {
                    throw BuoyFeedError(.timedOut, url: url, Self.noAnswer(within: policy.timeout))
                }
                return response
            } catch is CancellationError where !Task.isCancelled {
                // The fetch saw the timer's cancellation before the timer's own result came in.
                throw BuoyFeedError(.timedOut, url: url, Self.noAnswer(within: policy.timeout))
            }
        }
    }

    private func fetchFollowingRedirects(
        _ url: URL, validators: BuoyFeedValidators?, into file: URL, policy: BuoyFeedPolicy, deadline: NIODeadline,
        logger: Logger
    ) async throws -> BuoyFeedResponse {
        var current = url
        var redirects = 0
        while true {
            var request = HTTPClientRequest(url: current.absoluteString)
            request.headers.add(name: "Accept", value: "application/xml, text/xml, application/rss+xml;q=0.9, */*;q=0.1")
            request.headers.add(name: "User-Agent", value: "Lineup fetch-buoy")
            if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline, logger: logger)
            } catch {
                throw Self.classify(error, url: current, timeout: policy.timeout)
            }
            let status = Int(response.status.code)
            switch status {
            case 200:
                let download = try await write(response, of: current, into: file, policy: policy)
                return .downloaded(
                    BuoyFeedResponse.Download(
                        finalURL: current, byteCount: download.byteCount,
                        validators: BuoyFeedValidators(
                            etag: response.headers.first(name: "ETag"), lastModified: response.headers.first(name: "Last-Modified")),
                        contentType: download.contentType, redirects: redirects))
            case 304 where validators?.isEmpty == false:
                return .notModified(finalURL: current)
            case 304:
                // Nothing was asked about: "unchanged" would claim an import that never happened.
                throw BuoyFeedError(
                    .httpStatus, url: current, status: status, "Not Modified, to a request that sent no ETag or Last-Modified")
            case 301, 302, 303, 307, 308:
                redirects += 1
                let next = try Self.redirectTarget(of: response, from: current, redirects: redirects, policy: policy)
                // Read the redirect's own (small) body, so that its connection goes back to the
                // pool for the next hop rather than a new one being opened; a large one is dropped,
                // which closes its connection.
                _ = try? await response.body.collect(upTo: 64 << 10)
                logger.debug("redirected", metadata: ["url": "\(current.absoluteString)", "to": "\(next.absoluteString)", "status": "\(status)"])
                current = next
            default:
                let reason = response.status.reasonPhrase
                throw BuoyFeedError(
                    .httpStatus, url: current, status: status,
                    reason.isEmpty ? "the server answered an error" : reason)
            }
        }
    }

    /// Where a redirect leads, once checked against the policy.
    static func redirectTarget(
        of response: HTTPClientResponse, from current: URL, redirects: Int, policy: BuoyFeedPolicy
    ) throws -> URL {
        let status = Int(response.status.code)
        guard redirects <= policy.maxRedirects else {
            throw BuoyFeedError(
                .redirectRefused, url: current, status: status, "more than \(policy.maxRedirects) redirects")
        }
        guard let location = response.headers.first(name: "Location"),
            let next = URL(string: location, relativeTo: current)?.absoluteURL
        else {
            throw BuoyFeedError(.redirectRefused, url: current, status: status, "a redirect without a usable Location")
        }
        if current.scheme?.lowercased() == "https", next.scheme?.lowercased() == "http" {
            throw BuoyFeedError(
                .redirectRefused, url: current, status: status, "a redirect from https down to http (\(next.absoluteString)) is refused")
        }
        guard policy.allows(next) else {
            throw BuoyFeedError(
                .hostNotAllowed, url: current, status: status, "redirected to \(next.absoluteString): " + refusal(of: next, policy: policy))
        }
        return next
    }

    /// Streams a `200`'s body into `file`, stopping as soon as it passes the limit.
    private func write(
        _ response: HTTPClientResponse, of url: URL, into file: URL, policy: BuoyFeedPolicy
    ) async throws -> (byteCount: Int, contentType: String?) {
        let contentType = response.headers.first(name: "Content-Type")
        if let contentType, !Self.mayBeXML(contentType) {
            throw BuoyFeedError(.notXML, url: url, status: 200, "the answer is \(contentType), not XML")
        }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > policy.maxBodyBytes {
            throw BuoyFeedError(
                .tooLarge, url: url, status: 200, "the body of \(length) bytes is over the limit of \(policy.maxBodyBytes) bytes")
        }
        let handle: FileHandle
        do {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw BuoyFeedError(.storageFailed, url: url, status: 200, "cannot create \(file.path): \(error)", underlying: error)
        }
        defer { try? handle.close() }
        var byteCount = 0
        var sniffed = false
        do {
            for try await buffer in response.body {
                byteCount += buffer.readableBytes
                guard byteCount <= policy.maxBodyBytes else {
                    // Leaving the loop drops the body: the client stops reading and closes the connection.
                    throw BuoyFeedError(
                        .tooLarge, url: url, status: 200, "the body passed the limit of \(policy.maxBodyBytes) bytes; it was not read further")
                }
                let bytes = Data(buffer.readableBytesView)
                if !sniffed, let first = bytes.first(where: { !Self.isLeadingWhitespace($0) }) {
                    sniffed = true
                    // `<`, or a byte-order mark (UTF-8's begins with 0xEF, UTF-16's with 0xFE or 0xFF).
                    guard first == UInt8(ascii: "<") || first >= 0xEF else {
                        throw BuoyFeedError(
                            .notXML, url: url, status: 200, "the answer\(contentType.map { " (\($0))" } ?? "") does not begin as XML does")
                    }
                }
                do {
                    try handle.write(contentsOf: bytes)
                } catch {
                    throw BuoyFeedError(
                        .storageFailed, url: url, status: 200, "cannot write the body to \(file.path): \(error)", underlying: error)
                }
            }
        } catch let error as BuoyFeedError {
            throw error
        } catch {
            // The body's stream: the connection broke, or the fetch was cancelled.
            throw Self.classify(error, url: url, timeout: policy.timeout)
        }
        return (byteCount, contentType)
    }

    private static func isLeadingWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Whether a `Content-Type` may be an XML document: an XML type (`text/xml`,
    /// `application/rss+xml`, …), or one that says nothing of the content (`text/plain`,
    /// `application/octet-stream`), where the body's first bytes decide. HTML, JSON and the
    /// rest are refused.
    static func mayBeXML(_ contentType: String) -> Bool {
        let media = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return media.hasSuffix("/xml") || media.hasSuffix("+xml") || media == "text/plain" || media == "application/octet-stream"
    }

    private static func refusal(of url: URL, policy: BuoyFeedPolicy) -> String {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "only http and https URLs are fetched"
        }
        return "host \(url.host ?? "(none)") is not allowed (\(policy.allowedHostsDescription))"
    }

    /// The client's error as a feed error: timeouts and connection failures, both retryable.
    private static func classify(_ error: any Error, url: URL, timeout: Duration) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled:
                return CancellationError()
            case .deadlineExceeded:
                return BuoyFeedError(.timedOut, url: url, noAnswer(within: timeout), underlying: error)
            case .readTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return BuoyFeedError(.timedOut, url: url, "\(error)", underlying: error)
            default:
                break
            }
        }
        return BuoyFeedError(.connectionFailed, url: url, "\(error)", underlying: error)
    }

    private static func noAnswer(within timeout: Duration) -> String {
        let seconds = timeout / .seconds(1)
        return "no complete answer within \(seconds.rounded() == seconds ? "\(Int(seconds))" : "\(seconds)") s"
    }
}
