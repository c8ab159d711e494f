import Foundation
import LineupTestSupport
import PostgresNIO

/// `lineup-bench postgres`: the stack benchmark on PostgreSQL (issue 12).
///
/// 1. A PostgreSQL server of the benchmark's own (`PostgresTestServer`), two new databases.
/// 2. Lineup: the stack benchmark's import (``LineupInsertRun``) into `PostgresStore`.
/// 3. Baseline: the same rows through postgres-nio alone, multi-row INSERTs, one transaction.
/// 4. Both tables are read back and must hold the same values.
struct PostgresStackBenchmark {
    let options: BenchOptions

    func run() throws -> ResultTable {
        let server: PostgresTestServer
        let lineupDatabase: String
        let baselineDatabase: String
        do {
            server = try PostgresTestServer.shared()
            lineupDatabase = try server.createDatabase()
            baselineDatabase = try server.createDatabase()
        } catch {
            throw BenchError(.usage, "postgres needs a PostgreSQL server of its own (Debian's postgresql): \(error)")
        }
        defer { try? server.stop() }
        let loadBefore = ProcessCPU.loadDescription()
        progress("postgres: Lineup, \(Format.grouped(options.rows)) rows in chunks of \(Format.grouped(options.chunk)) …")
        let lineup = try LineupInsertRun(
            rows: options.rows, chunkSize: options.chunk, flushMode: options.flushMode,
            storeURL: URL(string: server.url(database: lineupDatabase))!
        ).run()
        progress("postgres: raw postgres-nio baseline, \(Format.grouped(options.rows)) rows …")
        let baselineConfiguration = configuration(server, baselineDatabase)
        let baseline = try RawPostgresInsertRun(
            rows: options.rows, configuration: baselineConfiguration, location: server.url(database: baselineDatabase)
        ).run()

        let lineupDigest = try RawPostgresInsertRun.digest(of: configuration(server, lineupDatabase))
        let baselineDigest = try RawPostgresInsertRun.digest(of: baselineConfiguration)
        guard lineupDigest == baselineDigest else {
            throw BenchError(
                .verification, "Lineup's database and the baseline's hold different rows: \(lineupDigest) vs \(baselineDigest)")
        }
        var table = ResultTable()
        let ratio = lineup.rowsPerSecond / baseline.rowsPerSecond
        let cpuRatio = Double(baseline.cpuTime) / Double(max(lineup.cpuTime, 1))
        table.rows.append(
            .init(
                benchmark: "stack.postgres.insert",
                lineup: "\(Format.groupedRate(lineup.rowsPerSecond)) (\(Format.seconds(lineup.elapsed)))",
                baseline: "\(Format.groupedRate(baseline.rowsPerSecond)) (\(Format.seconds(baseline.elapsed)))",
                ratio: Format.ratio(ratio), target: "(measured)", verdict: ""))
        table.rows.append(
            .init(
                benchmark: "  CPU time, this process", lineup: Format.seconds(lineup.cpuTime),
                baseline: Format.seconds(baseline.cpuTime), ratio: Format.ratio(cpuRatio), target: "(measured)", verdict: ""))
        table.results.append(
            "RESULT stack.postgres.insert lineup=\(Format.rate(lineup.rowsPerSecond))/s baseline=\(Format.rate(baseline.rowsPerSecond))/s ratio=\(Format.ratio(ratio))"
        )
        table.notes = [
            "rows: \(Format.grouped(options.rows)) BenchEntry objects, the stack benchmark's rows, identical for both sides (checked by reading both tables back).",
            "Lineup: PersistentContainer(postgresURL: postgres://…), \(lineup.chunks) task contexts of up to \(Format.grouped(options.chunk)) objects, flushes: \(options.flushMode.explanation); time from the first insert until the last row is committed.",
            "baseline: postgres-nio alone, INSERTs of \(RawPostgresInsertRun.rowsPerStatement) rows each, one transaction; time from BEGIN until COMMIT returns.",
            "server: a cluster of the benchmark's own on 127.0.0.1 (fsync=off for both sides alike), PostgreSQL's own CPU time not counted; machine: \(loadBefore) before, \(ProcessCPU.loadDescription()) after.",
        ]
        return table
    }

    private func configuration(_ server: PostgresTestServer, _ database: String) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: nil, database: database, tls: .disable)
    }
}
