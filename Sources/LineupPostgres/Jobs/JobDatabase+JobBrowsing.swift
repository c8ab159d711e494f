public import Foundation
public import LineupJobs
import LineupSpool
import LineupStore

/// The job browser over the table: every host's jobs, and every daemon with its lease. `lineupd`
/// hands the dashboard this database as its ``LineupJobs/JobBrowsing`` (the dashboard does not
/// link PostgresNIO).
///
/// A page is one keyset query, `id < cursor ORDER BY id DESC LIMIT n`, on the primary key: ids
/// grow with enqueueing, so a page is newest first whatever the state, and costs what its rows
/// cost. A filter the index cannot answer (a kind, a search) scans backwards from the cursor
/// until the page is full.
extension JobDatabase: JobBrowsing {
    public var sourceName: String { "database" }

    /// The most jobs one bulk request acts on.
    static let bulkBound = 5_000
    /// The most done rows the chart reads.
    static let statisticsBound = 50_000

    public func page(_ query: JobQuery) async throws -> JobPage {
        let cursor = try Self.cursorID(query.cursor)
        let rows = try sessions.withSession { session in
            try session.rows(
                """
                SELECT j.id, j.state, j.name, j.job_id, j.kind, extract(epoch FROM j.enqueued_at)::float8,
                    extract(epoch FROM j.claimed_at)::float8, extract(epoch FROM j.finished_at)::float8,
                    j.failed_attempts::bigint, j.reason, d.host, j.queue
                FROM lineup_jobs AS j LEFT JOIN lineup_daemons AS d ON d.id = j.claimed_by
                WHERE \(Self.filter) AND ($11::bigint IS NULL OR j.id < $11)
                ORDER BY j.id DESC LIMIT $12
                """, try Self.arguments(query) + [cursor.map { .integer($0) } ?? .null, .integer(Int64(query.limit + 1))])
        }
        var jobs: [JobRow] = []
        var lastID: Int64?
        for row in rows.prefix(query.limit) {
            guard case let .integer(id) = row[0], case let .text(stateName) = row[1], let state = JobState(columnValue: stateName),
                case let .text(name) = row[2]
            else { continue }
            lastID = id
            func text(_ index: Int) -> String? { if case let .text(value) = row[index] { value } else { nil } }
            func date(_ index: Int) -> Date? { if case let .real(value) = row[index] { Date(timeIntervalSince1970: value) } else { nil } }
            var attempts = 0
            if case let .integer(value) = row[8] { attempts = Int(value) }
            jobs.append(
                JobRow(
                    state: state, name: name, id: text(3), kind: text(4), queue: query.routing.queue(forJobNamed: text(11), kind: text(4)),
                    enqueuedAt: date(5), startedAt: date(6), finishedAt: date(7), attempts: attempts, reason: text(9), host: text(10)))
        }
        let next = rows.count > query.limit ? lastID.map { "id/\($0)" } : nil
        return JobPage(jobs: jobs, next: next, examined: rows.count, source: sourceName)
    }

    public func act(
        _ action: JobBulkAction, on query: JobQuery, cancelRunning: @Sendable (JobRow) async throws -> Bool
    ) async throws -> JobBulkOutcome {
        var query = query
        let cancelsRunning = action == .cancel && query.listedStates.contains(.running)
        let scope: [JobState] = action == .cancel ? [.queued] : [.failed]
        query.states = query.listedStates.filter(scope.contains)
        var acted = 0
        if !query.states.isEmpty {
            let cursor = try Self.cursorID(query.cursor)
            let selected = "SELECT j.id FROM lineup_jobs AS j WHERE \(Self.filter) AND ($11::bigint IS NULL OR j.id < $11) ORDER BY j.id DESC LIMIT $12"
            let statement =
                switch action {
                case .retry:
                    """
                    UPDATE lineup_jobs SET state = 'queued', failed_attempts = 0, interruptions = 0, claimed_by = NULL,
                        finished_at = NULL, reason = NULL, report = NULL, not_before = now()
                    WHERE state = 'failed' AND id IN (\(selected))
                    """
                case .discard:
                    "DELETE FROM lineup_jobs WHERE state = 'failed' AND id IN (\(selected))"
                case .cancel:
                    """
                    UPDATE lineup_jobs SET state = 'failed', reason = 'cancelled by an operator', finished_at = now(), claimed_by = NULL
                    WHERE state = 'queued' AND id IN (\(selected))
                    """
                }
            let arguments = try Self.arguments(query) + [cursor.map { .integer($0) } ?? .null, .integer(Int64(Self.bulkBound))]
            acted = try sessions.withSession { session in
                try session.transaction {
                    let changed = try session.execute(statement, arguments)
                    if action == .retry { try session.execute(Self.notification) }
                    return changed
                }
            }
        }
        var skipped = 0
        if cancelsRunning {
            // Running jobs: the daemons that hold them stop them (NOTIFY).
            var running = query
            running.states = [.running]
            running.limit = JobQuery.maximumLimit
            for row in try await page(running).jobs {
                if try await cancelRunning(row) { acted += 1 } else { skipped += 1 }
            }
        }
        // Acted-on rows leave the filter's states, so posting the same filter again goes on.
        return JobBulkOutcome(action: action, acted: acted, skipped: skipped, next: acted >= Self.bulkBound ? query.cursor ?? "" : nil)
    }

    public func statistics(minutes: Int, now: Date) async throws -> JobStatistics {
        let since = now.addingTimeInterval(-Double(minutes) * 60)
        let rows = try sessions.withSession { session in
            try session.rows(
                """
                SELECT coalesce(kind, '?'), extract(epoch FROM coalesce(claimed_at, enqueued_at))::float8, extract(epoch FROM finished_at)::float8
                FROM lineup_jobs WHERE state = 'done' AND finished_at >= to_timestamp($1) ORDER BY finished_at DESC LIMIT $2
                """, [.real(since.timeIntervalSince1970), .integer(Int64(Self.statisticsBound))])
        }
        let samples = rows.compactMap { row -> (kind: String, startedAt: Date, finishedAt: Date)? in
            guard case let .text(kind) = row[0], case let .real(started) = row[1], case let .real(finished) = row[2] else { return nil }
            return (kind, Date(timeIntervalSince1970: started), Date(timeIntervalSince1970: finished))
        }
        return JobStatistics(samples: samples, minutes: minutes, now: now, sampled: rows.count, truncated: rows.count == Self.statisticsBound)
    }

    public func daemonLeases() async throws -> [DaemonLease]? {
        try daemons()
    }

    /// The filters of ``JobQuery``, as `$1`…`$10` (``arguments(_:)``). A queue's jobs are those
    /// that the query's routing (`$3`) runs in it (`$9`: `any`, `named` `$10`, or `default`),
    /// as ``JobQuery/admits(kind:namedQueue:)`` says.
    private static let filter = """
        j.state IN (SELECT jsonb_array_elements_text($1::jsonb))
        AND ($2::text IS NULL OR j.kind IN (SELECT jsonb_array_elements_text($2::jsonb)))
        AND ($9::text = 'any' OR (j.kind IS NOT NULL AND CASE $9::text
            WHEN 'default' THEN \(JobTableStatements.routedQueue(of: "j", rule: "$3")) IS NULL
            ELSE \(JobTableStatements.routedQueue(of: "j", rule: "$3")) = $10::text END))
        AND ($4::text IS NULL OR strpos(lower(j.name), lower($4::text)) > 0 OR strpos(lower(coalesce(j.job_id, '')), lower($4::text)) > 0)
        AND ($5::float8 IS NULL OR j.enqueued_at >= to_timestamp($5::float8))
        AND ($6::float8 IS NULL OR j.enqueued_at < to_timestamp($6::float8))
        AND ($7::float8 IS NULL OR j.finished_at >= to_timestamp($7::float8))
        AND ($8::float8 IS NULL OR j.finished_at < to_timestamp($8::float8))
        """

    private static func arguments(_ query: JobQuery) throws -> [StoreValue] {
        func time(_ date: Date?) -> StoreValue { date.map { .real($0.timeIntervalSince1970) } ?? .null }
        let queueFilter: (mode: String, name: String?) =
            switch query.queue {
            case nil: ("any", nil)
            case let .named(name)?: ("named", name)
            case .defaultQueue?: ("default", nil)
            }
        return [
            try jsonArgument(query.listedStates.map(\.columnValue)),
            try query.kinds.map { try jsonArgument($0.sorted()) } ?? .null,
            .text(JobTableStatements.ruleArgument(query.routing)),
            query.search.map { .text($0) } ?? .null,
            time(query.enqueuedAfter), time(query.enqueuedBefore), time(query.finishedAfter), time(query.finishedBefore),
            .text(queueFilter.mode), queueFilter.name.map { .text($0) } ?? .null,
        ]
    }

    /// The id a page's cursor (`id/<id>`) stands for.
    private static func cursorID(_ cursor: String?) throws -> Int64? {
        guard let cursor, !cursor.isEmpty else { return nil }
        guard cursor.hasPrefix("id/"), let id = Int64(cursor.dropFirst(3)) else {
            throw JobQueryError("not a cursor of this database's listing: \(cursor.debugDescription)")
        }
        return id
    }
}
