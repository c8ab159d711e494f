import Foundation

/// The command line of `lineup-bench`, parsed by hand: a benchmark name and a few options.
struct BenchOptions {
    static let usage = """
        usage: lineup-bench NAME [options]

        NAME: stack | postgres | postgres-jobs | spool | import | export | statistics | all

        postgres is the stack benchmark on PostgreSQL, postgres-jobs the jobs of daemon processes
        on one database beside a bare SKIP LOCKED loop and PgQueuer; both against a server they
        start themselves (Debian's postgresql must be installed).

        options:
          --rows N        rows to insert (stack, postgres), or JournalEntry rows of the store (export,
                          statistics); default 1000000
          --chunk N       objects per task context (stack; default 10000)
          --flush MODE    background (default): a flush loop of its own, woken after every chunk
                          chunk: the importer flushes after every chunk and waits for the disk
          --jobs N        no-op jobs of the throughput run (spool; default 100000)
          --db-jobs N     no-op jobs timed in each run (postgres-jobs; default 20000)
          --daemons LIST  daemon processes of each run, e.g. 1,2,4,8,16,32 (postgres-jobs; default 1,2,4)
          --backlog N     queued jobs beside the timed ones, all due (postgres-jobs; default 0); with a
                          backlog, each count also runs on an empty table, and a .vs_empty line
                          compares the two
          --done-rows N   done jobs of an earlier history in the table (postgres-jobs; default 10 × backlog)
          --claim-window N  the daemons' claimWindow (postgres-jobs; default: theirs, from max(8, 4 × jobs
                          at once), widened while jobs take less than a claim's round trip)
          --server-fsync M  off | on | both: the server syncs its commits (postgres-jobs; default off)
          --prune         delete the history's done rows beside the daemons' run, a batch a
                          transaction, to see what a prune costs their claims (postgres-jobs)
          --no-baseline   leave the bare SKIP LOCKED loop out (postgres-jobs: it commits a job at a
                          time, half an hour for a million jobs)
          --no-peer       leave PgQueuer out (postgres-jobs; by default it runs beside Lineup, in a
                          venv the benchmark makes with pip from PyPI)
          --peer-rounds N Lineup and PgQueuer run N times each at each count, taking turns, and
                          are compared by their medians (postgres-jobs; default 3)
          --fsync-jobs N  jobs of the throughput run with a fsynced spool (spool; default 10000)
          --bulk-jobs N   no-op jobs of the bulk run, all in one bulk file (spool; default 100000)
          --durability D  fsync | none | both (spool; default both)
          --pickup-jobs N jobs of the pick-up latency run (spool; default 2000)
          --pickup-rate N jobs per second the pick-up run enqueues (spool; default 200)
          --flush-interval S  the daemon's flush interval in seconds (spool; default 5, the daemon's)
          --no-flush-when-idle  the daemon flushes only every interval, not also when idle (spool)
          --observations N  observations to import (import), or in the store (statistics); default 200000
          --stations N    buoy stations the observations belong to (import, statistics; default 10)
          --dir PATH      where to create the temporary files (default: the system's temporary directory)
          --keep          keep the files instead of deleting them
          --busy-core     run each benchmark twice: as usual, then with a thread spinning on one
                          core for the whole run (its figures marked "busy core", RESULT names .busy)
          -h, --help      show this help

        Prints a table, then RESULT lines (DESIGN §7). Exit status: 0 when the benchmarks ran
        (whatever the verdicts), 1 when one failed, 2 for a usage error or a benchmark that does
        not exist yet.
        """

    var benchmark: BenchmarkName
    var rows = 1_000_000
    var chunk = 10_000
    var flushMode = FlushMode.background
    var jobs = 100_000
    var fsyncJobs = 10_000
    var databaseJobs = 20_000
    var databaseDaemons = [1, 2, 4]
    var backlog = 0
    var explicitDoneRows: Int?
    var comparesWithPeer = true
    /// How many times Lineup and PgQueuer each run at each count, in turn (`--peer-rounds`).
    var peerRounds = 3
    var comparesWithBareLoop = true
    var claimWindow: Int?
    /// Whether the server syncs its commits, a run of all counts for each (`--server-fsync`).
    var serverSyncs = [false]
    var prunesDuringRun = false
    /// The done jobs of the history: ten a queued job of the backlog unless told.
    var doneRows: Int { explicitDoneRows ?? 10 * backlog }
    /// What the postgres-jobs table holds beside the measured jobs.
    var history: PostgresJobsBenchmark.TableHistory { .init(backlog: backlog, doneRows: doneRows) }
    var bulkJobs = 100_000
    var durabilities: [SpoolDurabilityChoice] = [.none, .fsync]
    var pickupJobs = 2_000
    var pickupRate = 200
    var flushIntervalSeconds: Double = 5
    var flushesWhenIdle = true
    var observations = 200_000
    var stations = 10
    var directory: String?
    var keepFiles = false
    var busyCore = false

    /// Nil for `--help`.
    static func parse(_ arguments: [String]) throws -> BenchOptions? {
        var name: BenchmarkName?
        var options = BenchOptions(benchmark: .all)
        var remaining = arguments[...]
        func value(for option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw BenchError(.usage, "\(option) needs a value") }
            return value
        }
        func count(for option: String) throws -> Int {
            let text = try value(for: option)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number > 0 else {
                throw BenchError(.usage, "\(option) needs a positive whole number, not \(text)")
            }
            return number
        }
        func amount(for option: String) throws -> Int {
            let text = try value(for: option)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number >= 0 else {
                throw BenchError(.usage, "\(option) needs a whole number, 0 or more, not \(text)")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return nil
            case "--rows":
                options.rows = try count(for: argument)
            case "--chunk":
                options.chunk = try count(for: argument)
            case "--flush":
                let text = try value(for: argument)
                guard let mode = FlushMode(rawValue: text) else {
                    throw BenchError(.usage, "--flush is one of \(FlushMode.allCases.map(\.rawValue).joined(separator: ", ")), not \(text)")
                }
                options.flushMode = mode
            case "--jobs":
                options.jobs = try count(for: argument)
            case "--db-jobs":
                options.databaseJobs = try count(for: argument)
            case "--daemons":
                let text = try value(for: argument)
                let counts = text.split(separator: ",").map { Int($0) }
                guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw BenchError(.usage, "--daemons needs positive whole numbers separated by commas, not \(text)")
                }
                options.databaseDaemons = counts.compactMap { $0 }
            case "--backlog":
                options.backlog = try amount(for: argument)
            case "--done-rows":
                options.explicitDoneRows = try amount(for: argument)
            case "--claim-window":
                options.claimWindow = try count(for: argument)
            case "--server-fsync":
                let text = try value(for: argument)
                switch text {
                case "off": options.serverSyncs = [false]
                case "on": options.serverSyncs = [true]
                case "both": options.serverSyncs = [false, true]
                default: throw BenchError(.usage, "--server-fsync is one of off, on, both, not \(text)")
                }
            case "--prune":
                options.prunesDuringRun = true
            case "--no-peer":
                options.comparesWithPeer = false
            case "--peer-rounds":
                options.peerRounds = try count(for: argument)
            case "--no-baseline":
                options.comparesWithBareLoop = false
            case "--fsync-jobs":
                options.fsyncJobs = try count(for: argument)
            case "--bulk-jobs":
                options.bulkJobs = try count(for: argument)
            case "--durability":
                let text = try value(for: argument)
                switch text {
                case "both": options.durabilities = [.none, .fsync]
                case "none": options.durabilities = [.none]
                case "fsync": options.durabilities = [.fsync]
                default: throw BenchError(.usage, "--durability is one of fsync, none, both, not \(text)")
                }
            case "--pickup-jobs":
                options.pickupJobs = try count(for: argument)
            case "--pickup-rate":
                options.pickupRate = try count(for: argument)
            case "--flush-interval":
                let text = try value(for: argument)
                guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw BenchError(.usage, "--flush-interval needs a positive number of seconds, not \(text)")
                }
                options.flushIntervalSeconds = seconds
            case "--observations":
                options.observations = try count(for: argument)
            case "--stations":
                options.stations = try count(for: argument)
            case "--dir":
                options.directory = try value(for: argument)
            case "--keep":
                options.keepFiles = true
            case "--no-flush-when-idle":
                options.flushesWhenIdle = false
            case "--busy-core":
                options.busyCore = true
            default:
                if argument.hasPrefix("-") { throw BenchError(.usage, "unknown option \(argument)") }
                guard name == nil else { throw BenchError(.usage, "one benchmark at a time (got \(name!.rawValue) and \(argument))") }
                guard let parsed = BenchmarkName(rawValue: argument) else {
                    throw BenchError(.usage, "unknown benchmark \(argument)")
                }
                name = parsed
            }
        }
        guard let name else { throw BenchError(.usage, "which benchmark?") }
        options.benchmark = name
        return options
    }
}

/// What the spool benchmark's spools fsync (``SpoolDirectory/Durability``, as a command-line
/// choice that does not need LineupSpool here).
enum SpoolDurabilityChoice: String {
    case fsync
    case none
}

/// The benchmarks of DESIGN §7.
enum BenchmarkName: String, CaseIterable {
    case stack
    case postgres
    case postgresJobs = "postgres-jobs"
    case spool
    case `import`
    case export
    case statistics
    case all
}
