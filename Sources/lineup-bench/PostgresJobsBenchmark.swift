import Dispatch
import Foundation
import LineupJobs
import LineupPostgres
import LineupLocking
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging

/// `lineup-bench postgres-jobs`: jobs per second through the jobs table of a PostgreSQL database
/// (issue 12), with 1, 2 and 4 daemons, beside a bare `FOR UPDATE SKIP LOCKED` loop with as many
/// workers, on the same table and the same jobs.
///
/// 1. A PostgreSQL server of the benchmark's own (`PostgresTestServer`), a new database a run.
/// 2. Lineup: K `JobDaemon`s in this process, each with a spool of its own and
///    `databaseURL` set, running no-op jobs; the jobs are inserted in one transaction once the
///    daemons run, and the time runs from that insert's commit until the last acknowledgement (a
///    job's `done` written in the transaction of the flush that carried it).
/// 3. Baseline: K threads, each on a connection of its own, each looping on one transaction per
///    job: claim the next job with `FOR UPDATE SKIP LOCKED`, mark it done, commit. What a queue
///    with no runner around it does.
struct PostgresJobsBenchmark {
    let options: BenchOptions
    static let daemonCounts = [1, 2, 4]

    func run() throws -> ResultTable {
        let server: PostgresTestServer
        do {
            server = try PostgresTestServer.shared()
        } catch {
            throw BenchError(.usage, "postgres-jobs needs a PostgreSQL server of its own (Debian's postgresql): \(error)")
        }
        defer { try? server.stop() }
        let directory = try BenchSupport.makeWorkDirectory(options, name: "postgres-jobs")
        defer { BenchSupport.finish(directory, options, name: "postgres-jobs") }
        let loadBefore = ProcessCPU.loadDescription()
        var table = ResultTable()
        for count in Self.daemonCounts {
            progress("postgres-jobs: Lineup, \(count) daemon(s), \(Format.grouped(options.databaseJobs)) jobs …")
            let lineup = try runDaemons(count, server: server, directory: directory.appending(path: "daemons-\(count)"))
            progress("postgres-jobs: bare SKIP LOCKED loop, \(count) worker(s) …")
            let baseline = try runBareLoop(count, server: server)
            let ratio = lineup / baseline
            table.rows.append(
                .init(
                    benchmark: "jobs.postgres, \(count) daemon\(count == 1 ? "" : "s")", lineup: "\(Format.groupedRate(lineup))/s",
                    baseline: "\(Format.groupedRate(baseline))/s", ratio: Format.ratio(ratio), target: "(measured)", verdict: ""))
            table.results.append(
                "RESULT jobs.postgres.daemons\(count) lineup=\(Format.rate(lineup))/s baseline=\(Format.rate(baseline))/s ratio=\(Format.ratio(ratio))")
        }
        table.notes = [
            "jobs: \(Format.grouped(options.databaseJobs)) no-op jobs a run, inserted in one transaction into a new database's lineup_jobs.",
            "Lineup: K JobDaemons in this process (databaseURL set, \(ProcessInfo.processInfo.activeProcessorCount) jobs at once each), from the insert's commit until the last job's acknowledgement, which is written in its flush's transaction.",
            "baseline: K threads, each on its own connection, one transaction a job: UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1), then UPDATE … SET state = 'done', COMMIT.",
            "server: a cluster of the benchmark's own on 127.0.0.1 (fsync=off), on the same cores as the daemons; machine: \(loadBefore) before, \(ProcessCPU.loadDescription()) after.",
        ]
        return table
    }

    // MARK: - Lineup

    private func runDaemons(_ count: Int, server: PostgresTestServer, directory: URL) throws -> Double {
        let databaseURL = try newDatabase(server)
        let acknowledged = Locked(0)
        let allAcknowledged = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let expected = options.databaseJobs
        var daemons: [(JobDaemon, DispatchSemaphore)] = []
        for number in 0..<count {
            let root = try BenchSupport.makeDirectory(directory.appending(path: "daemon-\(number)"))
            var configuration = DaemonConfiguration(
                storeURL: root.appending(path: "unused.sqlite"), spoolURL: root.appending(path: "spool"), inputDirectory: root,
                outputDirectory: root)
            configuration.databaseURL = databaseURL
            configuration.spoolDurability = .none
            configuration.logLevel = .warning
            let daemon = JobDaemon(
                configuration: configuration, registry: NoOpJobTask.registry(recorder: PickupRecorder(capacity: expected)),
                model: ManagedObjectModel(BenchEntry.self), logger: BenchSupport.logger())
            let events = daemon.events()
            Task {
                for await event in events {
                    switch event {
                    case .started: started.signal()
                    case .jobAcknowledged:
                        if acknowledged.withLock({ $0 += 1; return $0 }) == expected { allAcknowledged.signal() }
                    default: break
                    }
                }
            }
            let stopped = DispatchSemaphore(value: 0)
            Task {
                do { try await daemon.run() } catch { progress("postgres-jobs: a daemon's run failed: \(error)") }
                stopped.signal()
            }
            daemons.append((daemon, stopped))
        }
        defer {
            for (daemon, stopped) in daemons {
                daemon.requestShutdown()
                _ = stopped.wait(timeout: .now() + 60)
            }
        }
        for _ in 0..<count {
            guard started.wait(timeout: .now() + 60) == .success else { throw BenchError(.lineup, "a daemon did not start") }
        }
        let jobs = try JobDatabase(url: databaseURL, logger: BenchSupport.logger())
        defer { jobs.close() }
        let submissions = try (0..<expected).map { number in
            JobDatabase.Submission(
                name: "noop-\(number)",
                contents: try JobFile(kind: NoOpJobTask.kind, parameters: ["enqueuedAt": .integer(Int(MonotonicClock.now()))]).encoded())
        }
        // Timed from the insert's commit, as the baseline is timed with its jobs in the table.
        try jobs.enqueue(submissions)
        let began = MonotonicClock.now()
        guard allAcknowledged.wait(timeout: .now() + 600) == .success else {
            throw BenchError(.lineup, "\(acknowledged.withLock { $0 }) of \(expected) jobs acknowledged after 600 s")
        }
        let elapsed = MonotonicClock.now() - began
        let done = try jobs.counts().done
        guard done == expected else {
            throw BenchError(.verification, "\(done) jobs done in the table, not \(expected)")
        }
        return Double(expected) / MonotonicClock.seconds(elapsed)
    }

    // MARK: - The bare loop

    private func runBareLoop(_ count: Int, server: PostgresTestServer) throws -> Double {
        let databaseURL = try newDatabase(server)
        let logger = BenchSupport.logger()
        let jobs = try JobDatabase(url: databaseURL, logger: logger)
        defer { jobs.close() }
        let contents = try JobFile(kind: NoOpJobTask.kind, parameters: ["enqueuedAt": 0]).encoded()
        try jobs.enqueue((0..<options.databaseJobs).map { JobDatabase.Submission(name: "noop-\($0)", contents: contents) })
        let sessions = try (0..<count).map { _ in try PostgresSession.connect(to: databaseURL, logger: logger) }
        defer { for session in sessions { session.close() } }
        let failure = Locked<String?>(nil)
        let began = MonotonicClock.now()
        DispatchQueue.concurrentPerform(iterations: count) { worker in
            let session = sessions[worker]
            do {
                while true {
                    let claimed = try session.transaction {
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
                    if !claimed { return }
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        let elapsed = MonotonicClock.now() - began
        if let failure = failure.withLock({ $0 }) { throw BenchError(.verification, "the bare loop failed: \(failure)") }
        let done = try jobs.counts().done
        guard done == options.databaseJobs else {
            throw BenchError(.verification, "the bare loop left \(done) jobs done, not \(options.databaseJobs)")
        }
        return Double(options.databaseJobs) / MonotonicClock.seconds(elapsed)
    }

    private func newDatabase(_ server: PostgresTestServer) throws -> URL {
        URL(string: server.url(database: try server.createDatabase()))!
    }
}
