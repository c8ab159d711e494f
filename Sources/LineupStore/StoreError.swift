/// An error of the object-graph stack. Misuse (an object used off its context's queue, an unknown
/// property) is a precondition failure, not a thrown error; what is thrown is what a correct
/// program can meet: a missing row, a conflict, a store that cannot be opened, a failed write.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: a code to switch on, the message says the rest.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case objectNotFound, mergeConflict, validationFailed, deleteDenied, storeNotOurs, storeCorrupt,
                storeNewerThanModel, migrationUnsupported, unexpectedRowCount, invalidURL, sqlite, postgres
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The row of an object ID does not exist.
        public static let objectNotFound = Code(.objectNotFound)
        /// A save met conflicts that its merge policy did not resolve; see `conflicts`.
        public static let mergeConflict = Code(.mergeConflict)
        /// An object refused to be saved.
        public static let validationFailed = Code(.validationFailed)
        /// A deleted object's relationship with the `.deny` rule still reaches objects that are
        /// not deleted; the message names them. Nothing was saved.
        public static let deleteDenied = Code(.deleteDenied)
        /// The file is an SQLite database, or the PostgreSQL database holds tables, that Lineup
        /// did not create.
        public static let storeNotOurs = Code(.storeNotOurs)
        /// The file is not a readable SQLite database.
        public static let storeCorrupt = Code(.storeCorrupt)
        /// The store was written by a newer model (it has entities or properties this model lacks),
        /// or a schema of the database (the store's own tables, the job tables) has a version newer
        /// than this Lineup knows; the message names both versions.
        public static let storeNewerThanModel = Code(.storeNewerThanModel)
        /// The model changed in a way that cannot be migrated in place.
        public static let migrationUnsupported = Code(.migrationUnsupported)
        /// A ``FlushStatement`` changed another number of rows than it expects; the message names
        /// it and both counts. The flush was rolled back, its rows with it.
        public static let unexpectedRowCount = Code(.unexpectedRowCount)
        /// The URL names no store that can be opened there: a `PersistentContainer(url:)` of a
        /// URL that is not a file's (a PostgreSQL store is LineupPostgres's).
        public static let invalidURL = Code(.invalidURL)
        /// SQLite failed (disk full, I/O error, ...); see `underlying`.
        public static let sqlite = Code(.sqlite)
        /// PostgreSQL refused a statement or could not be reached; the message has the server's
        /// words and SQLSTATE.
        public static let postgres = Code(.postgres)

        /// The code's name as written in Swift (`objectNotFound`), as ``StoreError/description``
        /// begins.
        public var description: String { String(describing: value) }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence that explains it, for people; it names the file, object or statement where there
    /// is one.
    public let message: String
    /// The conflicts of a `.mergeConflict` error.
    public let conflicts: [MergeConflict]
    /// The error this one wraps (a GRDB or PostgreSQL error), if any.
    public let underlying: (any Error)?
    /// Whether the error may go away by itself: the database could not be reached, or its server
    /// ended the connection or turned it away for now (a restart, a failover, too many
    /// connections), or gave up a transaction another one blocked (a serialization failure, a
    /// deadlock). Another attempt may succeed, so the daemon retries a job that failed with it.
    public let isTransient: Bool

    package init(
        _ code: Code, _ message: String, conflicts: [MergeConflict] = [], underlying: (any Error)? = nil, isTransient: Bool = false
    ) {
        self.code = code
        self.message = message
        self.conflicts = conflicts
        self.underlying = underlying
        self.isTransient = isTransient
    }

    /// `"<code>: <message>"`, then the conflicts in brackets and the underlying error in
    /// parentheses when there are any (a PostgreSQL error's text is in the message already).
    public var description: String {
        var text = "\(code): \(message)"
        if !conflicts.isEmpty {
            text += " [" + conflicts.map(\.description).joined(separator: "; ") + "]"
        }
        // postgres-nio's error describes itself only as a generic text, to keep a server's
        // details from end users; the message already holds them.
        if let underlying, code != .postgres {
            text += " (\(underlying))"
        }
        return text
    }
}
