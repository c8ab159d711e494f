import Foundation
import Hummingbird
import Logging
import NIOCore

/// The demo's stand-in for NDBC: an HTTP server on 127.0.0.1 (a port the system picks) that
/// serves one sample feed with an `ETag`, and answers `304 Not Modified` to a request that
/// sends it back, as NDBC's server does. The demo's `fetch-buoy` jobs read it, so the demo
/// stays offline.
struct DemoFeedServer: Sendable {
    /// The feed's URL.
    let url: URL
    private let running: Task<Void, any Error>

    /// Serves `file` at `/data/latest_obs/<name>`; returns once the server listens.
    static func start(serving file: URL) async throws -> DemoFeedServer {
        let body = try Data(contentsOf: file)
        // The bytes' FNV-1a hash: the same file, the same tag.
        let etag = "\"" + String(body.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }, radix: 16) + "\""
        let path = "/data/latest_obs/\(file.lastPathComponent)"
        let router = Router()
        router.get(RouterPath(path)) { request, _ -> Response in
            if request.headers[.ifNoneMatch] == etag {
                return Response(status: .notModified, headers: [.eTag: etag])
            }
            return Response(
                status: .ok, headers: [.contentType: "application/rss+xml", .eTag: etag],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        var logger = Logger(label: "demo-feed")
        // Not .error: a stopped server logs its cancelled connections at that level.
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "demo-feed"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the demo's feed server did not start"])
        }
        return DemoFeedServer(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, running: running)
    }

    func stop() async {
        running.cancel()
        _ = await running.result
    }
}
