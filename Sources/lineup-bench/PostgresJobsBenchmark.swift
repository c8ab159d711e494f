import Dispatch
import Foundation
import LineupJobs
import LineupPostgres
import LineupLocking
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging

/// `lineup-bench postgres-jobs`: no-op jobs per second through the jobs table of a PostgreSQL
/// database, with K daemons as processes (`--daemons`, default 1, 2, 4), beside a bare
/// `FOR UPDATE SKIP LOCKED` loop with K workers and PgQueuer with K worker processes, in the
/// same run, on the same server.
///
/// 1. A PostgreSQL server of the benchmark's own (`PostgresTestServer`), a new database a run.
/// 2. The table: `--backlog` queued jobs beside the `--db-jobs` measured ones (all due, all
///    no-ops), and `--done-rows` done jobs of an earlier history (default ten a queued one).
/// 3. Lineup: K bench daemons (``BenchDaemonProcess``), each a process with a spool of its own
///    and `databaseURL` set. They start while the benchmark holds the table locked against
///    writers, so their first claims wait at the lock; once all listen, the lock goes and the
///    time runs until they have
///    acknowledged `--db-jobs` jobs (a job's `done` written in the transaction of the flush that
///    carried it). Each daemon reports its jobs and its claim statements: how many found
///    nothing (what a notification to every daemon wastes) and their p99. With a backlog or a
///    history, the same daemons run again on an empty table, to show what they cost the claims.
/// 4. Baseline (unless `--no-baseline`): K threads, each on a connection of its own, looping on
///    one transaction per job: claim the next job with `FOR UPDATE SKIP LOCKED`, mark it done,
///    commit; on the same table.
/// 5. PgQueuer (unless `--no-peer`): `scripts/pgqueuer-peer.py` in a venv the benchmark
///    makes, K worker processes in drain mode, batch size 10, over `--db-jobs` jobs.
struct PostgresJobsBenchmark {
    let options: BenchOptions
    /// The PgQueuer release issue 35 measured Lineup against.
    static let pgqueuerVersion = "1.6.0"
    /// How far a backlog and its history may slow the claims down against an empty table
    /// (issue 35, item 1): in jobs a second, and in the claims' p99.
    static let backlogBound = 1.5
    static let noOpContents: Data = (try? JobFile(kind: NoOpJobTask.kind, parameters: ["enqueuedAt": 0]).encoded()) ?? Data()

    func run() throws -> ResultTable {
        let directory = try BenchSupport.makeWorkDirectory(options, name: "postgres-jobs")
        defer { BenchSupport.finish(directory, options, name: "postgres-jobs") }
        let loadBefore = ProcessCPU.loadDescription()
        let peer = options.comparesWithPeer ? PgQueuerPeer.prepare(in: directory) : .failure(BenchError(.usage, "--no-peer"))
        var table = ResultTable()
        for syncs in options.serverSyncs {
            let server: PostgresTestServer
            do {
                // The tests' shared server does not sync; a server that does is one of our own.
                server = try syncs ? PostgresTestServer.startPrivate(settings: ["fsync=on"]) : PostgresTestServer.shared()
            } catch {
                throw BenchError(.usage, "postgres-jobs needs a PostgreSQL server of its own (Debian's postgresql): \(error)")
            }
            defer { try? server.stop() }
            try run(on: server, syncs: syncs, peer: peer, directory: directory.appending(path: syncs ? "fsync-on" : "fsync-off"), into: &table)
        }
        table.notes = notes(peer: peer, loadBefore: loadBefore)
        return table
    }

    /// The runs of each `--daemons` count on `server`, whose commits are synced to disk when
    /// `syncs` (their names end in `.fsync`).
    private func run(
        on server: PostgresTestServer, syncs: Bool, peer: Result<PgQueuerPeer, BenchError>, directory: URL, into table: inout ResultTable
    ) throws {
        let jobs = options.databaseJobs
        let history = options.history
        let suffix = (options.claimWindow.map { ".window\($0)" } ?? "") + (options.prunesDuringRun ? ".prune" : "") + (syncs ? ".fsync" : "")
        let label = syncs ? ", fsync on" : ""
        for count in options.databaseDaemons {
            let name = "daemons\(count)" + (options.backlog > 0 ? ".backlog\(options.backlog)" : "") + suffix
            progress("postgres-jobs: Lineup, \(count) daemon process(es), \(Format.grouped(jobs)) jobs, \(history)\(label) …")
            let lineup = try runDaemons(
                count, server: server, history: history, prunes: options.prunesDuringRun, directory: directory.appending(path: "daemons-\(count)"))
            var baseline: Double?
            if options.comparesWithBareLoop {
                progress("postgres-jobs: bare SKIP LOCKED loop, \(count) worker(s)\(label) …")
                baseline = try runBareLoop(count, server: server, history: history)
            }
            let comparison = baseline.map { (baseline: $0, ratio: lineup.jobsPerSecond / $0) }
            table.rows.append(
                .init(
                    benchmark: "jobs.postgres, \(count) daemon\(count == 1 ? "" : "s")\(label)", lineup: Format.groupedRate(lineup.jobsPerSecond),
                    baseline: comparison.map { Format.groupedRate($0.baseline) } ?? "-", ratio: comparison.map { Format.ratio($0.ratio) } ?? "-",
                    target: "(measured)", verdict: ""))
            table.results.append(
                "RESULT jobs.postgres.\(name) lineup=\(Format.rate(lineup.jobsPerSecond))/s "
                    + (comparison.map { "baseline=\(Format.rate($0.baseline))/s ratio=\(Format.ratio($0.ratio)) " } ?? "")
                    + "claims=\(lineup.claims) empty_claims=\(lineup.emptyClaims) "
                    + "claim_p50_ms=\(Self.milliseconds(lineup.claimP50Microseconds)) "
                    + "claim_p99_ms=\(Self.milliseconds(lineup.claimP99Microseconds)) "
                    + "jobs_per_daemon=\(lineup.fewestJobs)..\(lineup.mostJobs) "
                    + "connections_per_daemon=\(String(format: "%.1f", lineup.connectionsPerDaemon)) "
                    + "table_mb=\(lineup.size.tableMegabytes) indexes_mb=\(lineup.size.indexMegabytes) dead_tuples=\(lineup.size.deadTuples)"
                    + (lineup.pruned.map { " pruned=\($0)" } ?? ""))
            if !history.isEmpty {
                progress("postgres-jobs: Lineup, \(count) daemon process(es), \(Format.grouped(jobs)) jobs, on an empty table\(label) …")
                let empty = try runDaemons(
                    count, server: server, history: .empty, prunes: false, directory: directory.appending(path: "daemons-\(count)-empty"))
                let throughputRatio = lineup.jobsPerSecond / empty.jobsPerSecond
                let p99Ratio = Double(lineup.claimP99Microseconds) / Double(max(1, empty.claimP99Microseconds))
                let withinBound = throughputRatio >= 1 / Self.backlogBound && p99Ratio <= Self.backlogBound
                table.rows.append(
                    .init(
                        benchmark: "jobs.postgres, \(count) daemon\(count == 1 ? "" : "s")\(label), \(history) vs empty table",
                        lineup: "\(Format.groupedRate(lineup.jobsPerSecond)), p99 \(Self.milliseconds(lineup.claimP99Microseconds)) ms",
                        baseline: "\(Format.groupedRate(empty.jobsPerSecond)), p99 \(Self.milliseconds(empty.claimP99Microseconds)) ms",
                        ratio: Format.ratio(throughputRatio), target: "within \(Self.backlogBound)× (jobs/s and p99)", verdict: BenchSupport.verdict(withinBound)))
                table.results.append(
                    "RESULT jobs.postgres.\(name).vs_empty lineup=\(Format.rate(lineup.jobsPerSecond))/s empty=\(Format.rate(empty.jobsPerSecond))/s "
                        + "ratio=\(Format.ratio(throughputRatio)) claim_p99_ms=\(Self.milliseconds(lineup.claimP99Microseconds)) "
                        + "empty_claim_p99_ms=\(Self.milliseconds(empty.claimP99Microseconds)) p99_ratio=\(Format.ratio(p99Ratio))")
            }
            switch peer {
            case let .success(peer):
                do {
                    let rounds = try peerRounds(
                        count, first: lineup.jobsPerSecond, peer: peer, server: server, history: history, label: label,
                        directory: directory.appending(path: "daemons-\(count)-rounds"))
                    let (lineupRate, pgqueuerRate) = (Self.median(rounds.lineup), Self.median(rounds.pgqueuer))
                    let peerRatio = lineupRate / pgqueuerRate
                    let perRound = rounds.lineup.count == 1 ? "" : ", medians of \(rounds.lineup.count) rounds"
                    table.rows.append(
                        .init(
                            benchmark: "jobs.postgres vs PgQueuer, \(count) worker\(count == 1 ? "" : "s")\(label)\(perRound)",
                            lineup: Format.groupedRate(lineupRate), baseline: Format.groupedRate(pgqueuerRate),
                            ratio: Format.ratio(peerRatio), target: ">= 1", verdict: BenchSupport.verdict(peerRatio >= 1)))
                    table.results.append(
                        "RESULT jobs.postgres.pgqueuer.workers\(count)\(suffix) lineup=\(Format.rate(lineupRate))/s "
                            + "pgqueuer=\(Format.rate(pgqueuerRate))/s ratio=\(Format.ratio(peerRatio)) rounds=\(rounds.lineup.count) "
                            + "lineup_rounds=\(rounds.lineup.map(Format.rate).joined(separator: ",")) "
                            + "pgqueuer_rounds=\(rounds.pgqueuer.map(Format.rate).joined(separator: ","))")
                } catch {
                    progress("postgres-jobs: PgQueuer failed: \(error)")
                }
            case .failure:
                break
            }
        }
    }

    /// Lineup's and PgQueuer's jobs a second at `count` workers, `--peer-rounds` of each, taking
    /// turns (Lineup's first round is the count's own run, `first`): a run of 20,000 jobs lasts
    /// about three seconds, and on a shared machine one such run of either swings by a fifth.
    private func peerRounds(
        _ count: Int, first: Double, peer: PgQueuerPeer, server: PostgresTestServer, history: TableHistory, label: String,
        directory: URL
    ) throws -> (lineup: [Double], pgqueuer: [Double]) {
        let rounds = options.peerRounds
        var lineup = [first]
        var pgqueuer: [Double] = []
        for round in 1...rounds {
            let ofRounds = rounds == 1 ? "" : ", round \(round) of \(rounds)"
            if round > 1 {
                progress("postgres-jobs: Lineup, \(count) daemon process(es)\(label)\(ofRounds) …")
                lineup.append(
                    try runDaemons(
                        count, server: server, history: history, prunes: options.prunesDuringRun,
                        directory: directory.appending(path: "round-\(round)")
                    ).jobsPerSecond)
            }
            progress("postgres-jobs: PgQueuer \(Self.pgqueuerVersion), \(count) worker process(es)\(label)\(ofRounds) …")
            pgqueuer.append(try peer.run(jobs: options.databaseJobs, workers: count, databaseURL: try newDatabase(server)))
        }
        return (lineup, pgqueuer)
    }

    /// The middle value (the mean of the two middle ones for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// "2.70" for a claim time kept in microseconds, as the RESULT lines give it.
    private static func milliseconds(_ microseconds: Int) -> String {
        String(format: "%.2f", Double(microseconds) / 1_000)
    }

    private func notes(peer: Result<PgQueuerPeer, BenchError>, loadBefore: String) -> [String] {
        let jobs = options.databaseJobs
        let history = options.history
        var notes = [
            "jobs: \(Format.grouped(jobs)) no-op jobs timed a run, in a new database's lineup_jobs with a \(history); every job due.",
            "Lineup: K bench daemons, each a process (\(ProcessInfo.processInfo.activeProcessorCount) jobs at once each, claim window \(options.claimWindow.map(String.init) ?? "the default: max(8, 4 × jobs at once), widened up to 16 times while jobs take less than a claim's round trip")), from the release of the table lock their first claims wait at until \(Format.grouped(jobs)) acknowledgements (each written in its flush's transaction). claims: claim statements of all daemons, empty_claims those that found nothing; jobs_per_daemon: fewest..most; connections_per_daemon: the server's connections to the database once all listened, over K.",
            options.comparesWithBareLoop
                ? "baseline: K threads, each on its own connection, one transaction a job: UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1), then UPDATE … SET state = 'done', COMMIT."
                : "baseline: not run (--no-baseline).",
            "table_mb, indexes_mb, dead_tuples: lineup_jobs after the daemons' run (pg_table_size, pg_indexes_size, pg_stat_user_tables.n_dead_tup); the table is vacuumed once filled, then left to autovacuum (the server's defaults, and job-table migration 7's settings for lineup_jobs); each run's database is dropped once measured.",
            "server: a cluster of the benchmark's own on 127.0.0.1, on the same cores as the daemons, with fsync=off, or on (and synchronous_commit on) in the runs marked fsync (--server-fsync); machine: \(loadBefore) before, \(ProcessCPU.loadDescription()) after.",
        ]
        switch peer {
        case .success:
            notes.append(
                "PgQueuer \(Self.pgqueuerVersion) (Python, asyncpg, from PyPI, in a venv of the benchmark's): \(Format.grouped(jobs)) no-op jobs inserted first, K worker processes in drain mode, batch size 10, timed from their start together until the last has drained; its acknowledgements are buffered, Lineup's ride in the flush's transaction. At each count Lineup and PgQueuer run \(options.peerRounds == 1 ? "once" : "\(options.peerRounds) times") each, taking turns, each on a new database; a vs PgQueuer row compares their medians, and its RESULT line lists every round.")
        case let .failure(error):
            notes.append("PgQueuer: not run (\(error)).")
        }
        if !history.isEmpty {
            notes.append(
                "vs_empty: the same K daemons and \(Format.grouped(jobs)) jobs on a new table with no backlog and no history, run right after; ratio = jobs/s with the \(history) over jobs/s on the empty table, p99_ratio = the claims' p99 with them over without; within \(Self.backlogBound)× in both is the bound of issue 35, item 1.")
        }
        if options.prunesDuringRun {
            notes.append("prune: while the daemons run, a connection of its own deletes the done rows of the history (JobDatabase.pruneDoneBatch, 1,000 rows a transaction), until none is left or the run ends; pruned: the rows it deleted.")
        }
        return notes
    }

    // MARK: - The table

    /// What a run's table holds beside the measured jobs.
    struct TableHistory: CustomStringConvertible {
        /// Queued jobs, all due, beside the measured ones.
        var backlog: Int
        /// Done jobs of an earlier history.
        var doneRows: Int

        static let empty = TableHistory(backlog: 0, doneRows: 0)

        var isEmpty: Bool { backlog == 0 && doneRows == 0 }

        var description: String {
            "backlog \(Format.grouped(backlog)), done rows \(Format.grouped(doneRows))"
        }
    }

    /// Fills the table with the measured jobs, the backlog and the history,
    /// in one statement each, then vacuums it and has the planner's statistics made: a table that
    /// grew to its size over time has been vacuumed along the way, while a table filled in one go
    /// would have its first vacuum, of every row, start during the timed run and take the cores
    /// (that is what a 10,000,000-row history measured before it did this).
    private func prepareTable(_ server: PostgresTestServer, database: String, history: TableHistory) throws {
        let contents = String(decoding: Self.noOpContents, as: UTF8.self).replacingOccurrences(of: "'", with: "''")
        var script = """
            INSERT INTO lineup_jobs (name, kind, contents, not_before)
                SELECT 'noop-' || g, '\(NoOpJobTask.kind)', convert_to('\(contents)', 'UTF8'), now() - interval '1 minute'
                FROM generate_series(1, \(options.databaseJobs + history.backlog)) AS g;
            """
        if history.doneRows > 0 {
            script += """
                INSERT INTO lineup_jobs (name, kind, contents, state, claims, finished_at, report)
                    SELECT 'history-' || g, 'history', convert_to('{}', 'UTF8'), 'done', 1, now() - g * interval '1 millisecond', '{}'
                    FROM generate_series(1, \(history.doneRows)) AS g;
                """
        }
        _ = try server.psql(script, database: database)
        // A statement of its own: VACUUM refuses to run in the transaction of a script.
        _ = try server.psql("VACUUM (ANALYZE) lineup_jobs", database: database)
    }

    /// What the jobs table holds on disk once a run has gone through it.
    struct TableSize {
        var tableMegabytes: Int
        var indexMegabytes: Int
        var deadTuples: Int
    }

    private func tableSize(_ server: PostgresTestServer, database: String) throws -> TableSize {
        let fields = try server.psql(
            """
            SELECT pg_table_size('lineup_jobs') / 1048576, pg_indexes_size('lineup_jobs') / 1048576, n_dead_tup
            FROM pg_stat_user_tables WHERE relname = 'lineup_jobs'
            """, database: database
        ).split(separator: "|").map { Int($0) ?? -1 }
        guard fields.count == 3 else { return TableSize(tableMegabytes: -1, indexMegabytes: -1, deadTuples: -1) }
        return TableSize(tableMegabytes: fields[0], indexMegabytes: fields[1], deadTuples: fields[2])
    }

    // MARK: - Lineup

    struct DaemonsRun {
        var jobsPerSecond: Double
        var claims: Int
        var emptyClaims: Int
        /// The median of the daemons' medians, and the highest of their p99s.
        var claimP50Microseconds: Int
        var claimP99Microseconds: Int
        var fewestJobs: Int
        var mostJobs: Int
        var size: TableSize
        /// The server's connections to the database once every daemon listens, a daemon.
        var connectionsPerDaemon: Double
        /// The history's rows that the prune beside the run deleted (`--prune`); nil without one.
        var pruned: Int?
    }

    /// K bench daemons over a new table with `history`, timed until they have acknowledged the
    /// measured jobs; with `prunes`, a prune of the history runs beside them.
    private func runDaemons(_ count: Int, server: PostgresTestServer, history: TableHistory, prunes: Bool, directory: URL) throws -> DaemonsRun {
        let database = try server.createDatabase()
        // Gone once measured, so that no earlier run's table is vacuumed beside the next run.
        defer { try? server.dropDatabase(database) }
        let databaseURL = URL(string: server.url(database: database))!
        // The tables, as a daemon makes them.
        try JobDatabase(url: databaseURL, logger: BenchSupport.logger()).close()
        try prepareTable(server, database: database, history: history)
        // The daemons start while this transaction holds the table in EXCLUSIVE mode, which lets
        // them read and not write: their first claims wait at the lock, and go together when it
        // commits. (A paused kind, the other way to hold them, has every claim read the whole
        // backlog past the paused jobs.)
        let starter = try PostgresSession.connect(to: databaseURL, logger: BenchSupport.logger())
        defer { starter.close() }
        _ = try starter.execute("BEGIN")
        _ = try starter.execute("LOCK TABLE lineup_jobs IN EXCLUSIVE MODE")
        guard case .integer(let starterProcess)? = try starter.rows("SELECT pg_backend_pid()").first?.first else {
            throw BenchError(.lineup, "the server did not say which process holds the start lock")
        }
        let daemons = try (0..<count).map { number in
            try BenchDaemonChild(
                databaseURL: databaseURL, root: try BenchSupport.makeDirectory(directory.appending(path: "daemon-\(number)")),
                claimWindow: options.claimWindow)
        }
        var stopped = false
        func stopAll() -> [BenchDaemonChild.Totals?] {
            stopped = true
            for daemon in daemons { daemon.stop() }
            return daemons.map { $0.totals(within: .seconds(120)) }
        }
        defer { if !stopped { _ = stopAll() } }
        let deadline = ContinuousClock.now + .seconds(120)
        while !daemons.allSatisfy(\.isReady) {
            guard ContinuousClock.now < deadline else { throw BenchError(.lineup, "the bench daemons did not all start within 120 s") }
            guard !daemons.contains(where: \.hasEnded) else { throw BenchError(.lineup, "a bench daemon ended before it started (its error is above)") }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let connections = Double(
            try server.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid NOT IN (pg_backend_pid(), \(starterProcess))",
                database: database)) ?? 0
        let expected = options.databaseJobs
        // Only the history finished before this: the measured jobs finish after it.
        let prune = prunes ? try PruneBesideRun(databaseURL: databaseURL, finishedBefore: Date()) : nil
        let began = MonotonicClock.now()
        _ = try starter.execute("COMMIT")
        // A daemon that had not sent its first claim yet hears this.
        _ = try server.psql("SELECT pg_notify('lineup_jobs', '')", database: database)
        prune?.start()
        let timeout = ContinuousClock.now + .seconds(1_800)
        while daemons.reduce(0, { $0 + $1.acknowledged }) < expected {
            guard ContinuousClock.now < timeout else {
                throw BenchError(.lineup, "\(daemons.reduce(0) { $0 + $1.acknowledged }) of \(expected) jobs acknowledged after 1,800 s")
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        let elapsed = MonotonicClock.now() - began
        let pruned = try prune?.stop()
        let totals = stopAll()
        guard totals.allSatisfy({ $0 != nil }) else { throw BenchError(.lineup, "a bench daemon did not stop cleanly") }
        let stoppedTotals = totals.compactMap { $0 }
        let acknowledged = stoppedTotals.reduce(0) { $0 + $1.acknowledged }
        let done = Int(try server.psql("SELECT count(*) FROM lineup_jobs WHERE kind = '\(NoOpJobTask.kind)' AND state = 'done'", database: database)) ?? -1
        guard done == acknowledged else {
            throw BenchError(.verification, "\(done) no-op jobs done in the table, where the daemons acknowledged \(acknowledged)")
        }
        return DaemonsRun(
            jobsPerSecond: Double(expected) / MonotonicClock.seconds(elapsed),
            claims: stoppedTotals.reduce(0) { $0 + $1.claims }, emptyClaims: stoppedTotals.reduce(0) { $0 + $1.emptyClaims },
            claimP50Microseconds: stoppedTotals.map(\.claimP50Microseconds).sorted()[stoppedTotals.count / 2],
            claimP99Microseconds: stoppedTotals.map(\.claimP99Microseconds).max() ?? 0,
            fewestJobs: stoppedTotals.map(\.acknowledged).min() ?? 0, mostJobs: stoppedTotals.map(\.acknowledged).max() ?? 0,
            size: try tableSize(server, database: database), connectionsPerDaemon: connections / Double(count), pruned: pruned)
    }

    // MARK: - The bare loop

    private func runBareLoop(_ count: Int, server: PostgresTestServer, history: TableHistory) throws -> Double {
        let database = try server.createDatabase()
        defer { try? server.dropDatabase(database) }
        let databaseURL = URL(string: server.url(database: database))!
        let logger = BenchSupport.logger()
        try JobDatabase(url: databaseURL, logger: logger).close()
        try prepareTable(server, database: database, history: history)
        let sessions = try (0..<count).map { _ in try PostgresSession.connect(to: databaseURL, logger: logger) }
        defer { for session in sessions { session.close() } }
        let failure = Locked<String?>(nil)
        let claimed = Locked(0)
        let expected = options.databaseJobs
        let began = MonotonicClock.now()
        DispatchQueue.concurrentPerform(iterations: count) { worker in
            let session = sessions[worker]
            do {
                while claimed.withLock({ claimed in
                    guard claimed < expected else { return false }
                    claimed += 1
                    return true
                }) {
                    let done = try session.transaction {
                        let rows = try session.rows(
                            """
                            UPDATE lineup_jobs SET state = 'running', claimed_at = now(), claims = claims + 1
                            WHERE id = (SELECT id FROM lineup_jobs WHERE state = 'queued' AND not_before <= now()
                                        ORDER BY priority, not_before, id LIMIT 1 FOR UPDATE SKIP LOCKED)
                            RETURNING id, contents
                            """)
                        guard let row = rows.first else { return false }
                        try session.execute(
                            "UPDATE lineup_jobs SET state = 'done', finished_at = now() WHERE id = $1", [row[0]])
                        return true
                    }
                    if !done { throw BenchError(.verification, "the bare loop found no job to claim") }
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        let elapsed = MonotonicClock.now() - began
        if let failure = failure.withLock({ $0 }) { throw BenchError(.verification, "the bare loop failed: \(failure)") }
        let done = try server.psql("SELECT count(*) FROM lineup_jobs WHERE kind = '\(NoOpJobTask.kind)' AND state = 'done'", database: database)
        guard done == "\(expected)" else {
            throw BenchError(.verification, "the bare loop left \(done) jobs done, not \(expected)")
        }
        return Double(expected) / MonotonicClock.seconds(elapsed)
    }

    private func newDatabase(_ server: PostgresTestServer) throws -> URL {
        URL(string: server.url(database: try server.createDatabase()))!
    }
}
