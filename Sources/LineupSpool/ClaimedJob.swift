public import Foundation

/// A job this process has claimed: its file now lies in `active/` and no other claimer can
/// take it. Finish it with one of `complete`, `fail` or `release` of ``SpoolDirectory``.
public struct ClaimedJob: Sendable, Hashable {
    /// One allocation that every copy shares. A claimed job is handed from the spool to the
    /// runner, its record, the task's completion, the committer and the events; with its dozen
    /// strings and buffers stored inline, each of those copies retained and released every one.
    private let storage: Storage

    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private struct Fields: Sendable, Hashable {
        let name: String
        let claim: String
        let fileName: String
        let path: String
        let contents: Data
        let interruptions: Int
        let failedAttempts: Int
        let claimedAt: Date
        let notBeforeTag: Int64?
        let loadFailure: SpoolError?
        let isBulk: Bool
        let bulkLine: BulkLine?
        /// The `.p` tag of its name (see `JobFileName.priority`), kept through its renames.
        var priorityTag: Int? = nil
    }

    /// The job's name, as it was enqueued (the file name without its tags and `.job.json`).
    /// Several jobs may share a name; ``claim`` tells them apart.
    public var name: String { storage.fields.name }
    /// This claim: drawn afresh each time a job is claimed, part of the file's name in
    /// `active/`, `done/` and `failed/` and of its report's, so that no two jobs (nor two runs
    /// of one job) ever share a file or a report. Unique among every job this spool holds.
    public var claim: String { storage.fields.claim }
    /// The file's name in `active/`, e.g.
    /// `20261122T193512.123456Z-4242-0a1b2c-1.i1.c5e0f3a9b2c71.job.json`.
    public var fileName: String { storage.fields.fileName }
    /// The file's path in `active/`.
    public var path: String { storage.fields.path }
    /// The file's bytes (empty when the file could not be read; see ``decodeJobFile()``).
    public var contents: Data { storage.fields.contents }
    /// How many times a daemon stopped while running this job before this claim.
    public var interruptions: Int { storage.fields.interruptions }
    /// How many attempts of this job failed with a retryable error before this claim, in this
    /// run or an earlier one (see ``SpoolDirectory/recordFailedAttempt(of:)``).
    public var failedAttempts: Int { storage.fields.failedAttempts }
    /// When this process claimed it.
    public var claimedAt: Date { storage.fields.claimedAt }
    /// The `notBefore` time its file name carries (see ``JobFile/notBefore``), to the second.
    public var notBefore: Date? { notBeforeTag.map { Date(timeIntervalSince1970: Double($0)) } }
    private var notBeforeTag: Int64? { storage.fields.notBeforeTag }
    /// Why the file could not be read, if it could not.
    private var loadFailure: SpoolError? { storage.fields.loadFailure }
    /// Whether this is a bulk file as a whole (`*.jobs.jsonl`): ``SpoolDirectory/claimNext()``
    /// hands out its lines instead, so a consumer meets one only from ``SpoolDirectory/claim(fileName:)``
    /// or when the file cannot be read (then fail it, and it goes to `failed/` whole).
    public var isBulk: Bool { storage.fields.isBulk }
    /// For a job that is a line of a bulk file, which line of which file; nil for a job file.
    public var bulkLine: BulkLine? { storage.fields.bulkLine }

    private init(_ fields: Fields) {
        storage = Storage(fields)
    }

    public static func == (lhs: ClaimedJob, rhs: ClaimedJob) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }

    init(
        fileName: JobFileName,
        path: String,
        contents: Data,
        claimedAt: Date,
        loadFailure: SpoolError?
    ) {
        guard let claim = fileName.claim else { preconditionFailure("a claimed job file has a claim") }
        self.init(
            Fields(
                name: fileName.name, claim: claim, fileName: fileName.fileName, path: path, contents: contents,
                interruptions: fileName.interruptions, failedAttempts: fileName.failedAttempts, claimedAt: claimedAt,
                notBeforeTag: fileName.notBefore, loadFailure: loadFailure, isBulk: fileName.isBulk, bulkLine: nil,
                priorityTag: fileName.priority))
    }

    /// A line of a claimed bulk file, as a job of its own: named `<bulk name>.line<N>`, with the
    /// bulk's interruptions, the line's own failed attempts (from the bulk's ledger), and, as its
    /// file name, the one it gets in `failed/` if it fails (``BulkLine/failedFileName``).
    init(
        line: BulkLine, contents: Data, failedAttempts: Int, notBefore: Int64?, claimedAt: Date, loadFailure: SpoolError?
    ) {
        let tags = line.failedFileName
        self.init(
            Fields(
                name: tags.name, claim: (line.bulkFileName.claim ?? "") + ".line\(line.number)", fileName: tags.fileName,
                path: line.bulkPath, contents: contents, interruptions: line.bulkFileName.interruptions,
                failedAttempts: failedAttempts, claimedAt: claimedAt, notBeforeTag: notBefore, loadFailure: loadFailure,
                isBulk: false, bulkLine: line))
    }

    /// The file in `active/`.
    public var url: URL {
        URL(fileURLWithPath: path)
    }

    /// The job file's name as it was enqueued (`<name>.job.json`): what failure reports and
    /// errors call the job by. Its path in `active/` carries the spool's own tags and moves
    /// on to `done/` or `failed/`, so it would name a file that is no longer there.
    /// For a line of a bulk file, the bulk's name and the line: `<bulk name>.jobs.jsonl:<N>`.
    public var enqueuedFileName: String {
        if let bulkLine {
            return bulkLine.bulkFileName.enqueuedFileName + ":\(bulkLine.number)"
        }
        return jobFileName.enqueuedFileName
    }

    var jobFileName: JobFileName {
        if let bulkLine {
            return bulkLine.failedFileName
        }
        return JobFileName(
            name: name, notBefore: notBeforeTag, interruptions: interruptions, failedAttempts: failedAttempts, claim: claim,
            isBulk: isBulk, priority: storage.fields.priorityTag)
    }

    /// The same claim after its file was renamed to `fileName` in the same directory.
    func renamed(to fileName: JobFileName, path: String) -> ClaimedJob {
        ClaimedJob(fileName: fileName, path: path, contents: contents, claimedAt: claimedAt, loadFailure: loadFailure)
    }

    /// The same line of a bulk file with another count of failed attempts, or due at another time.
    func line(failedAttempts: Int? = nil, notBefore: Int64?) -> ClaimedJob {
        guard let bulkLine else { preconditionFailure("\(fileName) is not a line of a bulk file") }
        return ClaimedJob(
            line: bulkLine, contents: contents, failedAttempts: failedAttempts ?? self.failedAttempts, notBefore: notBefore,
            claimedAt: claimedAt, loadFailure: loadFailure)
    }

    /// Parses the claimed file. A file that cannot be read, is too large or is not a valid
    /// job throws a ``SpoolError`` that names the file: fail the job with its description.
    public func decodeJobFile() throws(SpoolError) -> JobFile {
        if let loadFailure {
            throw loadFailure
        }
        if isBulk {
            _ = try bulkLineRanges()
            throw SpoolError(code: .malformedJobFile, path: path, message: "is a bulk file, not one job: claim its lines with claimNext()")
        }
        return try JobFile(data: contents, path: bulkLine.map { "\(path):\($0.number)" } ?? path)
    }
}

/// Which line of which bulk file a claimed job is.
public struct BulkLine: Sendable, Hashable {
    /// The line number in the file, from 1 (blank lines count, as an editor counts them).
    public let number: Int
    /// The bulk file's name in `active/`.
    let bulkFileName: JobFileName
    /// The bulk file's path in `active/`.
    let bulkPath: String

    /// The bulk file's name as it was enqueued (`<name>.jobs.jsonl`).
    public var bulkName: String { bulkFileName.enqueuedFileName }

    /// The line's name in `failed/` if it fails: `<bulk name>.line<N>.c<bulk claim>.job.json`,
    /// the same whatever the bulk's interruptions, so that a line is filed there once.
    var failedFileName: JobFileName {
        JobFileName.line(number, of: bulkFileName)
    }
}
