/// Something about a Core Data store that does not stop it from being read, but makes what is
/// read doubtful: a reader reports it beside the rows, never instead of an error or silently.
public struct CoreDataStoreWarning: Sendable, Hashable, CustomStringConvertible {
    /// What is doubtful; compare with the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The header says the store is in WAL mode and its `-wal` file is not beside it. A Core
        /// Data app keeps the rows it saved since its last checkpoint in the `-wal` (a SurfJournal
        /// seed store keeps all of them there), so the store may read as partial or empty.
        public static let walFileMissing = Code("walFileMissing")

        /// The code's name as written in Swift: `walFileMissing`.
        public var description: String { name }
    }

    /// What is doubtful about the store.
    public let code: Code
    /// The store file.
    public let path: String
    /// What is doubtful and what it may mean for the rows read, in words, without stored values.
    public let message: String

    /// `"<path>: <message>"`.
    public var description: String { "\(path): \(message)" }
}
