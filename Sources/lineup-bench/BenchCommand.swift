import LineupAllocator

/// Runs the benchmark the command line names and returns the exit status.
enum BenchCommand {
    static func main(_ arguments: [String]) -> Int32 {
        let options: BenchOptions
        do {
            guard let parsed = try BenchOptions.parse(arguments) else {
                print(BenchOptions.usage)
                return 0
            }
            options = parsed
        } catch {
            progress("lineup-bench: \(error)\n\n\(BenchOptions.usage)")
            return 2
        }

        let selected = options.benchmark == .all ? BenchmarkName.allCases.filter { $0 != .all } : [options.benchmark]
        var table = ResultTable()
        var failed = false
        var missing: [BenchmarkName] = []
        for name in selected {
            do {
                guard let result = try run(name, options) else {
                    missing.append(name)
                    progress("lineup-bench: \(name.rawValue): not yet implemented")
                    continue
                }
                table.append(result)
                if options.busyCore {
                    progress("lineup-bench: \(name.rawValue) again, with a thread spinning on one core …")
                    let spinner = BusyCore()
                    let busy = try run(name, options)
                    spinner.stop()
                    if let busy { table.append(busy.markedBusyCore()) }
                }
            } catch {
                progress("lineup-bench: \(name.rawValue) failed: \(error)")
                failed = true
            }
        }
        if !table.rows.isEmpty {
            print(table.render())
            print("malloc of this process, Lineup's side and the baseline's alike: \(ProcessAllocator.current)")
        }
        if failed { return 1 }
        // Asked for alone, a benchmark that does not exist yet is a usage error; `all` runs what exists.
        if options.benchmark != .all && !missing.isEmpty { return 2 }
        return 0
    }

    /// The table of one benchmark, or nil for one that does not exist yet.
    private static func run(_ name: BenchmarkName, _ options: BenchOptions) throws -> ResultTable? {
        switch name {
        case .stack:
            return try StackBenchmark(options: options).run()
        case .postgres:
            return try PostgresStackBenchmark(options: options).run()
        case .postgresJobs:
            return try PostgresJobsBenchmark(options: options).run()
        case .spool:
            return try SpoolBenchmark(options: options).run()
        case .import:
            return try ImportBenchmark(options: options).run()
        case .export:
            return try ExportBenchmark(options: options).run()
        case .statistics:
            return try StatisticsBenchmark(options: options).run()
        case .all:
            preconditionFailure("`all` is expanded by the caller")
        }
    }
}
