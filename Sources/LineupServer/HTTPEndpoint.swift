public import Foundation
import Hummingbird
public import LineupJobs
import LineupSpool
import LineupStore
public import Logging
import NIOCore
public import Prometheus
public import ServiceLifecycle

/// `lineupd --http-address HOST:PORT`: an HTTP server beside the daemon, off by default.
///
/// - The dashboard and its JSON API under `/api` (``Dashboard``).
/// - `GET /metrics`: every metric of ``DaemonMetrics`` in the Prometheus text format; the
///   gauges are read from the daemon as the scrape asks, so they are never stale.
/// - `GET /health`: 200 and `{"status":"ok"}` while the daemon runs and its acknowledgements go
///   through; 503 with the reason while it starts, stops, or cannot acknowledge jobs (a full
///   disk), for supervisors and load balancers.
public struct HTTPEndpoint: Service {
    let host: String
    let port: Int
    let daemon: JobDaemon
    let spoolURL: URL
    let metrics: DaemonMetrics
    let registry: PrometheusCollectorRegistry
    /// What the dashboard's actions need; nil: they are off.
    let token: ActionToken?
    let jobLog: JobLog
    let logger: Logger
    /// The jobs table the daemon shares with others, for the job browser; nil: the spool.
    let databaseBrowser: (any JobBrowsing)?

    /// Makes the endpoint of `daemon`, which runs on the spool at `spoolURL`; it serves once run
    /// (as a service beside the daemon: ``LineupJobs/JobDaemon/runWithSignalHandling(alongside:)``).
    ///
    /// - Parameters:
    ///   - metrics: the daemon's metrics, following its events; `/metrics` serves `registry`,
    ///     which the process bootstrapped swift-metrics with.
    ///   - token: the secret the dashboard's actions need; nil turns them off.
    ///   - jobLog: the jobs' latest log lines, for the dashboard's job page.
    ///   - databaseBrowser: the jobs table, when the daemon runs on one (LineupPostgres's
    ///     `JobDatabase`): the job browser lists every host's jobs and every daemon from it.
    public init(
        host: String, port: Int, daemon: JobDaemon, spoolURL: URL, metrics: DaemonMetrics,
        registry: PrometheusCollectorRegistry, token: ActionToken?, jobLog: JobLog, logger: Logger,
        databaseBrowser: (any JobBrowsing)? = nil
    ) {
        self.databaseBrowser = databaseBrowser
        self.host = host
        self.port = port
        self.daemon = daemon
        self.spoolURL = spoolURL
        self.metrics = metrics
        self.registry = registry
        self.token = token
        self.jobLog = jobLog
        self.logger = logger
    }

    /// Parses `HOST:PORT` (`127.0.0.1:9464`, `[::1]:9464`, `localhost:0` for any free port).
    public static func parse(address text: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else {
            throw DaemonError(.invalidConfiguration, path: nil, "`--http-address` must be HOST:PORT, e.g. 127.0.0.1:9464; found \(text)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        guard !host.isEmpty else {
            throw DaemonError(.invalidConfiguration, path: nil, "`--http-address` must name a host, e.g. 127.0.0.1:9464; found \(text)")
        }
        return (host, port)
    }

    /// Whether `host` reaches this machine only: there, reading the dashboard needs no token.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public func run() async throws {
        // Opened once, for every request: opening makes the directories that are missing, which
        // a request must not do. Not thrown: the daemon, which opens the spool too, stops with
        // the error that says what is wrong with it, and the dashboard answers 503 meanwhile.
        let spool = Result { () throws(SpoolError) in try SpoolDirectory(root: spoolURL, durability: .fsync) }
        if case let .failure(error) = spool {
            logger.warning("HTTP endpoint: cannot open the spool", metadata: ["error": "\(error)"])
        }
        let dashboard = Dashboard(
            daemon: daemon, spoolURL: spoolURL, spool: spool, token: token, readsNeedToken: !Self.isLoopback(host), jobLog: jobLog,
            logger: logger, databaseBrowser: databaseBrowser)
        // Subscribed before the server answers, so that no stream misses what happens meanwhile.
        let events = daemon.events()
        let router = Router()
        router.get("metrics") { _, _ in
            await updateGauges(spool)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            let exposition = DaemonMetrics.addingHelp(to: registry.emitToString())
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: exposition)))
        }
        router.get("health") { _, _ in
            let (status, body) = await health()
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        dashboard.register(on: router)
        let logger = self.logger
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "lineupd"),
            onServerRunning: { channel in
                let address = channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
                logger.info("HTTP endpoint listening (/, /api, /metrics, /health)", metadata: ["address": "\(address)"])
            },
            logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Ends by itself when the daemon stops, which it does before the endpoint (the
            // endpoint's service starts first and stops last): the event streams end with it.
            group.addTask { await dashboard.runFeed(events) }
            try await application.run()
            group.cancelAll()
        }
    }

    private func updateGauges(_ spool: Result<SpoolDirectory, SpoolError>) async {
        let status = await daemon.status()
        // As the status last counted them: a scrape never waits for a main context that a slow
        // flush holds.
        let unsavedRows = status?.mainContextUnsavedRows
        var queue: (count: Int, oldestDueSince: Date?) = (0, nil)
        do {
            queue = try spool.get().queueSummary()
        } catch {
            logger.warning("metrics: cannot read the queue", metadata: ["error": "\(error)"])
        }
        metrics.update(from: status, queue: (queue.count, queue.oldestDueSince), unsavedRowCount: unsavedRows)
    }

    private func health() async -> (HTTPResponse.Status, String) {
        func answer(_ status: HTTPResponse.Status, _ fields: [String: String]) -> (HTTPResponse.Status, String) {
            let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
            return (status, String(decoding: data, as: UTF8.self) + "\n")
        }
        guard let status = await daemon.status() else {
            return answer(.serviceUnavailable, ["status": "unavailable", "reason": "the daemon is not running (starting or stopped)"])
        }
        guard status.phase == .running else {
            return answer(.serviceUnavailable, ["status": "unavailable", "reason": "the daemon is \(status.phase.rawValue)"])
        }
        if let since = status.acknowledgementsFailingSince {
            return answer(
                .serviceUnavailable,
                ["status": "unavailable", "reason": "no job could be acknowledged since \(since.ISO8601Format()) (flushes or filing fail)"])
        }
        return answer(.ok, ["status": "ok"])
    }
}
