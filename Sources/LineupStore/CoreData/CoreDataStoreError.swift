/// An error raised while opening or reading a Core Data SQLite store.
///
/// The ``description`` always names the store file. It names entities, attributes and
/// primary keys, never the stored values.
public struct CoreDataStoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case fileNotFound
            case notADatabase
            case notACoreDataStore
            case walFilesUnavailable
            case cannotOpen
            case malformedStore
            case unknownEntity
            case unknownAttribute
            case typeMismatch
            case readFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// No file exists at the given path.
        public static let fileNotFound = Code(.fileNotFound)
        /// The file is not an SQLite database (or is a directory).
        public static let notADatabase = Code(.notADatabase)
        /// The file is an SQLite database without the `Z_PRIMARYKEY` and `Z_METADATA` tables
        /// that every Core Data store has.
        public static let notACoreDataStore = Code(.notACoreDataStore)
        /// The store is in WAL mode and SQLite cannot read it read-only because its `-shm`
        /// (or `-wal`) file is missing and cannot be created in a directory that is not
        /// writable.
        public static let walFilesUnavailable = Code(.walFilesUnavailable)
        /// SQLite could not open or read the file for another reason (permissions, locks).
        public static let cannotOpen = Code(.cannotOpen)
        /// The Core Data bookkeeping tables contradict the rest of the schema (for example an
        /// entity listed in `Z_PRIMARYKEY` without a table).
        public static let malformedStore = Code(.malformedStore)
        /// No entity of that name is listed in `Z_PRIMARYKEY`.
        public static let unknownEntity = Code(.unknownEntity)
        /// A row has no attribute of that name.
        public static let unknownAttribute = Code(.unknownAttribute)
        /// A typed accessor found a value of another type (for example text for `int(_:)`).
        public static let typeMismatch = Code(.typeMismatch)
        /// SQLite failed while rows were being read, or the reader was closed.
        public static let readFailed = Code(.readFailed)

        /// The code's name as written in Swift: `fileNotFound`, `typeMismatch`, ….
        public var description: String {
            base.rawValue
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The path of the store file involved.
    public let path: String
    /// What went wrong, in words, without stored values.
    public let reason: String
    /// The SQLite error behind this one, if any.
    public let underlyingError: (any Error)?

    /// Creates an error about the store at `path`.
    public init(code: Code, path: String, reason: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.reason = reason
        self.underlyingError = underlyingError
    }

    /// `"Core Data store <path>: <reason>"`, then the underlying error in parentheses when there is
    /// one.
    public var description: String {
        var text = "Core Data store \(path): \(reason)"
        if let underlyingError {
            text += " (\(underlyingError))"
        }
        return text
    }
}
