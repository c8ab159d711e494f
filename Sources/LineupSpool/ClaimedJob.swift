public import Foundation

/// A job this process has claimed: its file now lies in `active/` and no other claimer can
/// take it. Finish it with one of `complete`, `fail` or `release` of ``SpoolDirectory``.
public struct ClaimedJob: Sendable, Hashable {
    /// The job's stable name (the file name without the interruption count and `.job.json`);
    /// reports are named after it.
    public let name: String
    /// The file's name in `active/`, e.g. `20261122T193512.123456Z-4242-0a1b2c-1.i1.job.json`.
    public let fileName: String
    /// The file's path in `active/`.
    public let path: String
    /// The file's bytes (empty when the file could not be read; see ``decodeJobFile()``).
    public let contents: Data
    /// How many times a daemon stopped while running this job before this claim.
    public let interruptions: Int
    /// When this process claimed it.
    public let claimedAt: Date
    /// Why the file could not be read, if it could not.
    private let loadFailure: SpoolError?

    init(
        fileName: JobFileName,
        path: String,
        contents: Data,
        claimedAt: Date,
        loadFailure: SpoolError?
    ) {
        self.name = fileName.name
        self.fileName = fileName.fileName
        self.path = path
        self.contents = contents
        self.interruptions = fileName.interruptions
        self.claimedAt = claimedAt
        self.loadFailure = loadFailure
    }

    /// The file in `active/`.
    public var url: URL {
        URL(fileURLWithPath: path)
    }

    var jobFileName: JobFileName {
        JobFileName(name: name, interruptions: interruptions)
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
