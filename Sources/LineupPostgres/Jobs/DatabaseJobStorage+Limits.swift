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
/// **Limits.** The plain claim leaves out every kind that a limit covers. Those are claimed in a
/// transaction of their own that first takes a transaction-level advisory lock per limit (in one
/// order, so two daemons cannot deadlock), then, kind by kind, claims no more than each limit has
/// room for: its running jobs (`state = 'running'`, on any daemon) under its `running`, and its
/// claims in the last period (`lineup_limit_claims`) under its `rate`. The lock makes the count
/// and the claim one step: a daemon that waits for it starts its statements after the holder
/// committed, and, at read committed, each statement sees that commit. So no number of daemons
/// claiming at once exceeds a limit. A finished job awaiting the flush that acknowledges it still
/// counts as running: the table knows it as such until then.
///
/// Every daemon must be configured with the same limits: one without them claims the limited
/// kinds with the plain claim, uncounted.
extension DatabaseJobStorage {
    /// The advisory lock class of the limits (the two-key form: apart from the migrations'
    /// one-key lock).
    static let limitLockClass: Int32 = 0x6C69_6D74  // "limt"

    func claimNext(filter: ClaimFilter, upTo limit: Int) throws -> ClaimedRow? {
        guard !filter.limits.isEmpty else { return try claimNext(upTo: limit) }
        return try claimNext { try claimBatchWithinLimits(filter, upTo: batchSize(upTo: limit), stamp: $0) }
    }

    /// Claims of the kinds no limit covers, then of each limited kind; the claims that went
    /// through before one that throws carry the same stamp, and the next claim takes them
    /// (``claimNext(batch:)``).
    private func claimBatchWithinLimits(_ filter: ClaimFilter, upTo claimBatch: Int, stamp: () -> StoreValue) throws -> [ClaimedRow] {
        let limitedKinds = Set(filter.limits.keys.flatMap(filter.kinds(of:)))
        let kindsJSON = String(decoding: try JSONEncoder().encode(limitedKinds.sorted()), as: UTF8.self)
        let rows = try database.sessions.withSession { session -> [[StoreValue]] in
            let base: [StoreValue] = [.integer(daemonID), .integer(Int64(claimBatch)), .text(queueOfKindJSON), stamp()]
            var rows = try session.rows(
                JobTableStatements.claim(
                    filter: "AND (c.kind IS NULL OR c.kind <> ALL(ARRAY(SELECT jsonb_array_elements_text($5::jsonb))))"),
                base + [.text(kindsJSON)])
            guard rows.count < claimBatch else { return rows }
            try session.transaction {
                for scope in filter.limits.keys.sorted() {
                    try session.execute(
                        "SELECT pg_advisory_xact_lock($1::integer, hashtext($2))", [.integer(Int64(Self.limitLockClass)), .text(scope.description)])
                }
                for kind in limitedKinds.sorted() {
                    rows += try claimWithinLimits(kind: kind, filter, base, session)
                }
            }
            return rows
        }
        return decodeClaims(rows)
    }

    /// Claims due jobs of `kind`, as many as every limit that covers it has room for, and
    /// counts them against the rates; inside the caller's transaction, under the limits' locks.
    private func claimWithinLimits(kind: String, _ filter: ClaimFilter, _ base: [StoreValue], _ session: PostgresSession) throws -> [[StoreValue]] {
        var arguments = base + [.text(kind)]
        func parameter(_ value: StoreValue) -> String {
            arguments.append(value)
            return "$\(arguments.count)"
        }
        let covering = filter.limits.filter { filter.kinds(of: $0.key).contains(kind) }.sorted { $0.key < $1.key }
        var rooms: [String] = []
        for (scope, limit) in covering {
            if let maxRunning = limit.maxRunning {
                let kinds = String(decoding: try JSONEncoder().encode(filter.kinds(of: scope)), as: UTF8.self)
                rooms.append(
                    "GREATEST(0, \(parameter(.integer(Int64(maxRunning)))) - (SELECT count(*) FROM lineup_jobs AS r "
                        + "WHERE r.state = 'running' AND r.kind = ANY(ARRAY(SELECT jsonb_array_elements_text(\(parameter(.text(kinds)))::jsonb)))))")
            }
            if let rate = limit.rate {
                rooms.append(
                    "GREATEST(0, \(parameter(.integer(Int64(rate.jobs)))) - (SELECT count(*) FROM lineup_limit_claims AS l "
                        + "WHERE l.scope = \(parameter(.text(scope.description))) "
                        + "AND l.claimed_at > now() - make_interval(secs => \(parameter(.real(DaemonConfiguration.seconds(rate.period)))))))")
            }
        }
        let rows = try session.rows(
            JobTableStatements.claim(
                filter: "AND c.kind = $5", limit: "LEAST($2, \(rooms.joined(separator: ", ")))"),
            arguments)
        guard !rows.isEmpty else { return [] }
        for (scope, limit) in covering {
            guard let rate = limit.rate else { continue }
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
                let kinds = String(decoding: try JSONEncoder().encode(filter.kinds(of: scope)), as: UTF8.self)
                let row = try session.rows(
                    """
                    SELECT
                        (SELECT count(*) FROM lineup_jobs AS r WHERE r.state = 'running'
                            AND r.kind = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))),
                        (SELECT count(*) FROM lineup_limit_claims AS l WHERE l.scope = $2
                            AND l.claimed_at > now() - make_interval(secs => $3)),
                        EXISTS (SELECT 1 FROM lineup_jobs AS c WHERE c.state = 'queued' AND c.not_before <= now()
                            AND c.kind = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb))))::integer
                    """,
                    [.text(kinds), .text(scope.description), .real(limit.rate.map { DaemonConfiguration.seconds($0.period) } ?? 0)]
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
