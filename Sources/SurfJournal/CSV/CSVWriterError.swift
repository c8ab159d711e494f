#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error raised by ``CSVWriter``. The ``description`` names the destination file and,
/// for system-call failures, the `errno` and its meaning.
public struct CSVWriterError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case cannotCreate
            case writeFailed
            case cannotReplace
            case invalidValue
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The temporary file could not be created (missing or read-only directory, the
        /// destination is a directory).
        public static let cannotCreate = Code(.cannotCreate)
        /// Writing, syncing or closing the temporary file failed (e.g. `ENOSPC`, disk full).
        public static let writeFailed = Code(.writeFailed)
        /// The finished file could not be renamed over the destination.
        public static let cannotReplace = Code(.cannotReplace)
        /// A field cannot be written (a date outside years 0000–9999). The row is dropped;
        /// the writer stays usable.
        public static let invalidValue = Code(.invalidValue)

        public var description: String {
            base.rawValue
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The destination file the writer was producing.
    public let path: String
    /// What went wrong, in words.
    public let reason: String
    /// The `errno` of the failed system call, if any.
    public let errorNumber: Int32?

    /// Creates an error about the CSV file at `path`.
    public init(code: Code, path: String, reason: String, errorNumber: Int32? = nil) {
        self.code = code
        self.path = path
        self.reason = reason
        self.errorNumber = errorNumber
    }

    public var description: String {
        var text = "CSV file \(path): \(reason)"
        if let errorNumber {
            text += ": \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
        }
        return text
    }
}
