public import Foundation

/// A job this process has claimed: its file now lies in `active/` and no other claimer can
/// take it. Finish it with one of `complete`, `fail` or `release` of ``SpoolDirectory``.
public struct ClaimedJob: Sendable, Hashable {
    /// The job's name, as it was enqueued (the file name without its tags and `.job.json`).
    /// Several jobs may share a name; ``claim`` tells them apart.
    public let name: String
    /// This claim: drawn afresh each time a job is claimed, part of the file's name in
    /// `active/`, `done/` and `failed/` and of its report's, so that no two jobs (nor two runs
    /// of one job) ever share a file or a report. Unique among every job this spool holds.
    public let claim: String
    /// The file's name in `active/`, e.g.
    /// `20261122T193512.123456Z-4242-0a1b2c-1.i1.c5e0f3a9b2c71.job.json`.
    public let fileName: String
    /// The file's path in `active/`.
    public let path: String
    /// The file's bytes (empty when the file could not be read; see ``decodeJobFile()``).
    public let contents: Data
    /// How many times a daemon stopped while running this job before this claim.
    public let interruptions: Int
    /// How many attempts of this job failed with a retryable error before this claim, in this
    /// run or an earlier one (see ``SpoolDirectory/recordFailedAttempt(of:)``).
    public let failedAttempts: Int
    /// When this process claimed it.
    public let claimedAt: Date
    /// The `notBefore` time its file name carries (see ``JobFile/notBefore``), to the second.
    public var notBefore: Date? { notBeforeTag.map { Date(timeIntervalSince1970: Double($0)) } }
    private let notBeforeTag: Int64?
    /// Why the file could not be read, if it could not.
    private let loadFailure: SpoolError?

    init(
        fileName: JobFileName,
        path: String,
        contents: Data,
        claimedAt: Date,
        loadFailure: SpoolError?
    ) {
        guard let claim = fileName.claim else { preconditionFailure("a claimed job file has a claim") }
        self.name = fileName.name
        self.claim = claim
        self.fileName = fileName.fileName
        self.path = path
        self.contents = contents
        self.interruptions = fileName.interruptions
        self.failedAttempts = fileName.failedAttempts
        self.notBeforeTag = fileName.notBefore
        self.claimedAt = claimedAt
        self.loadFailure = loadFailure
    }

    /// The file in `active/`.
    public var url: URL {
        URL(fileURLWithPath: path)
    }

    /// The job file's name as it was enqueued (`<name>.job.json`): what failure reports and
    /// errors call the job by. Its path in `active/` carries the spool's own tags and moves
    /// on to `done/` or `failed/`, so it would name a file that is no longer there.
    public var enqueuedFileName: String {
        name + JobFileName.suffix
    }

    var jobFileName: JobFileName {
        JobFileName(name: name, notBefore: notBeforeTag, interruptions: interruptions, failedAttempts: failedAttempts, claim: claim)
    }

    /// The same claim after its file was renamed to `fileName` in the same directory.
    func renamed(to fileName: JobFileName, path: String) -> ClaimedJob {
        ClaimedJob(fileName: fileName, path: path, contents: contents, claimedAt: claimedAt, loadFailure: loadFailure)
    }

    /// Parses the claimed file. A file that cannot be read, is too large or is not a valid
    /// job throws a ``SpoolError`` that names the file: fail the job with its description.
    public func decodeJobFile() throws(SpoolError) -> JobFile {
        if let loadFailure {
            throw loadFailure
        }
        return try JobFile(data: contents, path: path)
    }
}
