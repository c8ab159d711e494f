import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// `lineup enqueue KIND key=value key:=json...`: writes a job file into the spool atomically
/// (into tmp/, then renamed into new/), or inserts it into a database's jobs table, through
/// ``JobClient``, as a program's own code would.
///
/// `key=value` is always a string, whatever it looks like: NDBC station IDs such as `41012` look
/// like numbers, and a guess would hand a task expecting a string a number. A JSON value has its
/// own spelling, `key:=value`, as in HTTPie: `limit:=3`, `enabled:=true`, `tags:='["a","b"]'`.
///
/// `lineup enqueue --from FILE` enqueues many jobs at once: FILE holds one job file a line
/// (JSON Lines), and goes into the spool as one bulk file (see `SpoolDirectory+Bulk.swift`).
///
/// `lineup enqueue KIND ... --batch FILE` enqueues FILE's jobs as a batch whose callback is the
/// job the command line describes, as ``JobClient/enqueueBatch(_:callback:runsCallback:id:)``
/// does: it runs once they are all done, or all settled with `--after-settled`.
struct EnqueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Write a job into the spool (atomically).",
        discussion: """
            key=value gives a string, always; key:=value gives a JSON value (a number, true, \
            an array...). Example: lineup enqueue import-buoy input=obs/42002.rss --spool spool
            With --from FILE (- for standard input), FILE holds one job a line (JSON Lines) and \
            is enqueued as one bulk file; a line that is not a valid job fails alone, named by \
            its line number.
            With --batch FILE, FILE's jobs (one a line) are enqueued with this job as their \
            callback: it runs once they are all done (all settled, done or failed, with \
            --after-settled), and reads their reports; lineup show ID prints them.
            """)

    @Argument(help: "The job kind: import-buoy, export-csv, statistics, import-coredata or prune-observations.")
    var kind: String?
    @Argument(help: "The kind's parameters: key=value for a string, key:=value for JSON (3, true, [1,2]).")
    var parameters: [String] = []
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Insert into the jobs table of this PostgreSQL database (postgres://user@host:port/db), which lineupd --database runs, instead of the spool.")
    var database: String?
    @Option(help: "A job id that other jobs can name in --after.")
    var id: String?
    @Option(help: "A job id that must be done first (repeatable).")
    var after: [String] = []
    @Flag(help: "Run once the --after jobs (or the --batch) have settled, done or failed, rather than only once all are done.")
    var afterSettled = false
    @Option(help: "Attempts before the job goes to failed/.")
    var maxAttempts: Int?
    @Option(help: "Refuse this job while another job with the same key is queued or running.")
    var uniqueKey: String?
    @Option(help: "Run the job at this time or later (ISO 8601, e.g. 2026-11-24T06:00:00Z).")
    var at: String?
    @Option(name: .customLong("in"), help: "Run the job after this long: 90s, 10m, 12h, 7d.")
    var delay: String?
    @Option(help: "How long one attempt may run before it is cancelled and fails as timed out: 90s, 10m, 12h.")
    var timeout: String?
    @Option(help: "The first retry's delay, doubled for each later one: 2s, 1m (the daemon's default when not given).")
    var baseDelay: String?
    @Option(help: "Claim order within the job's queue, from 0 (first) to 9 (last); 5 when not given.")
    var priority: Int?
    @Option(help: "The daemon's queue to run the job in, whatever its kind (a queue the daemon has not configured: the kind's).")
    var queue: String?
    @Option(help: "With --unique-key: refuse the job also while a job with the key was done within this long: 90s, 10m, 1h, 7d.")
    var uniqueFor: String?
    @Option(help: ArgumentHelp("Enqueue the jobs of FILE, one job file a line, as one bulk file.", valueName: "FILE"))
    var from: String?
    @Option(help: ArgumentHelp("Enqueue the jobs of FILE (one job file a line) as a batch, with this job as its callback.", valueName: "FILE"))
    var batch: String?
    @Option(help: "The W3C traceparent of the span the job's attempts are children of (00-<trace id>-<span id>-<flags>).")
    var traceparent: String?
    @Option(help: "The W3C tracestate that goes with --traceparent.")
    var tracestate: String?
    @Flag(help: "Print the job file that would be written, and write nothing.")
    var dryRun = false

    func validate() throws {
        if from != nil {
            let perJob = [id, uniqueKey, at, delay, timeout, baseDelay, queue, uniqueFor, batch, traceparent, tracestate]
                .contains { $0 != nil } || !after.isEmpty || afterSettled || maxAttempts != nil || priority != nil
            guard kind == nil, parameters.isEmpty, !perJob else {
                throw ValidationError("--from takes its jobs from the file: give no kind, parameters or job options with it")
            }
        } else if kind == nil {
            throw ValidationError(batch == nil ? "give a job kind, or --from FILE" : "--batch needs the callback's job kind")
        }
        if afterSettled, after.isEmpty, batch == nil {
            throw ValidationError("--after-settled needs --after or --batch: it says when the jobs it waits for count as finished")
        }
        if tracestate != nil, traceparent == nil {
            throw ValidationError("--tracestate needs --traceparent beside it")
        }
        if let priority, !JobFile.priorities.contains(priority) {
            throw ValidationError("--priority must be from \(JobFile.priorities.lowerBound) (first) to \(JobFile.priorities.upperBound) (last); found \(priority)")
        }
        if uniqueFor != nil, uniqueKey == nil {
            throw ValidationError("--unique-for needs --unique-key: it says how long after a job is done its key stays taken")
        }
    }

    func run() throws {
        if let from {
            try enqueueBulk(from: from)
            return
        }
        guard let kind else { return }
        var values: [String: JSONValue] = [:]
        for parameter in parameters {
            let (key, value) = try Self.parse(parameter)
            values[key] = value
        }
        var options = JobOptions(
            id: id, after: after, afterSettled: afterSettled && batch == nil, maxAttempts: maxAttempts,
            baseDelay: try positiveDuration(baseDelay, of: "--base-delay"), timeout: try positiveDuration(timeout, of: "--timeout"),
            uniqueKey: uniqueKey, notBefore: try notBefore(), priority: priority, queue: queue,
            uniqueFor: try positiveDuration(uniqueFor, of: "--unique-for"))
        options.traceparent = traceparent
        options.tracestate = tracestate
        let job: JobFile
        do {
            job = try JobFile(kind: kind, parameters: values, options: options)
        } catch {
            // A traceparent or tracestate the spool refuses: what the operator typed is wrong.
            throw ValidationError(error.message)
        }
        if let batch {
            try enqueueBatch(from: batch, callback: job)
            return
        }
        if dryRun {
            print(String(decoding: try job.encoded(), as: UTF8.self))
            return
        }
        try withClient { client in
            report(try client.enqueue(job))
        }
    }

    /// Runs `body` with a client of the spool, or of the database's jobs table with --database.
    private func withClient(_ body: (JobClient) throws -> Void) throws {
        guard let database else {
            try body(JobClient(spool: try SpoolDirectory(root: URL(fileURLWithPath: spool))))
            return
        }
        let jobs = try JobDatabase(url: try DatabaseOption.url(database), logger: DatabaseOption.logger)
        defer { jobs.close() }
        try body(JobClient(destination: jobs))
    }

    /// Prints where the jobs went: the spool file's path, or how many rows the database took.
    private func report(_ receipt: EnqueueReceipt) {
        if database != nil {
            print("\(receipt.jobs) job(s) inserted into \(receipt.location)")
        } else {
            print(receipt.location)
        }
    }

    /// Enqueues the lines of `path` as one bulk file. Lines that are not valid jobs are named on
    /// standard error: they go in all the same, and fail alone in the daemon, as the spool promises.
    private func enqueueBulk(from path: String) throws {
        let contents = try read(path)
        let lines = SpoolDirectory.jobLines(ofBulk: contents)
        var invalid = 0
        for (number, line) in lines {
            do {
                _ = try JobFile(data: line, path: "\(path):\(number)")
            } catch {
                invalid += 1
                FileHandle.standardError.write(Data("warning: \(error.description); that job will fail\n".utf8))
            }
        }
        let jobs = lines.count
        guard jobs > 0 else {
            throw CommandFailure("\(path) holds no job (one job file a line)")
        }
        if dryRun {
            print("\(jobs) job(s) in \(path), \(invalid) invalid; nothing written")
            return
        }
        let name = URL(fileURLWithPath: path == "-" ? "stdin" : path).deletingPathExtension().lastPathComponent
        try withClient { client in
            report(try client.enqueue(jobLines: contents, name: name))
        }
    }

    /// The batch of `path`'s lines, with `callback`. A batch goes in whole or not at all (its
    /// callback must never wait for a job that is not there), so a line that is not a valid job
    /// refuses it, named by its line number.
    private func enqueueBatch(from path: String, callback: JobFile) throws {
        var members: [JobFile] = []
        for (number, line) in SpoolDirectory.jobLines(ofBulk: try read(path)) {
            do {
                members.append(try JobFile(data: line, path: "\(path):\(number)"))
            } catch {
                throw CommandFailure("\(error.description); nothing enqueued")
            }
        }
        guard !members.isEmpty else { throw CommandFailure("\(path) holds no job (one job file a line)") }
        if dryRun {
            print("batch of \(members.count) job(s) in \(path) with callback \(callback.kind); nothing written")
            return
        }
        try withClient { client in
            let receipt = try client.enqueueBatch(members, callback: callback, runsCallback: afterSettled ? .whenAllSettled : .whenAllDone)
            print("batch \(receipt.batchID): \(receipt.jobIDs.count) job(s) (\(receipt.jobIDs.joined(separator: ", "))), callback \(receipt.callbackID)")
            report(receipt.enqueued)
        }
    }

    /// The contents of `path`; `-` reads standard input.
    private func read(_ path: String) throws -> Data {
        do {
            return path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// A duration option (`--timeout`, `--base-delay`, `--unique-for`), more than zero.
    private func positiveDuration(_ text: String?, of option: String) throws -> Duration? {
        guard let text else { return nil }
        let duration = try DaemonConfiguration.duration(text: text, of: option)
        guard duration > .zero else { throw ValidationError("\(option) must be more than 0 s; found \(text)") }
        return duration
    }

    /// The time `--at` names, or now plus `--in`.
    private func notBefore() throws -> Date? {
        switch (at, delay) {
        case (nil, nil):
            return nil
        case (let text?, nil):
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw ValidationError("--at \(text) is not an ISO 8601 time such as 2026-11-24T06:00:00Z")
            }
            return date
        case (nil, let text?):
            let delay = try DaemonConfiguration.duration(text: text, of: "--in")
            return Date().addingTimeInterval(delay.timeInterval)
        default:
            throw ValidationError("give --at or --in, not both")
        }
    }

    /// `key=text` is the string `text`; `key:=json` is the JSON value `json`.
    static func parse(_ parameter: String) throws -> (key: String, value: JSONValue) {
        guard let equals = parameter.firstIndex(of: "=") else {
            throw ValidationError("parameter \"\(parameter)\" is not key=value or key:=json")
        }
        let text = String(parameter[parameter.index(after: equals)...])
        var key = parameter[..<equals]
        let isJSON = key.hasSuffix(":")
        if isJSON { key = key.dropLast() }
        guard !key.isEmpty else {
            throw ValidationError("parameter \"\(parameter)\" is not key=value or key:=json")
        }
        guard isJSON else { return (String(key), .string(text)) }
        do {
            return (String(key), try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
        } catch {
            throw ValidationError("parameter \"\(parameter)\": \(text) is not JSON (write \(key)=\(text) for a string)")
        }
    }
}
