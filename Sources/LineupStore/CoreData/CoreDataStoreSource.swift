import Foundation
import GRDBSQLite

/// Where the reader's SQLite connection opens a Core Data store, so that reading it never
/// writes beside it.
///
/// A store in WAL mode opened read-only still makes its `-shm` (32 KB) and an empty `-wal` when
/// they are not there: SQLite needs a shared-memory index to read a WAL database. A store copied
/// without its `-wal` (the `walFileMissing` case) would so gain two files in the user's folder.
/// There the store is opened *immutable* (`file:…?immutable=1`): SQLite reads the file as it is,
/// with no lock, no `-shm` and no `-wal`; nothing else can be in its log, since the log is not
/// there. Where this SQLite takes no URI file names, the store is read from a private copy.
///
/// With its `-wal` beside it, the store is opened in place, read-only, so that the rows in the log
/// are read too (SQLite may then update the `-shm` index).
struct CoreDataStoreSource {
    /// What to hand SQLite as the database's path.
    let openingPath: String
    /// The private copy's directory, removed when the reader is done; nil when reading in place.
    let privateCopy: URL?

    init(storePath path: String, isWALMode: Bool) throws {
        guard isWALMode, !FileManager.default.fileExists(atPath: path + "-wal") else {
            openingPath = path
            privateCopy = nil
            return
        }
        if sqlite3_compileoption_used("USE_URI") != 0 {
            openingPath = "file:" + Self.uriEscaped(path) + "?immutable=1"
            privateCopy = nil
        } else {
            let directory = FileManager.default.temporaryDirectory.appending(path: "lineup-coredata-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let copy = directory.appending(path: URL(fileURLWithPath: path).lastPathComponent)
            try FileManager.default.copyItem(atPath: path, toPath: copy.path)
            openingPath = copy.path
            privateCopy = directory
        }
    }

    /// Removes the private copy, if there is one.
    func remove() {
        if let privateCopy {
            try? FileManager.default.removeItem(at: privateCopy)
        }
    }

    /// A path as the path of a `file:` URI: `%`, `?` and `#` would end or escape it, so every
    /// byte but the unreserved ones and `/` is percent-encoded (SQLite decodes `%HH`).
    static func uriEscaped(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return path.utf8.map { byte in
            let scalar = Unicode.Scalar(byte)
            return byte < 0x80 && allowed.contains(scalar) ? String(Character(scalar)) : String(format: "%%%02X", byte)
        }.joined()
    }
}
