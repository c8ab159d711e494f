public import Foundation

/// An error of the spool: a job file that cannot be read or understood, a path that a job may
/// not use, or a file-system operation that failed.
///
/// The ``description`` always names the file or path involved, so that it can be written
/// as-is into a log line or a failure report. It names the JSON type of a wrong value, never
/// the value itself.
public struct SpoolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in a form a program can switch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case malformedJobFile
            case missingField
            case invalidField
            case invalidPath
            case pathOutsideAllowedDirectory
            case notFound
            case alreadyExists
            case io
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The file is not a JSON object (bad syntax, another JSON type, unreadable, too large).
        public static let malformedJobFile = Code(.malformedJobFile)
        /// A required field is absent (or `null`).
        public static let missingField = Code(.missingField)
        /// A field is present but has the wrong type or an impossible value.
        public static let invalidField = Code(.invalidField)
        /// A path is empty or cannot name a file (e.g. it contains a NUL byte or names the
        /// directory itself).
        public static let invalidPath = Code(.invalidPath)
        /// A path is absolute, climbs out with `..`, or resolves (through symbolic links)
        /// outside the directory a job may use.
        public static let pathOutsideAllowedDirectory = Code(.pathOutsideAllowedDirectory)
        /// A file or directory that must exist does not.
        public static let notFound = Code(.notFound)
        /// A file is already where the spool would move one: the spool never replaces a file.
        public static let alreadyExists = Code(.alreadyExists)
        /// A system call failed; ``SpoolError/systemErrorNumber`` holds `errno`.
        public static let io = Code(.io)

        public var description: String {
            switch value {
            case .malformedJobFile: "malformed job file"
            case .missingField: "missing field"
            case .invalidField: "invalid field"
            case .invalidPath: "invalid path"
            case .pathOutsideAllowedDirectory: "path outside allowed directory"
            case .notFound: "not found"
            case .alreadyExists: "already exists"
            case .io: "I/O error"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The file or path involved, if there is one.
    public var path: String?
    /// A sentence that explains the problem (without the path, which ``description`` adds).
    public var message: String
    /// `errno` of the failed system call, for ``Code/io`` and ``Code/notFound`` errors.
    public var systemErrorNumber: Int32?

    /// Creates an error.
    public init(code: Code, path: String?, message: String, systemErrorNumber: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.systemErrorNumber = systemErrorNumber
    }

    /// `"<path>: <message>"`, or the message alone when no path is known.
    public var description: String {
        if let path {
            return "\(path): \(message)"
        }
        return message
    }
}

extension SpoolError: LocalizedError {
    public var errorDescription: String? { description }
}
