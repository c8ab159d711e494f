public import Foundation

/// A job file found in one of the spool's directories, for listings (`lineup status`).
public struct SpoolEntry: Sendable, Hashable {
    /// The job's stable name (reports are named after it).
    public let name: String
    /// The file's name in its directory.
    public let fileName: String
    /// Which directory it lies in.
    public let state: SpoolState
    /// The job file.
    public let url: URL
    /// How many times a daemon stopped while running it.
    public let interruptions: Int

    init(fileName: JobFileName, state: SpoolState, url: URL) {
        self.name = fileName.name
        self.fileName = fileName.fileName
        self.state = state
        self.url = url
        self.interruptions = fileName.interruptions
    }
}
