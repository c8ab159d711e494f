import Foundation
import Hummingbird
import LineupLocking
import Logging
import NIOCore

/// A Hummingbird server on 127.0.0.1, on a port the system picks, that answers as the test's
/// routes say: nothing a test fetches leaves the machine. It records each request's path and
/// headers, so that a test can tell what was asked (a conditional request) and what was never
/// asked (a host refused before connecting).
final class FeedServer: Sendable {
    /// A request the server received.
    struct Received: Sendable {
        let path: String
        let headers: HTTPFields
    }

    let port: Int
    private let received: Locked<[Received]>
    private let running: Task<Void, any Error>

    private init(port: Int, received: Locked<[Received]>, running: Task<Void, any Error>) {
        self.port = port
        self.received = received
        self.running = running
    }

    /// Starts a server with the routes `configure` adds; returns once it listens.
    static func start(_ configure: (Router<BasicRequestContext>) -> Void) async throws -> FeedServer {
        let received = Locked<[Received]>([])
        let router = Router()
        router.middlewares.add(RecordingMiddleware(received: received))
        configure(router)
        var logger = Logger(label: "feed-server")
        // Not .error: a stopped server logs its cancelled connections at that level.
        logger.logLevel = .critical
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "feed-server"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the feed server did not start"])
        }
        return FeedServer(port: port, received: received, running: running)
    }

    /// A URL of this server; `host` may name it otherwise (`localhost`), to test host checks.
    func url(_ path: String, host: String = "127.0.0.1", scheme: String = "http") -> URL {
        URL(string: "\(scheme)://\(host):\(port)\(path)")!
    }

    /// The requests received so far, in order.
    var requests: [Received] {
        received.withLock { $0 }
    }

    /// The requests received for `path`.
    func requests(for path: String) -> [Received] {
        requests.filter { $0.path == path }
    }

    func stop() async {
        running.cancel()
        _ = await running.result
    }
}

/// Records every request before the routes answer it.
private struct RecordingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let received: Locked<[FeedServer.Received]>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        received.withLock { $0.append(FeedServer.Received(path: request.uri.path, headers: request.headers)) }
        return try await next(request, context)
    }
}
