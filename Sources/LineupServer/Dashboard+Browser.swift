import Foundation
import Hummingbird
import LineupJobs
import LineupSpool
import Logging
import NIOCore

/// The job browser's routes (issue 33, item 7):
///
/// | route | what |
/// |---|---|
/// | `GET /api/jobs?state=&kind=&queue=&q=&enqueuedAfter=&enqueuedBefore=&finishedAfter=&finishedBefore=&after=&limit=` | a page of jobs (``JobPage``), newest first within each state; `after` is the previous page's `next` |
/// | `POST /api/jobs/bulk` | `{"action": "retry"|"discard"|"cancel", …the same filters}`: acts on every job the filters select, answering how many (``JobBulkOutcome``); token |
/// | `GET /api/throughput?minutes=60` | jobs finished per minute and p50/p95 durations per kind (``JobStatistics``) |
/// | `GET /api/daemons` | on a database, every daemon with its lease; on a spool, `null` |
///
/// `state` and `kind` take a comma-separated list; `queue` a queue's name, or `default` for the
/// jobs that run in no named queue (``LineupJobs/QueueRouting``: a job runs in the queue its file
/// names, else in its kind's), which is also each row's `queue`; the times are ISO 8601 (`2026-11-27T01:00:00Z`).
extension Dashboard {
    /// The largest body a bulk action reads: its filters.
    static let maximumBulkBody = 8 * 1_024

    func registerBrowser(
        on router: Router<BasicRequestContext>, reads: some RouterMethods<BasicRequestContext>,
        actions: some RouterMethods<BasicRequestContext>
    ) {
        route(router, router, "/browser.js", .get) { _, _ in
            Self.asset(PackageResources.browser_js, type: "text/javascript; charset=utf-8")
        }
        route(router, reads, "/api/jobs", .get) { request, _ in
            let browser = try jobBrowser()
            let query = try jobQuery(Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { $1 })
            // Each row's queue is the browser's, by the query's routing.
            let page = try await Self.answering { try await browser.page(query) }
            return try Self.json(page)
        }
        route(router, actions, "/api/jobs/bulk", .post) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: Self.maximumBulkBody)
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
                throw HTTPError(.badRequest, message: #"the body must be a JSON object: {"action": "retry", "state": "failed", …}"#)
            }
            var fields: [String: String] = [:]
            for (key, value) in object {
                switch value {
                case let text as String: fields[key] = text
                case let number as NSNumber: fields[key] = number.stringValue
                case let list as [String]: fields[key] = list.joined(separator: ",")
                default: throw HTTPError(.badRequest, message: "field `\(key)` must be a string")
                }
            }
            guard let action = fields.removeValue(forKey: "action").flatMap(JobBulkAction.init(rawValue:)) else {
                throw HTTPError(.badRequest, message: "`action` must be one of \(JobBulkAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let browser = try jobBrowser()
            let query = try jobQuery(fields)
            // A running job is stopped by the daemon that holds it, as `POST /api/jobs/ID/cancel`
            // does; one that finished meanwhile counts as skipped.
            let cancelRunning: @Sendable (JobRow) async throws -> Bool = { row in
                if case .stopping = try daemon.cancelJob(row.id ?? row.name) { return true }
                return false
            }
            let outcome = try await Self.answering { try await browser.act(action, on: query, cancelRunning: cancelRunning) }
            logger.notice(
                "dashboard bulk action",
                metadata: ["action": "\(action.rawValue)", "acted": "\(outcome.acted)", "skipped": "\(outcome.skipped)", "filter": "\(fields)"])
            return try Self.json(outcome)
        }
        route(router, reads, "/api/throughput", .get) { request, _ in
            let browser = try jobBrowser()
            let minutes = request.uri.queryParameters.get("minutes").flatMap { Int($0) } ?? 60
            guard (1...1_440).contains(minutes) else { throw HTTPError(.badRequest, message: "`minutes` must be 1 to 1440") }
            return try Self.json(try await Self.answering { try await browser.statistics(minutes: minutes, now: Date()) })
        }
        route(router, reads, "/api/daemons", .get) { _, _ in
            let browser = try jobBrowser()
            let leases = try await Self.answering { try await browser.daemonLeases() }
            return try Self.json(DaemonList(source: browser.sourceName, daemons: leases))
        }
    }

    /// The table when the daemon runs on one, else the spool.
    func jobBrowser() throws -> any JobBrowsing {
        if let databaseBrowser { return databaseBrowser }
        return SpoolJobBrowser(spool: try spool())
    }

    /// The query that the filters `fields` (a request's query or a bulk action's body) ask for.
    func jobQuery(_ fields: [String: String]) throws -> JobQuery {
        func list(_ key: String) -> [String]? {
            fields[key].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
                .flatMap { $0.isEmpty ? nil : $0 }
        }
        func date(_ key: String) throws -> Date? {
            guard let text = fields[key], !text.isEmpty else { return nil }
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw HTTPError(.badRequest, message: "`\(key)` must be an ISO 8601 time, e.g. 2026-11-27T01:00:00Z; found \(text.debugDescription)")
            }
            return date
        }
        var states: [JobState] = []
        for name in list("state") ?? [] {
            guard let state = JobState(rawValue: name) else {
                throw HTTPError(.badRequest, message: "`state` must be queued, running, done or failed; found \(name.debugDescription)")
            }
            if !states.contains(state) { states.append(state) }
        }
        let kinds = list("kind").map(Set.init)
        let routing = daemon.configuration.routing
        var queueFilter: JobQuery.QueueFilter?
        if let queue = fields["queue"], !queue.isEmpty {
            if routing.queueNames.contains(queue) {
                queueFilter = .named(queue)
            } else if queue == "default" {
                queueFilter = .defaultQueue
            } else {
                throw HTTPError(
                    .badRequest, message: "no queue \(queue.debugDescription): the daemon's are default, \(routing.queueNames.sorted().joined(separator: ", "))")
            }
        }
        var limit = 50
        if let text = fields["limit"] {
            guard let value = Int(text), (1...JobQuery.maximumLimit).contains(value) else {
                throw HTTPError(.badRequest, message: "`limit` must be 1 to \(JobQuery.maximumLimit)")
            }
            limit = value
        }
        return JobQuery(
            states: states, kinds: kinds, queue: queueFilter, routing: routing, search: fields["q"].flatMap { $0.isEmpty ? nil : $0 },
            enqueuedAfter: try date("enqueuedAfter"), enqueuedBefore: try date("enqueuedBefore"),
            finishedAfter: try date("finishedAfter"), finishedBefore: try date("finishedBefore"),
            cursor: fields["after"].flatMap { $0.isEmpty ? nil : $0 }, limit: limit)
    }

    /// Runs a browser's call, turning what the request got wrong into 400 and the rest into 503.
    static func answering<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as JobQueryError {
            throw HTTPError(.badRequest, message: error.description)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.serviceUnavailable, message: "the jobs cannot be read: \(error)")
        }
    }
}

/// What `GET /api/daemons` answers.
private struct DaemonList: Encodable {
    let source: String
    /// nil on a spool, which one daemon owns.
    let daemons: [DaemonLease]?
}
