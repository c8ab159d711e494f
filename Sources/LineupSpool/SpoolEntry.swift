public import Foundation

/// A job file found in one of the spool's directories, for listings (`lineup status`).
public struct SpoolEntry: Sendable, Hashable {
    /// The job's name as it was enqueued; several jobs may share it.
    public let name: String
    /// The file's name in its directory.
    public let fileName: String
    /// Which directory it lies in.
    public let state: JobState
    /// The job file's path.
    public let path: String
    /// How many times a daemon stopped while running it.
    public let interruptions: Int
    /// How many of its attempts failed and were (or will be) retried.
    public let failedAttempts: Int
    /// Its claim, for a job in `active/`, `done/` or `failed/` (see ``ClaimedJob/claim``).
    public let claim: String?
    /// The `notBefore` time its file name carries: a queued job waits until then.
    public var notBefore: Date? { notBeforeTag.map { Date(timeIntervalSince1970: Double($0)) } }
    private let notBeforeTag: Int64?
    /// Whether it is a bulk file (`*.jobs.jsonl`, one job a line) rather than one job.
    public let isBulk: Bool
    /// The priority its file name carries (``JobFile/priority``): a queued job is claimed before
    /// the jobs of a higher number.
    public var priority: Int { priorityTag ?? JobFile.defaultPriority }
    private let priorityTag: Int?

    init(fileName: JobFileName, state: JobState, path: String) {
        self.name = fileName.name
        self.fileName = fileName.fileName
        self.state = state
        self.path = path
        self.interruptions = fileName.interruptions
        self.failedAttempts = fileName.failedAttempts
        self.claim = fileName.claim
        self.notBeforeTag = fileName.notBefore
        self.isBulk = fileName.isBulk
        self.priorityTag = fileName.priority
    }

    var jobFileName: JobFileName {
        JobFileName(
            name: name, notBefore: notBeforeTag, interruptions: interruptions, failedAttempts: failedAttempts, claim: claim,
            isBulk: isBulk, priority: priorityTag)
    }

    /// The job file.
    public var url: URL {
        URL(fileURLWithPath: path)
    }
}
