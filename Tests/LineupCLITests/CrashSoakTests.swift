import BuoyXML
import Foundation
import GRDB
import LineupSpool
import Testing
import LineupTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// The crash soak of issue 9, run by `scripts/crash-soak.sh --kills N` and not in CI: the real
    /// `lineupd` under a mixed workload, SIGKILLed at random moments, restarted after each kill,
    /// with the invariants checked on the dead daemon's spool and store after every kill.
    @Suite("crash soak")
    struct CrashSoakTests {
        static let kills = ProcessInfo.processInfo.environment["LINEUP_SOAK_KILLS"].flatMap { Int($0) }
        static let sosInputCount = 12
        static let stationCount = 4
        static let observationsPerInput = 96
        /// Jobs enqueued while each daemon runs.
        static let jobsPerRun = 6
        static let killWindowMilliseconds = 0..<700

        @Test(
            "SIGKILL at random moments under a mixed workload; after every kill: each job once, done jobs' rows on disk, no duplicate, an intact store, exports whole or absent",
            .enabled(if: kills != nil, "set LINEUP_SOAK_KILLS (scripts/crash-soak.sh)"))
        func soak() async throws {
            let kills = try #require(Self.kills)
            let seed = ProcessInfo.processInfo.environment["LINEUP_SOAK_SEED"].flatMap { UInt64($0) }
                ?? UInt64(Date().timeIntervalSince1970)
            print("crash soak: seed \(seed), \(kills) kills (LINEUP_SOAK_SEED=\(seed) replays this run)")
            let clock = ContinuousClock()
            let began = clock.now
            try await withSandbox { sandbox in
                var workload = try SoakWorkload(sandbox: sandbox, seed: seed)
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"poisonThreshold": 1000, "flushInterval": 0.2, "rescanInterval": 0.1, "statusInterval": 0.5, "concurrency": 2}"#
                        .utf8
                ).write(to: configuration)
                let arguments = sandbox.daemonLocationArguments + ["--config", configuration.path]
                let spool = try SpoolDirectory(root: sandbox.spool)
                var random = SeededRandom(seed: seed)
                var killsWithJobsInActive = 0

                for kill in 1...kills {
                    let daemon = try sandbox.launch(Binaries.lineupd, arguments, logName: "lineupd")
                    // A run in three enqueues its jobs as one bulk file, each line a job of its own.
                    let jobs = try (0..<Self.jobsPerRun).map { _ in try workload.nextJob(using: &random) }
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        let bulk = try spool.enqueueBulk(jobs.map(\.1))
                        workload.enqueuedBulk(jobs.map(\.id), as: bulk.name)
                    } else {
                        for (id, job) in jobs { workload.enqueued(id, as: try spool.enqueue(job).name) }
                    }
                    try await Task.sleep(for: .milliseconds(Int.random(in: Self.killWindowMilliseconds, using: &random)))
                    if try !sandbox.jobFiles("active").isEmpty { killsWithJobsInActive += 1 }
                    daemon.send(SIGKILL)
                    let termination = try await daemon.waitForExit(timeout: .seconds(30))
                    try #require(
                        termination == .signalled(SIGKILL), "run \(kill) ended before its SIGKILL (\(termination))\n\(daemon.logTail())")
                    try workload.checkInvariants(afterKill: kill)
                    if kill % 50 == 0 {
                        print("crash soak: \(kill) kills, \(workload.enqueuedCount) jobs enqueued, \(clock.now - began)")
                    }
                }

                let daemon = try await sandbox.startDaemon(["--config", configuration.path], timeout: .seconds(120))
                // Done or failed: nothing left in new/ or active/ (a bulk's lines are done in its
                // results, not as files of their own).
                try await sandbox.poll("every job to be done or failed", timeout: .seconds(600), daemon: daemon) {
                    try ["new", "active"].allSatisfy { directory in
                        try sandbox.fileNames(directory).allSatisfy { !$0.hasSuffix(".job.json") && !$0.hasSuffix(".jobs.jsonl") }
                    }
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0), "\(daemon.logTail())")
                let summary = try workload.checkInvariants(afterKill: kills + 1, drained: true)
                print(
                    """
                    crash soak: seed \(seed), \(kills) SIGKILLs (\(killsWithJobsInActive) with jobs in active/), \
                    invariants checked after each; \(summary); \(clock.now - began)
                    """)
            }
        }
    }
}

/// The soak's jobs, what each must end as, and the invariants over them.
struct SoakWorkload {
    enum Kind: Equatable {
        case importSOS(input: Int)
        case importRSS
        case importJournal
        case exportCSV(output: String)
        case statistics(output: String)
        case noOp
        case failing
    }

    let sandbox: Sandbox
    /// The (station, time) keys of each SOS input, time as stored (seconds since 1970).
    private var sosKeys: [[SoakKey]] = []
    private(set) var kinds: [String: Kind] = [:]
    private var order: [String] = []
    /// Job IDs by the name the spool gave each job file (a bulk line's: `<bulk>.line<N>`).
    private var idsByName: [String: String] = [:]
    /// The job IDs of each bulk file's lines, by the bulk's name.
    private var bulkLineIDs: [String: [String]] = [:]
    private var goodImports: [String] = []
    private var verifiedOutputs: Set<String> = []
    private var verifiedFailures: Set<String> = []
    private let journalRowCount: Int

    var enqueuedCount: Int { order.count }

    init(sandbox: Sandbox, seed: UInt64) throws {
        self.sandbox = sandbox
        // SOS inputs over a few stations, overlapping by half: re-imports update rows as well as
        // insert them.
        for number in 0..<DaemonTests.CrashSoakTests.sosInputCount {
            let records = BuoyFixtures.records(
                station: "SK0\(number % DaemonTests.CrashSoakTests.stationCount + 1)", seed: seed &+ UInt64(number),
                count: DaemonTests.CrashSoakTests.observationsPerInput,
                offset: (number / DaemonTests.CrashSoakTests.stationCount) * DaemonTests.CrashSoakTests.observationsPerInput / 2)
            try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "soak-\(number).xml"))
            sosKeys.append(records.map { SoakKey(station: $0.stationID, time: $0.time.timeIntervalSince1970) })
        }
        try BuoyFixtures.copySample(BuoyFixtures.samplesDirectory.appending(path: "ndbc-latest-obs-lnp01.xml"), into: sandbox.input)
        let journal = BuoyFixtures.samplesDirectory.appending(path: "journal/SurfJournalSeed.sqlite")
        try BuoyFixtures.copySample(journal, into: sandbox.input)
        let source = try DatabaseQueue(path: journal.path, configuration: .readOnly)
        journalRowCount = try source.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ZJOURNALENTRY") ?? 0 }
        try source.close()
        try Data("<?xml version=\"1.0\"?><rss><channel><item><title>cut".utf8)
            .write(to: sandbox.input.appending(path: "truncated.xml"))
    }

    /// The next job: imports mostly, exports and statistics after imports, no-op and failing jobs.
    mutating func nextJob(using random: inout SeededRandom) throws -> (id: String, JobFile) {
        let number = order.count
        let id = "soak-\(String(repeating: "0", count: max(0, 5 - String(number).count)))\(number)"
        let roll = Int.random(in: 0..<100, using: &random)
        let after = goodImports.isEmpty ? [] : [goodImports[Int.random(in: 0..<goodImports.count, using: &random)]]
        let kind: Kind
        let file: JobFile
        switch roll {
        case 0..<50:
            let input = Int.random(in: 0..<DaemonTests.CrashSoakTests.sosInputCount, using: &random)
            kind = .importSOS(input: input)
            file = try JobFile(kind: "import-buoy", id: id, parameters: ["input": .string("soak-\(input).xml")])
        case 50..<58:
            kind = .importRSS
            file = try JobFile(kind: "import-buoy", id: id, parameters: ["input": .string("ndbc-latest-obs-lnp01.xml")])
        case 58..<66:
            kind = .importJournal
            file = try JobFile(kind: "import-coredata", id: id, parameters: ["input": .string("SurfJournalSeed.sqlite")])
        case 66..<78:
            let output = "\(id).csv"
            kind = .exportCSV(output: output)
            let entity = roll.isMultiple(of: 2) ? "BuoyObservation" : "JournalEntry"
            file = try JobFile(
                kind: "export-csv", id: id, after: after,
                parameters: ["entity": .string(entity), "output": .string(output)])
        case 78..<84:
            let output = "\(id).json"
            kind = .statistics(output: output)
            file = try JobFile(kind: "statistics", id: id, after: after, parameters: ["output": .string(output)])
        case 84..<90:
            // Deletes nothing: the fixtures' observations are far younger.
            kind = .noOp
            file = try JobFile(
                kind: "prune-observations", id: id, maxAttempts: 3, parameters: ["before": .string("1990-01-01T00:00:00Z")])
        default:
            kind = .failing
            let input = roll.isMultiple(of: 2) ? "truncated.xml" : "missing-\(id).xml"
            file = try JobFile(kind: "import-buoy", id: id, maxAttempts: 2, parameters: ["input": .string(input)])
        }
        kinds[id] = kind
        order.append(id)
        switch kind {
        case .importSOS, .importRSS, .importJournal: goodImports.append(id)
        default: break
        }
        return (id, file)
    }

    mutating func enqueued(_ id: String, as name: String) {
        idsByName[name] = id
    }

    /// Jobs enqueued as the lines of one bulk file, in order: line N is `ids[N - 1]`.
    mutating func enqueuedBulk(_ ids: [String], as name: String) {
        bulkLineIDs[name] = ids
        for (index, id) in ids.enumerated() { idsByName["\(name).line\(index + 1)"] = id }
    }

    /// The ID of the job of a spool file, whatever tags (claim, attempts, interruptions) its
    /// name carries.
    private func id(ofJobFile file: String) -> String? {
        idsByName[Self.untagged(file, suffix: ".job.json")]
    }

    /// A spool file's name without `suffix` and the spool's tags (claim, attempts, interruptions).
    private static func untagged(_ file: String, suffix: String) -> String {
        var name = Substring(file.dropLast(suffix.count))
        while let dot = name.lastIndex(of: "."), let tag = name[name.index(after: dot)...].first, "iac".contains(tag),
            name[name.index(after: name.index(after: dot))...].allSatisfy(\.isHexDigit)
        {
            name = name[..<dot]
        }
        return String(name)
    }

    /// What became of each bulk line so far: the directory its bulk file lies in, and the
    /// outcomes its bulk's ledger (`active/`) or results (`done/`, `failed/`) record, each with
    /// the job's report.
    private func bulkLines() throws -> [String: (directory: String, outcomes: [(outcome: String, report: [String: Any])])] {
        var lines: [String: (directory: String, outcomes: [(outcome: String, report: [String: Any])])] = [:]
        var outcomesByBulk: [String: [Int: [(outcome: String, report: [String: Any])]]] = [:]
        for (directory, suffix) in [("active", ".ledger.jsonl"), ("done", ".results.jsonl"), ("failed", ".results.jsonl")] {
            for file in try sandbox.fileNames(directory) where file.hasSuffix(suffix) {
                let bulk = Self.untagged(file, suffix: suffix)
                let text = try String(contentsOf: sandbox.spool.appending(path: directory).appending(path: file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    // An entry a SIGKILL cut short (the daemon drops it when it reads the ledger).
                    guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let number = entry["line"] as? Int, let outcome = entry["outcome"] as? String
                    else { continue }
                    outcomesByBulk[bulk, default: [:]][number, default: []].append((outcome, entry["report"] as? [String: Any] ?? [:]))
                }
            }
        }
        for directory in ["new", "active", "done", "failed"] {
            for file in try sandbox.fileNames(directory) where file.hasSuffix(".jobs.jsonl") {
                let bulk = Self.untagged(file, suffix: ".jobs.jsonl")
                for (index, id) in (bulkLineIDs[bulk] ?? []).enumerated() {
                    let outcomes = (outcomesByBulk[bulk]?[index + 1] ?? []).filter { $0.outcome != "attemptFailed" }
                    lines[id] = (directory, outcomes)
                }
            }
        }
        return lines
    }

    /// Checks the spool and the store of a daemon that is not running; throws what is wrong.
    @discardableResult
    mutating func checkInvariants(afterKill kill: Int, drained: Bool = false) throws -> String {
        func fail(_ message: String) -> HarnessError { HarnessError("after kill \(kill): \(message)") }

        // Every job exactly once in new/, active/, done/ or failed/.
        var places: [String: [String]] = [:]
        var files: [String: [String: String]] = [:]  // directory → job ID → file
        for directory in ["new", "active", "done", "failed"] {
            for file in try sandbox.jobFiles(directory) {
                let id = id(ofJobFile: file) ?? "<unknown file \(file)>"
                places[id, default: []].append(directory)
                files[directory, default: [:]][id] = file
            }
        }
        // A bulk line is done once for each time its ledger says so; with no outcome it is where
        // its bulk file is; failed, it lies in failed/ as a job file of its own (or, when a kill
        // came between its ledger entry and that file, it is filed when its bulk is claimed again).
        let bulkLines = try bulkLines()
        for (id, line) in bulkLines {
            for outcome in line.outcomes where outcome.outcome == "done" { places[id, default: []].append("done") }
            if line.outcomes.isEmpty { places[id, default: []].append(line.directory) }
            if line.outcomes.contains(where: { $0.outcome == "failed" }), places[id]?.contains("failed") != true {
                if drained { throw fail("bulk line \(id) failed and is not in failed/") }
                places[id, default: []].append("failed")
            }
        }
        if let lost = order.first(where: { places[$0] == nil }) { throw fail("job \(lost) is lost") }
        if let twice = places.first(where: { $0.value.count > 1 }) { throw fail("job \(twice.key) is in \(twice.value)") }
        if let invented = places.keys.first(where: { kinds[$0] == nil }) { throw fail("unknown job \(invented)") }
        let done = Set(places.filter { $0.value == ["done"] }.keys)
        let failed = Set(places.filter { $0.value == ["failed"] }.keys)
        for id in done where kinds[id] == .failing { throw fail("job \(id) of a bad input is done") }
        for id in failed where !verifiedFailures.contains(id) {
            // A bulk line failed in its ledger, not filed yet: checked once it is.
            guard let file = files["failed"]?[id] else { continue }
            let reason = try sandbox.failureReport(forJobFile: file).reason
            guard kinds[id] == .failing else { throw fail("job \(id) failed: \(reason)") }
            guard reason.contains(".xml") else { throw fail("the failure of \(id) does not name its file: \(reason)") }
            verifiedFailures.insert(id)
        }
        if drained, done.count + failed.count != order.count {
            throw fail("\(order.count - done.count - failed.count) jobs never finished")
        }

        // The store: intact, nothing twice, and every done job's rows on disk.
        guard FileManager.default.fileExists(atPath: sandbox.store.path) else {
            if done.contains(where: { kinds[$0] != .failing }) { throw fail("jobs are done but there is no store") }
            return "no store yet"
        }
        let store = try DatabaseQueue(path: sandbox.store.path, configuration: .readOnly)
        defer { try? store.close() }
        let onDisk = try store.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
            let duplicateKeys = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM (SELECT station, time FROM BuoyObservation GROUP BY station, time HAVING COUNT(*) > 1)") ?? 0
            let duplicateStations = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM (SELECT stationID FROM BuoyStation GROUP BY stationID HAVING COUNT(*) > 1)") ?? 0
            let duplicateEntries = try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM (SELECT sourceStoreUUID, sourcePrimaryKey FROM JournalEntry GROUP BY 1, 2 HAVING COUNT(*) > 1)") ?? 0
            var keys = Set<SoakKey>()
            for row in try Row.fetchAll(
                db, sql: "SELECT s.stationID, o.time FROM BuoyObservation o JOIN BuoyStation s ON s.pk = o.station")
            {
                keys.insert(SoakKey(station: row[0], time: row[1]))
            }
            let journalEntries = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM JournalEntry") ?? 0
            return (integrity, duplicateKeys, duplicateStations, duplicateEntries, keys, journalEntries)
        }
        guard onDisk.0 == "ok" else { throw fail("integrity_check: \(onDisk.0)") }
        guard onDisk.1 == 0, onDisk.2 == 0, onDisk.3 == 0 else {
            throw fail("duplicates: \(onDisk.1) observation keys, \(onDisk.2) stations, \(onDisk.3) journal entries")
        }
        var journalDone = false
        var rssDone = false
        for id in done {
            switch kinds[id] {
            case let .importSOS(input)?:
                if let missing = sosKeys[input].first(where: { !onDisk.4.contains($0) }) {
                    throw fail("job \(id) is done but \(missing) of soak-\(input).xml is not on disk")
                }
            case .importRSS?: rssDone = true
            case .importJournal?: journalDone = true
            case let .exportCSV(output)?:
                let rows: Int?
                if let file = files["done"]?[id] {
                    let report = try sandbox.resultReport(forJobFile: file)
                    if case let .object(counts)? = report.details["counts"], case let .integer(count)? = counts["rows"] { rows = count } else { rows = nil }
                } else {
                    let report = bulkLines[id]?.outcomes.first { $0.outcome == "done" }?.report
                    rows = ((report?["details"] as? [String: Any])?["counts"] as? [String: Any])?["rows"] as? Int
                }
                guard let rows else { throw fail("the report of \(id) has no row count") }
                try verifyExport(id: id, output: output, rows: rows, fail: fail)
            case let .statistics(output)?:
                guard verifiedOutputs.contains(output) else {
                    let data = try Data(contentsOf: sandbox.output.appending(path: output))
                    _ = try JSONSerialization.jsonObject(with: data)
                    verifiedOutputs.insert(output)
                    break
                }
            default: break
            }
        }
        if rssDone, !onDisk.4.contains(where: { $0.station == "LNP01" }) { throw fail("an RSS import is done, LNP01 has no rows") }
        if journalDone, onDisk.5 != journalRowCount {
            throw fail("a journal import is done, and the store has \(onDisk.5) entries of \(journalRowCount)")
        }
        // An export not (yet) done is absent or whole: it is written aside and renamed into place.
        for (id, kind) in kinds where !done.contains(id) {
            guard case let .exportCSV(output) = kind else { continue }
            let url = sandbox.output.appending(path: output)
            if let data = FileManager.default.contents(atPath: url.path), !data.isEmpty, !data.ends(with: "\r\n") {
                throw fail("export \(output) of job \(id) (not done) is a truncated file")
            }
        }
        return "\(order.count) jobs: \(done.count) done, \(failed.count) failed as expected; \(onDisk.4.count) observations, \(onDisk.5) journal entries on disk"
    }

    /// A done export is a whole CSV file with as many rows as its report says.
    private mutating func verifyExport(id: String, output: String, rows: Int, fail: (String) -> HarnessError) throws {
        guard !verifiedOutputs.contains(output) else { return }
        let url = sandbox.output.appending(path: output)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw fail("job \(id) is done, \(output) is absent") }
        guard data.ends(with: "\r\n") else { throw fail("job \(id) is done, \(output) is truncated") }
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count - 1
        // Quoted fields may hold line breaks; the fixtures' do not.
        guard lines == rows + 1 else { throw fail("job \(id) is done, \(output) has \(lines - 1) rows, its report \(rows)") }
        verifiedOutputs.insert(output)
    }
}

/// An observation's natural key as the store holds it.
struct SoakKey: Hashable, CustomStringConvertible {
    let station: String
    let time: Double
    var description: String { "(\(station), \(Date(timeIntervalSince1970: time).ISO8601Format()))" }
}

extension Configuration {
    fileprivate static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }
}

extension Data {
    fileprivate func ends(with suffix: String) -> Bool {
        let bytes = Data(suffix.utf8)
        return count >= bytes.count && self.suffix(bytes.count) == bytes
    }
}
