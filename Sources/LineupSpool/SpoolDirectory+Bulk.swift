public import Foundation
import LineupLocking

/// Bulk files: many jobs in one spool file, one job a line (JSON Lines, `*.jobs.jsonl`).
///
/// A producer with many jobs writes them as one file (``SpoolDirectory/enqueueBulk(contents:)``,
/// `lineup enqueue --from FILE`): one write, one rename and one fsync for all of them, rather
/// than three file operations a job. The file is claimed as one (one rename into `active/`),
/// and ``SpoolDirectory/claimNext()`` hands its lines out one at a time, each a ``ClaimedJob``
/// with a ``ClaimedJob/bulkLine``. Each line is a job of its own from there on: it runs, is
/// retried, is acknowledged and fails by itself; a line that is not a valid job fails alone.
///
/// ## The ledger
///
/// What happened to each line is appended to the bulk's ledger,
/// `active/<name>.c<claim>.ledger.jsonl`, one JSON object a line:
///
/// ```
/// {"line":3,"outcome":"done","report":{…the job's result report…}}
/// {"line":4,"outcome":"attemptFailed","failedAttempts":1}
/// {"line":4,"outcome":"failed","report":{…its error report…}}
/// ```
///
/// Acknowledging a group of lines is one append and one fsync of the ledger, where a job file
/// takes two renames and two directory fsyncs. A line that fails for good also goes to
/// `failed/` as a job file of its own (`<name>.line<N>.c<claim>.job.json`, its error report
/// beside it), so that `lineup failed` lists it and `lineup retry` queues it again; the ledger
/// entry is written first and is what counts, and a claim of the bulk files again a failed line
/// that a crash kept out of `failed/`.
///
/// Once every line has an outcome the ledger is renamed into `done/` as
/// `<stem>.results.jsonl` (the bulk's result report), then the bulk file beside it, in the
/// order a job file and its report take. Until then the ledger alone says which lines earlier
/// runs settled: a daemon that starts later reads them there
/// (``SpoolDirectory/settledLines(of:)``) to resolve `after` lists that name them.
///
/// ## Crashes and shutdown
///
/// A bulk keeps its first claim for life, so its ledger stays in `active/` under the same name
/// while the bulk goes back to `new/` and is claimed again: at a graceful shutdown
/// (``SpoolDirectory/releaseClaimedBulks()``, once its handed-out lines are settled or released),
/// or at the next start after a crash (``SpoolDirectory/recoverActive(maxInterruptions:)``, which
/// counts an interruption as for a job file). The next claim reads the ledger and hands out
/// only the lines without an outcome, with their failed attempts; an entry cut short by a power
/// cut is dropped. A line acknowledged is therefore never run again, and a line that was running
/// in a crash runs again, as a job file does.
///
/// Claims are synced (``SpoolDirectory/syncClaims()``) before a ledger entry is written: a power
/// cut could otherwise keep the entry and lose the claim, and the next claim would draw a new
/// claim and never see the ledger.
extension SpoolDirectory {
    /// Bulk files larger than this are not read: the bulk fails whole, with the reason.
    public static let maximumBulkFileSize = 64 << 20

    /// Enqueues a bulk file: `contents` is one job file a line (JSON Lines). Written into `tmp/`,
    /// fsynced, renamed into `new/` and `new/` fsynced, as one job file is. The lines are not
    /// checked here: a line that is not a valid job fails by itself when the daemon claims it.
    ///
    /// - Returns: the queued entry (`<name>.jobs.jsonl`).
    @discardableResult
    public func enqueueBulk(contents: Data) throws(SpoolError) -> SpoolEntry {
        try enqueue(contents: contents, as: JobFileName(name: JobNameGenerator.shared.next(), isBulk: true))
    }

    /// Enqueues `jobs` as one bulk file, in their order.
    @discardableResult
    public func enqueueBulk(_ jobs: [JobFile]) throws(SpoolError) -> SpoolEntry {
        try enqueueBulk(contents: Self.jobLines(of: jobs))
    }

    /// `jobs` as a bulk file's contents: one job file a line, in their order.
    static func jobLines(of jobs: [JobFile]) throws(SpoolError) -> Data {
        var contents = Data()
        for job in jobs {
            contents.append(try job.encoded())
            contents.append(UInt8(ascii: "\n"))
        }
        return contents
    }

    /// Returns every claimed bulk to `new/` (its ledger stays in `active/`) as soon as the lines
    /// it handed out are settled or released; lines not handed out yet are not. A daemon calls it
    /// when it stops claiming. Lines claimed afterwards come only from bulks claimed afterwards.
    public func releaseClaimedBulks() throws(SpoolError) {
        let claims = bulks.withLock { book in
            for claim in book.order { book.claims[claim]?.isReleasing = true }
            return book.order
        }
        for claim in claims {
            try returnOrFinishIfIdle(claim)
        }
    }

    // MARK: Lines settled, for `after` lists

    /// The lines of a bulk file that have an outcome (done, or failed for good), with their ids,
    /// in line order: a daemon that starts later resolves `after` lists naming them through this.
    /// They are read from the results of a bulk in `done/` or `failed/`, and from the ledger in
    /// `active/` of a bulk not finished (in `new/` or `active/`): until its last line has an
    /// outcome, the ledger alone records the lines that earlier runs settled. Lines without an id
    /// are left out, and so are lines that are not valid job files: no `after` list names them.
    ///
    /// A ledger is only read here: an entry that a power cut left unfinished is skipped, not cut
    /// off (the bulk's next claim does that), since a claim of the bulk may be appending to it.
    ///
    /// - Throws: ``SpoolError`` when the bulk file or its ledger cannot be read, as when the bulk
    ///   moved after `entry` was listed (claimed, given back or finished); list it again then.
    public func settledLines(of entry: SpoolEntry) throws(SpoolError) -> [SettledBulkLine] {
        guard entry.isBulk else { return [] }
        let fileName = entry.jobFileName
        let ledgerPath: String
        switch entry.state {
        case .done, .failed:
            ledgerPath = path(of: entry.state) + "/" + fileName.resultReportName
        case .queued, .running:
            // Never claimed: it has no ledger, and no line an outcome.
            guard fileName.claim != nil else { return [] }
            ledgerPath = path(of: .running) + "/" + fileName.ledgerName
        }
        // The ledger first: a bulk none of whose lines has an outcome is not read at all.
        let ledger = try BulkLedger.read(ledgerPath, repairing: false)
        guard !ledger.settled.isEmpty else { return [] }
        let (contents, size) = try FileSystem.readFile(entry.path, limit: Self.maximumBulkFileSize)
        guard size == contents.count else { return [] }
        return Self.bulkLineRanges(of: contents).compactMap { number, range in
            guard let settled = ledger.settled[number], let id = (try? JobFile(data: contents[range]))?.id else { return nil }
            switch settled {
            case let .done(report):
                return SettledBulkLine(number: number, id: id, outcome: .done, resultReport: try? JobResultReport(data: report))
            case let .failed(report):
                return SettledBulkLine(number: number, id: id, outcome: .failed(try? JobFailureReport(data: report)))
            }
        }
    }

    /// The ids of the lines of a bulk file that were acknowledged (``settledLines(of:)`` done):
    /// a done bulk is kept while a queued job names one of them.
    public func acknowledgedLineIDs(of entry: SpoolEntry) throws(SpoolError) -> [String] {
        try settledLines(of: entry).compactMap { $0.outcome == .done ? $0.id : nil }
    }

    /// The bulk files not finished (in `new/` or `active/`) that have a ledger, for
    /// ``settledLines(of:)``, leaving out those (by name and claim) that `isRead` says the caller
    /// has read already. Only `active/`, where the ledgers lie, is listed; `new/` (which may
    /// hold a long queue) only when a ledger left in has no bulk in `active/`, so that a caller
    /// that reads each ledger once lists the queue only while a ledger is new to it.
    ///
    /// A bulk that moves between the two directories while they are listed may be missing: it
    /// is there when they are listed again.
    public func unfinishedBulks(
        skipping isRead: (_ name: String, _ claim: String) -> Bool
    ) throws(SpoolError) -> [SpoolEntry] {
        let active = try FileSystem.fileNames(in: path(of: .running))
        var ledgers: Set<String> = []
        for name in active {
            guard let bulk = JobFileName.bulk(ofLedger: name), !isRead(bulk.name, bulk.claim) else { continue }
            ledgers.insert(name)
        }
        var bulks: [SpoolEntry] = []
        func take(_ state: JobState, among names: [String]) {
            for fileName in names.lazy.compactMap(JobFileName.init(fileName:)) where fileName.isBulk && fileName.claim != nil {
                guard ledgers.remove(fileName.ledgerName) != nil else { continue }
                bulks.append(SpoolEntry(fileName: fileName, state: state, path: path(of: state) + "/" + fileName.fileName))
            }
        }
        take(.running, among: active)
        if !ledgers.isEmpty {
            take(.queued, among: try FileSystem.fileNames(in: path(of: .queued)))
        }
        return bulks
    }

    // MARK: Claiming lines

    /// The next line due from the bulks claimed, oldest bulk first; nil when none is.
    func nextBulkLine() -> ClaimedJob? {
        let now = Date()
        return bulks.withLock { book in
            for claim in book.order {
                guard let line = book.claims[claim]?.takeLine(dueAt: now) else { continue }
                return line
            }
            return nil
        }
    }

    /// Opens a bulk file just claimed into `active/`: reads it and its ledger, files again the
    /// failed lines a crash kept out of `failed/`, and keeps its lines without an outcome to be
    /// handed out. Returns the first, the bulk whole when it cannot be read (to be failed whole),
    /// or nil when every line has an outcome already (the bulk is then finished).
    func openBulk(_ bulk: ClaimedJob) throws(SpoolError) -> ClaimedJob? {
        guard bulk.isBulk, let ranges = try? bulk.bulkLineRanges() else { return bulk }
        let fileName = bulk.jobFileName
        let ledger = try BulkLedger.read(path(of: .running) + "/" + fileName.ledgerName)
        var waiting: [BulkClaim.WaitingLine] = []
        for (number, range) in ranges {
            if let outcome = ledger.settled[number] {
                if case let .failed(report) = outcome {
                    try fileFailedLine(number, contents: bulk.contents[range], report: report, bulk: fileName, refiling: true)
                }
                continue
            }
            waiting.append(BulkClaim.WaitingLine(number: number, range: range, failedAttempts: ledger.failedAttempts[number] ?? 0))
        }
        try syncIfDurable(.failed)
        let claim = bulk.claim
        let isEmpty = waiting.isEmpty
        bulks.withLock { book in
            book.claims[claim] = BulkClaim(
                bulk: bulk, jobLineCount: ranges.count, settledCount: ledger.settled.count, waiting: waiting)
            book.order.append(claim)
        }
        if isEmpty {
            try returnOrFinishIfIdle(claim)
            return nil
        }
        return nextBulkLine()
    }

    // MARK: Settling lines

    /// Records the outcome of lines of bulk files: one append and one fsync to each bulk's
    /// ledger; a failed line also goes to `failed/`. A line settled already is skipped. A bulk
    /// whose every line now has an outcome moves to `done/`.
    func settleLines(_ lines: [(job: ClaimedJob, report: Data)], in state: JobState) throws(SpoolError) {
        guard !lines.isEmpty else { return }
        try syncClaims()
        var byBulk: [String: [(job: ClaimedJob, report: Data)]] = [:]
        var order: [String] = []
        for line in lines {
            guard let bulkLine = line.job.bulkLine, let claim = bulkLine.bulkFileName.claim else { continue }
            if byBulk[claim] == nil { order.append(claim) }
            byBulk[claim, default: []].append(line)
        }
        for claim in order {
            let open = bulks.withLock { book in
                byBulk[claim]!.filter { book.claims[claim]?.settled.contains($0.job.bulkLine!.number) == false }
            }
            guard let first = open.first?.job.bulkLine else { continue }
            let outcome: BulkLedger.Outcome = state == .done ? .done : .failed
            try BulkLedger.append(
                open.map { BulkLedger.entry(line: $0.job.bulkLine!.number, outcome: outcome, report: $0.report) },
                to: path(of: .running) + "/" + first.bulkFileName.ledgerName, sync: durability == .fsync)
            if state == .failed {
                for (job, report) in open {
                    try fileFailedLine(job.bulkLine!.number, contents: job.contents, report: report, bulk: first.bulkFileName, refiling: false)
                }
                try syncIfDurable(.failed)
            }
            bulks.withLock { book in
                for (job, _) in open { book.claims[claim]?.settle(job.bulkLine!.number) }
            }
            try returnOrFinishIfIdle(claim)
        }
    }

    /// Counts a failed attempt of a line in its bulk's ledger, so that a later claim of the bulk
    /// goes on counting.
    func recordFailedAttempt(ofLine job: ClaimedJob) throws(SpoolError) -> ClaimedJob {
        guard let bulkLine = job.bulkLine else { preconditionFailure("not a line of a bulk file") }
        try syncClaims()
        let counted = job.line(failedAttempts: job.failedAttempts + 1, notBefore: nil)
        try BulkLedger.append(
            [BulkLedger.entry(line: bulkLine.number, failedAttempts: counted.failedAttempts)],
            to: path(of: .running) + "/" + bulkLine.bulkFileName.ledgerName, sync: durability == .fsync)
        return counted
    }

    /// A line handed out that will not run now: at shutdown it is released (the bulk goes back
    /// to `new/` with it); a line that may not run yet waits in the bulk until `notBefore`.
    func giveBack(line job: ClaimedJob, notBefore: Date?) throws(SpoolError) {
        guard let claim = job.bulkLine?.bulkFileName.claim else { preconditionFailure("not a line of a bulk file") }
        bulks.withLock { book in
            if let notBefore {
                book.claims[claim]?.postpone(job.line(notBefore: JobFileName.seconds(notBefore: notBefore)))
            } else {
                book.claims[claim]?.release()
            }
        }
        try returnOrFinishIfIdle(claim)
    }

    // MARK: Moving the bulk file

    /// Once no line of the bulk is out: moves it to `done/` if every line has an outcome,
    /// otherwise, if it is being released, back to `new/` (keeping its claim, and so its ledger).
    private func returnOrFinishIfIdle(_ claim: String) throws(SpoolError) {
        let action = bulks.withLock { book -> (JobFileName, isFinished: Bool)? in
            guard let bulk = book.claims[claim], bulk.outstanding == 0, bulk.isFinished || bulk.isReleasing else { return nil }
            book.claims[claim] = nil
            book.order.removeAll { $0 == claim }
            return (bulk.fileName, bulk.isFinished)
        }
        guard let (fileName, isFinished) = action else { return }
        let source = path(of: .running) + "/" + fileName.fileName
        if isFinished {
            try syncClaims()
            try moveLedger(of: fileName, into: .done)
            try syncIfDurable(.done)
            guard try FileSystem.rename(source, to: path(of: .done) + "/" + fileName.fileName) else {
                throw SpoolError(code: .notFound, path: source, message: "the bulk file is no longer in active/")
            }
            try syncIfDurable(.done)
        } else {
            guard try requeue(from: source, as: fileName) != nil else {
                throw SpoolError(code: .notFound, path: source, message: "the bulk file is no longer in active/")
            }
            forgetBacklog()
            try syncIfDurable(.queued)
        }
    }

    /// Renames a bulk's ledger from `active/` to `<stem>.results.jsonl` in `state`'s directory;
    /// a bulk with no ledger (no line had an outcome) gets an empty one.
    func moveLedger(of fileName: JobFileName, into state: JobState) throws(SpoolError) {
        let ledger = path(of: .running) + "/" + fileName.ledgerName
        let results = path(of: state) + "/" + fileName.resultReportName
        // Moved already by a try that stopped before the bulk file moved.
        guard !FileSystem.fileExists(results) else { return }
        if FileSystem.fileExists(ledger) {
            _ = try FileSystem.rename(ledger, to: results)
        } else {
            try FileSystem.writeFile(results, contents: Data(), exclusive: true, sync: durability == .fsync)
        }
    }

    /// Writes a failed line into `failed/` as a job file of its own with its error report, the
    /// report first; either already there (from an earlier try) is left as it is.
    private func fileFailedLine(_ number: Int, contents: Data, report: Data, bulk: JobFileName, refiling: Bool) throws(SpoolError) {
        let line = JobFileName.line(number, of: bulk)
        let failed = path(of: .failed) + "/"
        if refiling, FileSystem.fileExists(failed + line.fileName) { return }
        for (name, bytes) in [(line.errorReportName, report), (line.fileName, contents)] where !FileSystem.fileExists(failed + name) {
            let temporary = temporaryPath + "/." + name
            try FileSystem.writeFile(temporary, contents: bytes, exclusive: false, sync: durability == .fsync)
            do throws(SpoolError) {
                _ = try FileSystem.rename(temporary, to: failed + name)
            } catch where error.code == .alreadyExists {
                try? FileSystem.removeFile(temporary)
            }
        }
    }
}

/// A job line of a bulk file that has an outcome, as the bulk's ledger or results record it
/// (``SpoolDirectory/settledLines(of:)``).
public struct SettledBulkLine: Sendable, Hashable {
    /// How a line was settled.
    public enum Outcome: Sendable, Hashable {
        /// Acknowledged: the line's job succeeded and its changes were flushed.
        case done
        /// Failed for good, with its error report; nil when the ledger's copy of the report
        /// cannot be read.
        case failed(JobFailureReport?)
    }

    /// The line's number in the bulk file, from 1, as an editor numbers it.
    public let number: Int
    /// The `id` of the line's job.
    public let id: String
    /// How it was settled.
    public let outcome: Outcome
    /// For a line done, its result report; nil when the ledger's copy cannot be read.
    public let resultReport: JobResultReport?

    /// A settled line.
    public init(number: Int, id: String, outcome: Outcome, resultReport: JobResultReport? = nil) {
        self.number = number
        self.id = id
        self.outcome = outcome
        self.resultReport = resultReport
    }
}

extension SpoolDirectory {
    /// Where the job lines of a bulk file's `contents` lie, with their line numbers; blank lines
    /// are skipped (and counted).
    static func bulkLineRanges(of contents: Data) -> [(number: Int, range: Range<Int>)] {
        // Split over the raw bytes: `Data`'s own iteration costs a call and an exclusivity check a
        // byte, which for a bulk of 100,000 jobs was a tenth of the daemon's work on them.
        contents.withUnsafeBytes { bytes in
            var lines: [(number: Int, range: Range<Int>)] = []
            var number = 0
            for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                number += 1
                let isBlank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
                if !isBlank { lines.append((number, contents.startIndex + line.startIndex..<contents.startIndex + line.endIndex)) }
            }
            return lines
        }
    }
}

extension SpoolDirectory {
    /// The jobs of a bulk file's `contents`, one job file a line, with their line numbers (from
    /// 1; blank lines are skipped and counted): for a consumer that takes a bulk file whole, as a
    /// daemon that moves its spool into a database does.
    public static func jobLines(ofBulk contents: Data) -> [(number: Int, contents: Data)] {
        bulkLineRanges(of: contents).map { ($0.number, contents.subdata(in: $0.range)) }
    }
}

extension ClaimedJob {
    /// Where the job lines of a bulk file lie in ``contents``, with their line numbers; blank
    /// lines are skipped (and counted). Throws when the file holds no job at all.
    func bulkLineRanges() throws(SpoolError) -> [(number: Int, range: Range<Int>)] {
        let lines = SpoolDirectory.bulkLineRanges(of: contents)
        guard !lines.isEmpty else {
            throw SpoolError(code: .malformedJobFile, path: path, message: "the bulk file holds no job (one job file a line)")
        }
        return lines
    }
}

/// The spool's books on the bulk files it has claimed, by claim, in claim order.
struct BulkBook: Sendable {
    var claims: [String: BulkClaim] = [:]
    var order: [String] = []
}

/// One claimed bulk file: its lines still to hand out, and how many are out.
///
/// The file's bytes are kept once; a line becomes a ``ClaimedJob`` (with a copy of its bytes)
/// only when it is handed out, so a bulk of a million lines holds a few words a line until then.
struct BulkClaim: Sendable {
    /// A line still to hand out.
    struct WaitingLine: Sendable {
        let number: Int
        /// Where it lies in the file's bytes.
        let range: Range<Int>
        let failedAttempts: Int
    }

    let fileName: JobFileName
    let jobLineCount: Int
    /// The bulk file, claimed whole: its bytes, path and claim time.
    private let bulk: ClaimedJob
    /// Lines with an outcome (in the ledger when claimed, or since).
    private(set) var settled: Set<Int> = []
    private var settledBeforeClaim: Int
    /// Lines to hand out, the last first.
    private var waiting: [WaitingLine]
    /// Lines handed out and given back until their `notBefore`.
    private var postponed: [ClaimedJob] = []
    /// Lines handed out and neither settled nor given back.
    private(set) var outstanding = 0
    var isReleasing = false

    init(bulk: ClaimedJob, jobLineCount: Int, settledCount: Int, waiting: [WaitingLine]) {
        self.bulk = bulk
        self.fileName = bulk.jobFileName
        self.jobLineCount = jobLineCount
        self.settledBeforeClaim = settledCount
        self.waiting = waiting.reversed()
    }

    var isFinished: Bool { settledBeforeClaim + settled.count == jobLineCount }

    mutating func takeLine(dueAt now: Date) -> ClaimedJob? {
        guard !isReleasing else { return nil }
        if let index = postponed.firstIndex(where: { ($0.notBefore ?? now) <= now }) {
            outstanding += 1
            return postponed.remove(at: index).line(notBefore: nil)
        }
        guard let line = waiting.popLast() else { return nil }
        outstanding += 1
        return claimedJob(for: line)
    }

    /// A waiting line as a job of its own; one longer than a job file may be fails with why.
    private func claimedJob(for line: WaitingLine) -> ClaimedJob {
        var loadFailure: SpoolError?
        if line.range.count > SpoolDirectory.maximumJobFileSize {
            loadFailure = SpoolError(
                code: .malformedJobFile, path: bulk.path + ":\(line.number)",
                message: "the line is \(line.range.count) bytes, more than the limit of \(SpoolDirectory.maximumJobFileSize) for a job")
        }
        return ClaimedJob(
            line: BulkLine(number: line.number, bulkFileName: fileName, bulkPath: bulk.path),
            contents: loadFailure == nil ? Data(bulk.contents[line.range]) : Data(), failedAttempts: line.failedAttempts,
            notBefore: nil, claimedAt: bulk.claimedAt, loadFailure: loadFailure)
    }

    mutating func settle(_ number: Int) {
        guard settled.insert(number).inserted else { return }
        outstanding -= 1
    }

    mutating func postpone(_ line: ClaimedJob) {
        outstanding -= 1
        postponed.append(line)
    }

    mutating func release() {
        outstanding -= 1
        isReleasing = true
    }
}
