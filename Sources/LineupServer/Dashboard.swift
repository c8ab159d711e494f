import Foundation
import Hummingbird
import LineupJobs
import LineupSpool
import Logging
import NIOCore

/// The dashboard that `lineupd --http-address` serves beside `/metrics`: a page of its own
/// (`/`, with `dashboard.css` and `dashboard.js`, compiled into the binary: no CDN, no build
/// step) over a JSON API that scripts may use too.
///
/// | route | what |
/// |---|---|
/// | `GET /api/status` | what `lineup status --json` prints, in the same shape |
/// | `GET /api/failed` | every failed job with its reason, newest first |
/// | `GET /api/jobs/ID` | the jobs whose id or name is ID, wherever they lie, with their reports and their latest log lines |
/// | `GET /api/scheduled` | the jobs waiting in `new/` for their `notBefore` time, and the `cron` jobs |
/// | `GET /api/pictures` | the pictures (`*.svg`) in the output directory, newest first |
/// | `GET /pictures/NAME.svg` | one of them (the `statistics` job's) |
/// | `GET /api/events` | server-sent events: the daemon's events as they happen, and a `status` every second |
/// | `POST /api/jobs/ID/retry` | queue a failed job again (as `lineup retry`) |
/// | `POST /api/jobs/ID/discard` | remove a failed job for good |
/// | `POST /api/jobs/ID/cancel` | cancel a queued or running job (as `lineup cancel`): a running one is stopped by its daemon |
/// | `POST /api/flush` | flush now (as SIGUSR1), answering when it is done |
/// | `POST /api/pause/kind/NAME`, `POST /api/pause/queue/NAME` | pause a kind or a queue (as `lineup pause`) |
/// | `POST /api/resume/kind/NAME`, `POST /api/resume/queue/NAME` | resume it (as `lineup resume`) |
///
/// The actions need the token of `--http-token-file` (``ActionToken``): 401 without one, 403
/// with a wrong one or when no token file was given; ``TokenMiddleware`` checks it before their
/// handlers run (and before the reads' when the endpoint is reachable beyond loopback). A route
/// asked with another method answers 405 with `Allow`; an ID that could not name a job (a
/// slash, `..`, a NUL, more than 255 bytes) 400; an unknown one 404; an action's body over
/// 1 KB 413.
struct Dashboard: Sendable {
    let daemon: JobDaemon
    let spoolURL: URL
    let token: ActionToken?
    /// Whether reading needs the token too: the endpoint is reachable beyond loopback.
    let readsNeedToken: Bool
    /// The latest log lines of each job, for its page.
    let jobLog: JobLog
    let logger: Logger
    /// The spool, opened once as the endpoint starts (opening makes the directories that are
    /// missing, which a GET must not do), or why it could not be.
    let openedSpool: Result<SpoolDirectory, SpoolError>
    /// The daemon's status, asked of the daemon in this process.
    let daemonStatus: DaemonStatusReader
    /// What the open event streams send, made once for all of them.
    let feed: DashboardFeed
    /// The jobs table that several daemons share, when this daemon runs on one: the job browser
    /// lists it rather than the spool (``registerBrowser(on:reads:actions:)``).
    let databaseBrowser: (any JobBrowsing)?

    /// The largest body an action reads; actions take none.
    static let maximumActionBody = 1_024
    /// The methods a route refuses with 405 when it does not take them.
    private static let methods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch]

    /// - Parameter spool: the spool, opened by the endpoint as it started.
    init(
        daemon: JobDaemon, spoolURL: URL, spool: Result<SpoolDirectory, SpoolError>, token: ActionToken?, readsNeedToken: Bool,
        jobLog: JobLog, logger: Logger, databaseBrowser: (any JobBrowsing)? = nil
    ) {
        self.databaseBrowser = databaseBrowser
        self.daemon = daemon
        self.spoolURL = spoolURL
        self.openedSpool = spool
        self.token = token
        self.readsNeedToken = readsNeedToken
        self.jobLog = jobLog
        self.logger = logger
        let daemonStatus = DaemonStatusReader(daemon: daemon, spoolURL: spoolURL)
        self.daemonStatus = daemonStatus
        feed = DashboardFeed {
            guard case let .success(spool) = spool,
                let json = try? StatusSnapshot(spool, daemonStatus: await daemonStatus.current()).json()
            else { return nil }
            return "event: status\ndata: \(json)\n\n"
        }
    }

    /// Feeds the event streams with the daemon's events and its status, until the daemon
    /// stops (then every stream ends) or the calling task is cancelled.
    func runFeed(_ events: DaemonEvents) async {
        await feed.run(events: events) { DashboardEvent($0).frame }
    }

    func register(on router: Router<BasicRequestContext>) {
        let reads = router.group()
        if readsNeedToken {
            reads.add(middleware: TokenMiddleware<BasicRequestContext>(token: token, acceptsQueryToken: true))
        }
        let actions = router.group().add(middleware: TokenMiddleware<BasicRequestContext>(token: token, acceptsQueryToken: false))

        route(router, router, "/", .get) { _, _ in Self.asset(PackageResources.index_html, type: "text/html; charset=utf-8") }
        route(router, router, "/dashboard.css", .get) { _, _ in Self.asset(PackageResources.dashboard_css, type: "text/css; charset=utf-8") }
        route(router, router, "/dashboard.js", .get) { _, _ in
            Self.asset(PackageResources.dashboard_js, type: "text/javascript; charset=utf-8")
        }
        registerBrowser(on: router, reads: reads, actions: actions)
        route(router, reads, "/api/status", .get) { _, _ in
            try await Self.json(StatusSnapshot(spool(), daemonStatus: daemonStatus.current()))
        }
        route(router, reads, "/api/failed", .get) { _, _ in
            try Self.json(StatusSnapshot.failures(in: spool()))
        }
        route(router, reads, "/api/jobs/{id}", .get) { _, context in
            let id = try Self.jobID(context)
            var found = try JobDetail.find(id, in: spool())
            guard !found.isEmpty else { throw HTTPError(.notFound, message: "no job \(id) in \(spoolURL.path)") }
            for index in found.indices {
                // Logged under the job's id, or its name when it has none.
                found[index].log = jobLog.lines(ofJob: found[index].id ?? found[index].name)
            }
            return try Self.json(found)
        }
        route(router, reads, "/api/scheduled", .get) { _, _ in
            try Self.json(ScheduledJobs(spool: spool(), cron: daemon.configuration.cron, now: Date()))
        }
        route(router, reads, "/api/pictures", .get) { _, _ in
            try Self.json(pictures())
        }
        route(router, reads, "/pictures/{name}", .get) { _, context in
            try picture(named: context.parameters.require("name"))
        }
        route(router, reads, "/api/events", .get) { _, _ in
            eventStream()
        }
        route(router, actions, "/api/jobs/{id}/retry", .post) { request, context in
            try await Self.dropActionBody(request)
            let id = try Self.jobID(context)
            return try Self.json(act(on: id) { directory, entry in
                let queued = try directory.retry(entry)
                return ["name": entry.name, "queued": "new/\(queued.fileName)"]
            })
        }
        route(router, actions, "/api/jobs/{id}/discard", .post) { request, context in
            try await Self.dropActionBody(request)
            let id = try Self.jobID(context)
            return try Self.json(act(on: id) { directory, entry in
                try directory.discard(entry)
                return ["name": entry.name, "discarded": "failed/\(entry.fileName)"]
            })
        }
        for level in JobScope.Level.allCases {
            for paused in [true, false] {
                route(router, actions, RouterPath("/api/\(paused ? "pause" : "resume")/\(level.rawValue)/{name}"), .post) { request, context in
                    try await Self.dropActionBody(request)
                    let scope = JobScope(level, try Self.jobID(context, parameter: "name"))
                    let changed: Bool
                    do {
                        changed = try await (paused ? daemon.pause(scope) : daemon.resume(scope))
                    } catch {
                        throw HTTPError(.serviceUnavailable, message: "cannot \(paused ? "pause" : "resume") \(scope): \(error)")
                    }
                    logger.notice("dashboard action", metadata: ["scope": "\(scope)", "paused": "\(paused)", "changed": "\(changed)"])
                    return try Self.json(["scope": scope.description, "paused": paused ? "true" : "false", "changed": changed ? "true" : "false"])
                }
            }
        }
        route(router, actions, "/api/jobs/{id}/cancel", .post) { request, context in
            try await Self.dropActionBody(request)
            let id = try Self.jobID(context)
            switch try daemon.cancelJob(id) {
            case let .failedWhileQueued(names):
                return try Self.json(["job": id, "outcome": "failed while queued", "names": names.joined(separator: ",")])
            case let .stopping(names):
                return try Self.json(["job": id, "outcome": "stopping", "names": names.joined(separator: ",")])
            case .notFound:
                throw HTTPError(.notFound, message: "no queued or running job \(id) (finished, or unknown)")
            }
        }
        route(router, actions, "/api/flush", .post) { request, _ in
            try await Self.dropActionBody(request)
            let summary: FlushSummary
            do {
                summary = try await daemon.flush()
            } catch {
                throw HTTPError(.serviceUnavailable, message: "the flush failed: \(error)")
            }
            return try Self.json(summary)
        }
    }

    /// Registers `handler` for `method` at `path` in `group` (behind its token middleware, if
    /// any), and a 405 that names it for the other methods in `router`: a wrong method is
    /// refused as such, token or not.
    func route(
        _ router: Router<BasicRequestContext>, _ group: some RouterMethods<BasicRequestContext>, _ path: RouterPath,
        _ method: HTTPRequest.Method, _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) {
        group.on(path, method: method, use: handler)
        for other in Self.methods where other != method {
            router.on(path, method: other) { _, _ -> Response in
                var headers = HTTPFields()
                headers[.allow] = method.rawValue
                throw HTTPError(.methodNotAllowed, headers: headers, message: "\(path) takes \(method.rawValue) only")
            }
        }
    }

    // MARK: - Pictures

    /// The SVG files directly in the output directory, newest first.
    private func pictures() throws -> [[String: String]] {
        let directory = daemon.configuration.outputDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { Self.isPictureName($0) }
            .compactMap { name -> (String, Date)? in
                let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appending(path: name).path)
                return (attributes?[.modificationDate] as? Date).map { (name, $0) }
            }
            .sorted { ($1.1, $0.0) < ($0.1, $1.0) }
            .map { ["name": $0.0, "url": "/pictures/\($0.0)", "modifiedAt": $0.1.ISO8601Format()] }
    }

    /// A picture of the output directory, by a bare name: no path, and nothing but an `.svg`.
    private func picture(named raw: String) throws -> Response {
        guard let name = Self.percentDecoded(raw), Self.isPictureName(name) else {
            throw HTTPError(.badRequest, message: "not a picture's name (NAME.svg, letters, digits, . _ -): \(raw.debugDescription)")
        }
        let url = daemon.configuration.outputDirectory.appending(path: name)
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw HTTPError(.notFound, message: "no picture \(name) in the output directory")
        }
        defer { try? handle.close() }
        guard let data = try handle.read(upToCount: Self.maximumPictureSize + 1), data.count <= Self.maximumPictureSize else {
            throw HTTPError(.notFound, message: "\(name) is empty or larger than \(Self.maximumPictureSize) bytes")
        }
        var headers = HTTPFields()
        headers[.contentType] = "image/svg+xml"
        headers[.cacheControl] = "no-cache"
        // Written by a job from data: it may show, never run script.
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The largest picture served.
    static let maximumPictureSize = 16 * 1_024 * 1_024

    private static func isPictureName(_ name: String) -> Bool {
        name.hasSuffix(".svg") && !name.hasPrefix(".") && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) }
    }

    func spool() throws -> SpoolDirectory {
        switch openedSpool {
        case let .success(spool): return spool
        case let .failure(error):
            throw HTTPError(.serviceUnavailable, message: "the spool could not be opened when the endpoint started: \(error)")
        }
    }

    /// Reads and drops an action's body (actions take none): 413 past ``maximumActionBody``.
    private static func dropActionBody(_ request: Request) async throws {
        var request = request
        _ = try await request.collectBody(upTo: maximumActionBody)
    }

    // MARK: - Jobs

    /// The `{id}` of the path, percent-decoded (the router leaves it as it came), refused when it
    /// could not be a job's id or name.
    private static func jobID(_ context: BasicRequestContext, parameter: String = "id") throws -> String {
        let raw = try context.parameters.require(parameter)
        guard let id = percentDecoded(raw) else {
            throw HTTPError(.badRequest, message: "not a job id or name: \(raw.debugDescription) (bad percent-encoding)")
        }
        guard !id.isEmpty, id.utf8.count <= 255, !id.contains("/"), !id.contains("\0"), id != ".", id != ".." else {
            throw HTTPError(.badRequest, message: "not a job id or name: \(id.debugDescription)")
        }
        return id
    }

    /// `text` with its `%XX` escapes decoded; nil when a `%` is not followed by two hex digits or
    /// the bytes are not UTF-8 (Foundation's `removingPercentEncoding` keeps such text as it is).
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Applies `action` to every failed job whose id or name is `id`.
    private func act(
        on id: String, _ action: (SpoolDirectory, SpoolEntry) throws -> [String: String]
    ) throws -> [[String: String]] {
        let directory = try spool()
        let failed = try directory.entries(.failed, matching: id)
        guard !failed.isEmpty else {
            throw HTTPError(.notFound, message: "no failed job \(id) in \(directory.directory(.failed).path)")
        }
        return try failed.map { entry in
            do {
                let outcome = try action(directory, entry)
                logger.notice("dashboard action", metadata: ["job": "\(entry.name)", "outcome": "\(outcome)"])
                return outcome
            } catch let error as SpoolError where error.code == .notFound {
                throw HTTPError(.conflict, message: error.description)
            }
        }
    }

    // MARK: - Responses

    static func asset(_ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        var data = try StatusSnapshot.encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `text/event-stream`: a `status` event at once and every second, and each of the daemon's
    /// events as it happens, until the client goes or the daemon stops (``DashboardFeed``).
    private func eventStream() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let feed = self.feed
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for await frame in await feed.subscribe() {
                    try await writer.write(ByteBuffer(string: frame))
                }
                try await writer.finish(nil)
            })
    }
}

/// What `GET /api/scheduled` answers.
private struct ScheduledJobs: Encodable {
    struct Scheduled: Encodable {
        let name: String
        let id: String?
        let kind: String?
        let notBefore: Date
    }

    struct Recurring: Encodable {
        let name: String
        let schedule: String
        let kind: String
        /// When the schedule last fired (UTC), whether or not the daemon ran then.
        let lastFireTime: Date?
    }

    /// Queued jobs whose time is still to come, soonest first.
    let scheduled: [Scheduled]
    let recurring: [Recurring]

    init(spool: SpoolDirectory, cron: [CronJob], now: Date) throws {
        scheduled = try spool.entries(.queued)
            .compactMap { entry -> Scheduled? in
                guard let notBefore = entry.notBefore, notBefore > now else { return nil }
                let file = spool.jobFile(of: entry)
                return Scheduled(name: entry.name, id: file?.id, kind: file?.kind, notBefore: notBefore)
            }
            .sorted { ($0.notBefore, $0.name) < ($1.notBefore, $1.name) }
        recurring = cron.map {
            Recurring(
                name: $0.name, schedule: $0.schedule.description, kind: $0.job.kind,
                lastFireTime: $0.schedule.previousFireTime(atOrBefore: now))
        }
    }
}
