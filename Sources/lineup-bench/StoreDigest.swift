import Foundation

/// Checks that two stores hold the same rows of an entity: counts equal, and the sums of every
/// column equal to 1e-9 relative (the rows may be stored in a different primary-key order, and
/// a floating-point sum depends on the order).
enum StoreDigest {
    static func compareObservations(lineup: String, baseline: String) throws {
        let columns = ["time"] + RawBuoyImportRun.valueColumns
        let sql =
            "SELECT count(*), count(DISTINCT station), "
            + columns.map { "count(\"\($0)\"), total(\"\($0)\")" }.joined(separator: ", ")
            + " FROM \"BuoyObservation\""
        try compare(sql, lineup: lineup, baseline: baseline, what: "BuoyObservation")
    }

    static func compare(_ sql: String, lineup: String, baseline: String, what: String) throws {
        let left = try RawDatabase(path: lineup, readOnly: true).firstRow(sql)
        let right = try RawDatabase(path: baseline, readOnly: true).firstRow(sql)
        guard left.count == right.count else {
            throw BenchError(.verification, "\(what): the digests have different shapes")
        }
        for (index, (a, b)) in zip(left, right).enumerated() {
            guard let x = Double(a), let y = Double(b) else {
                guard a == b else { throw mismatch(what, index, left, right) }
                continue
            }
            if abs(x - y) > 1e-9 * max(abs(x), abs(y), 1) { throw mismatch(what, index, left, right) }
        }
    }

    private static func mismatch(_ what: String, _ index: Int, _ left: [String], _ right: [String]) -> BenchError {
        BenchError(
            .verification, "\(what): Lineup's store and the baseline differ at figure \(index + 1): \(left) vs \(right)")
    }
}
