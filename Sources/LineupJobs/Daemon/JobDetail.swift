import Foundation
public import LineupSpool

/// One job file wherever it lies, with its report: what the dashboard's `GET /api/jobs/ID`
/// serves (`lineup show` prints the same for people).
public struct JobDetail: Sendable, Encodable {
    /// The name it was enqueued under.
    public var name: String
    /// Its file's `id`, if it has one and the file can be read.
    public var id: String?
    /// Where it is in its life.
    public var state: JobState
    /// The directory it lies in (`new`, `active`, `done`, `failed`).
    public var directory: String
    /// The file's name in its directory: the name, the spool's `notBefore`, interruption, attempt
    /// and
    /// claim tags, then `.job.json` (`.jobs.jsonl` for a bulk file).
    public var fileName: String
    /// How many attempts of it failed with a retryable error so far (from its file name).
    public var failedAttempts: Int
    /// How many times a daemon stopped while it ran (from its file name); at the poison threshold
    /// it fails.
    public var interruptions: Int
    /// Whether it is a bulk file (`*.jobs.jsonl`), one job a line; then ``id`` is nil and ``file``
    /// is cut at ``maximumFileLength``.
    public var isBulk: Bool
    /// Its bytes as text, cut at ``maximumFileLength`` bytes; nil when it cannot be read.
    public var file: String?
    /// Its result report, once it is done.
    public var result: JobResultReport?
    /// Its error report, once it failed.
    public var failure: JobFailureReport?
    /// Its latest log lines, where they are kept (the dashboard's ``JobLog``).
    public var log: [JobLog.Line]?

    /// How much of a job file is shown.
    public static let maximumFileLength = 65_536

    /// The jobs whose `id` field or enqueued name is `id`, in every directory of the spool.
    public static func find(_ id: String, in directory: SpoolDirectory) throws -> [JobDetail] {
        try JobState.allCases.flatMap { state in
            try directory.entries(state, matching: id).map { JobDetail($0, in: directory) }
        }
    }

    init(_ entry: SpoolEntry, in directory: SpoolDirectory) {
        name = entry.name
        state = entry.state
        self.directory = entry.state.directoryName
        fileName = entry.fileName
        failedAttempts = entry.failedAttempts
        interruptions = entry.interruptions
        isBulk = entry.isBulk
        // Read once: a job file whole (it is at most `maximumJobFileSize`) for its id, a bulk
        // file only as far as it is shown.
        let limit = entry.isBulk ? Self.maximumFileLength : SpoolDirectory.maximumJobFileSize
        let contents = (try? FileHandle(forReadingFrom: entry.url)).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: limit) ?? Data()
        }
        file = contents.map { String(decoding: $0.prefix(Self.maximumFileLength), as: UTF8.self) }
        id = entry.isBulk ? nil : contents.flatMap { try? JobFile(data: $0).id }
        result = entry.state == .done ? try? directory.resultReport(for: entry) : nil
        failure = entry.state == .failed ? try? directory.failureReport(for: entry) : nil
    }
}
