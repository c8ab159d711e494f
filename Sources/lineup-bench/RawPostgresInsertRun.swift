import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The baseline of the PostgreSQL stack benchmark: the same rows written with postgres-nio the
/// plain fast way: multi-row INSERTs of 1,000 rows, one transaction, into a table of the same
/// shape as Lineup's (`PostgresStore`'s column types).
struct RawPostgresInsertRun {
    static let rowsPerStatement = 1_000

    let rows: Int
    let configuration: PostgresConnection.Configuration
    let location: String

    func run() throws -> RawInsertResult {
        let logger = Logger(label: "lineup-bench.baseline")
        let connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
        ).wait()
        defer { _ = try? connection.close().wait() }
        func execute(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws {
            _ = try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait()
        }
        try execute(
            """
            CREATE TABLE "BenchEntry" (pk BIGINT PRIMARY KEY, _version BIGINT NOT NULL, "date" DOUBLE PRECISION,
                "height" TEXT COLLATE "C", "period" TEXT COLLATE "C", "wind" TEXT COLLATE "C",
                "location" TEXT COLLATE "C", "rating" BIGINT)
            """)
        let columns = #"pk, _version, "date", "height", "period", "wind", "location", "rating""#
        var generator = BenchRowGenerator()
        let residentAtStart = ProcessMemory.residentBytes()
        let cpuAtStart = ProcessCPU.usedNanoseconds()
        let started = MonotonicClock.now()
        try execute("BEGIN")
        var written = 0
        while written < rows {
            let count = min(Self.rowsPerStatement, rows - written)
            var bindings = PostgresBindings(capacity: count * 8)
            var tuples: [String] = []
            tuples.reserveCapacity(count)
            for index in written..<(written + count) {
                let row = generator.next()
                let first = bindings.count + 1
                bindings.append(Int64(index + 1))
                bindings.append(Int64(index + 1))
                bindings.append(row.date)
                bindings.append(row.height)
                bindings.append(row.period)
                bindings.append(row.wind)
                bindings.append(row.location)
                bindings.append(row.rating.map(Int64.init))
                tuples.append("(" + (first..<(first + 8)).map { "$\($0)" }.joined(separator: ",") + ")")
            }
            try execute(#"INSERT INTO "BenchEntry" ("# + columns + ") VALUES " + tuples.joined(separator: ","), bindings)
            written += count
        }
        try execute("COMMIT")
        let elapsed = MonotonicClock.now() - started
        return RawInsertResult(
            rows: rows, elapsed: elapsed, residentAtStart: residentAtStart, peakResident: ProcessMemory.peakResidentBytes(),
            path: location, cpuTime: ProcessCPU.usedNanoseconds() - cpuAtStart)
    }

    /// What the stack benchmark compares to tell that both tables hold the same rows, whatever
    /// their keys: counts, sums and lengths, the sum of dates exact (`numeric`).
    static func digest(of configuration: PostgresConnection.Configuration) throws -> [String] {
        let logger = Logger(label: "lineup-bench.digest")
        let connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 2, logger: logger
        ).wait()
        defer { _ = try? connection.close().wait() }
        let sql = """
            SELECT concat_ws(' ', count(*), count(rating), sum(rating), sum(date::numeric),
                   sum(length(height)), sum(length(period)), sum(length(wind)), sum(length(location)),
                   sum(ascii(location) * rating))
            FROM "BenchEntry"
            """
        let result = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
        return try result.rows.map { try $0.decode(String.self) }
    }
}
