/// A fixture file that could not be created, written or moved into place.
public struct FixtureWriteError: Error, CustomStringConvertible, Sendable {
    /// The file that was being written.
    public let path: String
    public let message: String
    /// `errno` of the system call that failed.
    public let systemErrorNumber: Int32

    public var description: String { "\(path): \(message)" }
}
