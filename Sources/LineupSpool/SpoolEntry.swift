public import Foundation

/// A job file found in one of the spool's directories, for listings (`lineup status`).
public struct SpoolEntry: Sendable, Hashable {
    /// The job's stable name (reports are named after it).
    public let name: String
    /// The file's name in its directory.
    public let fileName: String
    /// Which directory it lies in.
    public let state: SpoolState
    /// The job file's path.
    public let path: String
    /// How many times a daemon stopped while running it.
    public let interruptions: Int

    init(fileName: JobFileName, state: SpoolState, path: String) {
        self.name = fileName.name
        self.fileName = fileName.fileName
        self.state = state
        self.path = path
        self.interruptions = fileName.interruptions
    }

    /// The job file.
    public var url: URL {
        URL(fileURLWithPath: path)
    }
}
