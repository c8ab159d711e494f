import Foundation

/// The figures of one benchmark run: a table for people, then `RESULT` lines for scripts
/// (DESIGN §7).
struct ResultTable {
    struct Row {
        var benchmark: String
        var lineup: String
        var baseline: String
        var ratio: String
        var target: String
        var verdict: String
    }

    private static let header = Row(
        benchmark: "benchmark", lineup: "Lineup", baseline: "baseline", ratio: "ratio", target: "target", verdict: "verdict")

    var rows: [Row] = []
    var notes: [String] = []
    var results: [String] = []

    mutating func append(_ other: ResultTable) {
        rows += other.rows
        notes += other.notes
        results += other.results
    }

    /// A row and a RESULT line comparing the CPU time (all threads) each side took for the same
    /// work: `ratio` is the baseline's CPU time over Lineup's, higher is better, as for speeds.
    mutating func append(
        cpuRow name: String, lineup: UInt64, lineupElapsed: UInt64, baseline: UInt64, baselineElapsed: UInt64, target: Double
    ) {
        let ratio = Double(baseline) / Double(max(lineup, 1))
        rows.append(
            Row(
                benchmark: name,
                lineup: "\(Format.seconds(lineup)) CPU in \(Format.seconds(lineupElapsed))",
                baseline: "\(Format.seconds(baseline)) CPU in \(Format.seconds(baselineElapsed))",
                ratio: Format.ratio(ratio), target: "ratio >= \(target)", verdict: BenchSupport.verdict(ratio >= target)))
        results.append(
            "RESULT \(name) lineup=\(Format.trimmed(MonotonicClock.seconds(lineup)))s baseline=\(Format.trimmed(MonotonicClock.seconds(baseline)))s ratio=\(Format.ratio(ratio))"
        )
    }

    /// The same table, from a run beside a spinning core (``BusyCore``): rows and notes say so,
    /// and each RESULT name gains `.busy` (`RESULT spool.throughput.busy …`).
    func markedBusyCore() -> ResultTable {
        var marked = self
        for index in marked.rows.indices where !marked.rows[index].benchmark.hasPrefix(" ") {
            marked.rows[index].benchmark += " [busy core]"
        }
        marked.notes = notes.map { "[busy core] " + $0 }
        marked.results = results.map { line in
            var words = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard words.count >= 2, words[0] == "RESULT" else { return line }
            words[1] += ".busy"
            return words.joined(separator: " ")
        }
        return marked
    }

    func render() -> String {
        let all = [Self.header] + rows
        let paths: [KeyPath<Row, String>] = [\.benchmark, \.lineup, \.baseline, \.ratio, \.target, \.verdict]
        let columns = paths.map { path in { (row: Row) in row[keyPath: path] } }
        let widths = columns.map { column in all.map { column($0).count }.max() ?? 0 }
        func line(_ row: Row) -> String {
            zip(columns, widths).map { column, width in
                column(row).padding(toLength: width, withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingSuffix(" ")
        }
        var output = [line(Self.header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        output += rows.map(line)
        if !notes.isEmpty {
            output.append("")
            output += notes.map { "  " + $0 }
        }
        output.append("")
        output += results
        return output.joined(separator: "\n")
    }
}

/// Number formats shared by the benchmarks.
enum Format {
    /// "412000" for a rate, as the RESULT lines want it.
    static func rate(_ perSecond: Double) -> String {
        String(Int(perSecond.rounded()))
    }

    /// "412,000/s" for people.
    static func groupedRate(_ perSecond: Double) -> String {
        grouped(Int(perSecond.rounded())) + "/s"
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// "0.08", "0.9", "3.1", "12.4", "250": about two significant digits, no trailing zeros.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        trimmed(MonotonicClock.milliseconds(nanoseconds))
    }

    static func trimmed(_ value: Double) -> String {
        let decimals = value < 1 ? 3 : value < 10 ? 2 : value < 100 ? 1 : 0
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    static func ratio(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    static func seconds(_ nanoseconds: UInt64) -> String {
        String(format: "%.2f s", MonotonicClock.seconds(nanoseconds))
    }

    static func megabytes(_ bytes: Int?) -> String {
        guard let bytes else { return "n/a" }
        return String(Int(ProcessMemory.megabytes(bytes).rounded())) + "MB"
    }
}

extension String {
    fileprivate func trimmingSuffix(_ character: Character) -> String {
        var result = self
        while result.last == character { result.removeLast() }
        return result
    }
}
