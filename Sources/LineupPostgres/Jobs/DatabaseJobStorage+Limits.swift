import Foundation
import LineupJobs
import LineupSpool
import LineupStore

/// Pauses and limits on the jobs table, kept by the claim across every daemon.
///
/// **Pauses** are rows of `lineup_paused`: every claim statement excludes their jobs (see
/// ``JobTableStatements/claim(filter:limit:)``), so a pause binds every daemon from the
/// moment it commits, whatever a daemon has read of it.
///
/// **Limits.** A limit's scope is a kind, or a queue: the jobs that run in it by the daemon's
/// ``LineupJobs/QueueRouting`` (the queue they name, else their kind's; in SQL
/// ``JobTableStatements/routedQueue(of:rule:)``). The plain claim leaves out every job that a
/// limit covers. Those are claimed in a transaction of their own that first takes a
/// transaction-level advisory lock per limit (in one order, so two daemons cannot deadlock),
/// then, class by class (a limited kind or any other, run in a limited queue or any other),
/// claims no more than each limit covering the class has room for: its running jobs
/// (`state = 'running'`, on any daemon) under its `running`, and its claims in the last period
/// (`lineup_limit_claims`) under its `rate`. The lock makes the count and the claim one step: a
/// daemon that waits for it starts its statements after the holder committed, and, at read
/// committed, each statement sees that commit. So no number of daemons claiming at once exceeds
/// a limit. A finished job awaiting the flush that acknowledges it still counts as running: the
/// table knows it as such until then.
///
/// Every daemon must be configured with the same limits and queues: one without them claims the
/// limited jobs with the plain claim, uncounted.
extension DatabaseJobStorage {
    /// The advisory lock class of the limits (the two-key form: apart from the migrations'
    /// one-key lock).
    static let limitLockClass: Int32 = 0x6C69_6D74  // "limt"

    func claimNext(filter: ClaimFilter, upTo limit: Int) throws -> ClaimedRow? {
        guard !filter.limits.isEmpty else { return try claimNext(upTo: limit) }
        return try claimNext { try claimBatchWithinLimits(filter, upTo: batchSize(upTo: limit), stamp: $0) }
    }

    /// Claims of the jobs no limit covers, then of each limited class; the claims that went
    /// through before one that throws carry the same stamp, and the next claim takes them
    /// (``claimNext(batch:)``).
    private func claimBatchWithinLimits(_ filter: ClaimFilter, upTo claimBatch: Int, stamp: () -> StoreValue) throws -> [ClaimedRow] {
        let limited = LimitedScopes(filter.limits.keys)
        let rows = try database.sessions.withSession { session -> [[StoreValue]] in
            let base: [StoreValue] = [.integer(daemonID), .integer(Int64(claimBatch)), .text(routingJSON), stamp()]
            var arguments = base
            let uncovered = limited.uncovered(alias: "c", rule: "$3") { Self.parameter($0, in: &arguments) }
            var rows = try session.rows(JobTableStatements.claim(filter: "AND " + uncovered), arguments)
            guard rows.count < claimBatch else { return rows }
            try session.transaction {
                for scope in filter.limits.keys.sorted() {
                    try session.execute(
                        "SELECT pg_advisory_xact_lock($1::integer, hashtext($2))", [.integer(Int64(Self.limitLockClass)), .text(scope.description)])
                }
                for covering in limited.classes {
                    rows += try claimWithinLimits(covering, limited, filter, base, session)
                }
            }
            return rows
        }
        return decodeClaims(rows)
    }

    /// Appends `value` to `arguments`, returning its parameter (`$n`).
    private static func parameter(_ value: StoreValue, in arguments: inout [StoreValue]) -> String {
        arguments.append(value)
        return "$\(arguments.count)"
    }

    /// Claims due jobs of the class that exactly the scopes `covering` cover (a limited kind or
    /// none, a limited queue or none), as many as each of their limits has room for, and counts
    /// them against the rates; inside the caller's transaction, under the limits' locks.
    private func claimWithinLimits(
        _ covering: [JobScope], _ limited: LimitedScopes, _ filter: ClaimFilter, _ base: [StoreValue], _ session: PostgresSession
    ) throws -> [[StoreValue]] {
        var arguments = base
        func parameter(_ value: StoreValue) -> String { Self.parameter(value, in: &arguments) }
        let member = limited.membership(of: covering, alias: "c", rule: "$3", parameter: parameter)
        var rooms: [String] = []
        for scope in covering {
            guard let limit = filter.limits[scope] else { continue }
            if let maxRunning = limit.maxRunning {
                let inScope = LimitedScopes.condition(scope, alias: "r", rule: "$3", parameter: parameter)
                rooms.append(
                    "GREATEST(0, \(parameter(.integer(Int64(maxRunning)))) - (SELECT count(*) FROM lineup_jobs AS r "
                        + "WHERE r.state = 'running' AND \(inScope)))")
            }
            if let rate = limit.rate {
                rooms.append(
                    "GREATEST(0, \(parameter(.integer(Int64(rate.jobs)))) - (SELECT count(*) FROM lineup_limit_claims AS l "
                        + "WHERE l.scope = \(parameter(.text(scope.description))) "
                        + "AND l.claimed_at > now() - make_interval(secs => \(parameter(.real(DaemonConfiguration.seconds(rate.period)))))))")
            }
        }
        let rows = try session.rows(
            JobTableStatements.claim(filter: "AND " + member, limit: "LEAST($2, \(rooms.joined(separator: ", ")))"),
            arguments)
        guard !rows.isEmpty else { return [] }
        for scope in covering {
            guard let rate = filter.limits[scope]?.rate else { continue }
            try session.execute(
                "DELETE FROM lineup_limit_claims WHERE scope = $1 AND claimed_at <= now() - make_interval(secs => $2)",
                [.text(scope.description), .real(DaemonConfiguration.seconds(rate.period))])
            try session.execute(
                "INSERT INTO lineup_limit_claims (scope) SELECT $1 FROM generate_series(1, $2)",
                [.text(scope.description), .integer(Int64(rows.count))])
        }
        return rows
    }

    func pausedScopes() throws -> [JobScope] {
        try database.pausedScopes()
    }

    func setPaused(_ scope: JobScope, _ paused: Bool) throws -> Bool {
        try (paused ? database.pause(scope) : database.resume(scope))
    }

    /// Each limit's counts across every daemon, and whether due jobs of its scope wait while it
    /// is used up.
    func sharedLimitStates(_ filter: ClaimFilter) throws -> [DaemonStatus.LimitState]? {
        try database.sessions.withSession { session in
            try filter.limits.sorted { $0.key < $1.key }.map { scope, limit in
                var arguments: [StoreValue] = [
                    .text(routingJSON), .text(scope.description), .real(limit.rate.map { DaemonConfiguration.seconds($0.period) } ?? 0),
                ]
                let runningInScope = LimitedScopes.condition(scope, alias: "r", rule: "$1") { Self.parameter($0, in: &arguments) }
                let queuedInScope = LimitedScopes.condition(scope, alias: "c", rule: "$1") { Self.parameter($0, in: &arguments) }
                let row = try session.rows(
                    """
                    SELECT
                        (SELECT count(*) FROM lineup_jobs AS r WHERE r.state = 'running' AND \(runningInScope)),
                        (SELECT count(*) FROM lineup_limit_claims AS l WHERE l.scope = $2
                            AND l.claimed_at > now() - make_interval(secs => $3)),
                        EXISTS (SELECT 1 FROM lineup_jobs AS c WHERE c.state = 'queued' AND c.not_before <= now()
                            AND \(queuedInScope))::integer
                    """,
                    arguments
                ).first
                func integer(_ index: Int) -> Int {
                    guard let row, case let .integer(value) = row[index] else { return 0 }
                    return Int(value)
                }
                let running = integer(0)
                let claimed = integer(1)
                let waiting = integer(2) == 1
                var state = DaemonStatus.LimitState(
                    scope: scope, running: running, maxRunning: limit.maxRunning, claimedInPeriod: limit.rate.map { _ in claimed },
                    rate: limit.rate?.jobs, period: limit.rate.map { DaemonConfiguration.seconds($0.period) }, holdingBack: false)
                state.holdingBack = waiting && state.isUsedUp
                return state
            }
        }
    }
}

/// The scopes of a daemon's limits, as the SQL that sorts jobs into the classes they cover.
private struct LimitedScopes {
    let kinds: [String]
    let queues: [String]

    init(_ scopes: some Sequence<JobScope>) {
        kinds = scopes.filter { $0.level == .kind }.map(\.name).sorted()
        queues = scopes.filter { $0.level == .queue }.map(\.name).sorted()
    }

    /// Every combination of a limited kind (or none) and a limited queue (or none) but the one
    /// of neither: each set of scopes that covers some job exactly.
    var classes: [[JobScope]] {
        let kindScopes: [JobScope?] = kinds.map { .kind($0) } + [nil]
        let queueScopes: [JobScope?] = queues.map { .queue($0) } + [nil]
        return kindScopes.flatMap { kind in queueScopes.map { queue in [kind, queue].compactMap { $0 } } }.filter { !$0.isEmpty }
    }

    /// Whether the job of row `alias` is in `scope`: of its kind, or run in its queue by the rule
    /// in parameter `rule`.
    static func condition(_ scope: JobScope, alias: String, rule: String, parameter: (StoreValue) -> String) -> String {
        switch scope.level {
        case .kind: "\(alias).kind = \(parameter(.text(scope.name)))"
        case .queue: "\(JobTableStatements.routedQueue(of: alias, rule: rule)) = \(parameter(.text(scope.name)))"
        }
    }

    /// Whether the job of row `alias` is of a kind no limit covers.
    private func unlimitedKind(alias: String, parameter: (StoreValue) -> String) -> String {
        "(\(alias).kind IS NULL OR \(alias).kind <> ALL(ARRAY(SELECT jsonb_array_elements_text(\(parameter(Self.list(kinds)))::jsonb))))"
    }

    /// Whether the job of row `alias` runs in a queue no limit covers (the default queue included).
    private func unlimitedQueue(alias: String, rule: String, parameter: (StoreValue) -> String) -> String {
        let queue = JobTableStatements.routedQueue(of: alias, rule: rule)
        return "(\(queue) IS NULL OR \(queue) <> ALL(ARRAY(SELECT jsonb_array_elements_text(\(parameter(Self.list(queues)))::jsonb))))"
    }

    /// Whether no limit covers the job of row `alias`: what the plain claim takes.
    func uncovered(alias: String, rule: String, parameter: (StoreValue) -> String) -> String {
        "\(unlimitedKind(alias: alias, parameter: parameter)) AND \(unlimitedQueue(alias: alias, rule: rule, parameter: parameter))"
    }

    /// Whether exactly the scopes `covering` (of ``classes``) cover the job of row `alias`.
    func membership(of covering: [JobScope], alias: String, rule: String, parameter: (StoreValue) -> String) -> String {
        let kind = covering.first { $0.level == .kind }
        let queue = covering.first { $0.level == .queue }
        let kindCondition =
            kind.map { Self.condition($0, alias: alias, rule: rule, parameter: parameter) } ?? unlimitedKind(alias: alias, parameter: parameter)
        let queueCondition =
            queue.map { Self.condition($0, alias: alias, rule: rule, parameter: parameter) }
            ?? unlimitedQueue(alias: alias, rule: rule, parameter: parameter)
        return "\(kindCondition) AND \(queueCondition)"
    }

    private static func list(_ names: [String]) -> StoreValue {
        .text(String(decoding: (try? JSONEncoder().encode(names)) ?? Data("[]".utf8), as: UTF8.self))
    }
}
