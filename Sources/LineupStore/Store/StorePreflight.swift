import Foundation
import GRDBSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the tables and the `lineup_metadata` of a store file without changing a byte of it, so
/// that a store Lineup must refuse (not ours, written by a newer Lineup or model) is refused
/// before anything opens it for writing. Opening the pool would already write: it switches the
/// journal to WAL and creates the `-wal` and `-shm` files.
///
/// With no `-wal` beside it, the file is opened `immutable` (no locks, no `-shm`): everything is
/// in the file. With a `-wal`, the metadata may live there, and even a read-only connection
/// writes the `-shm` beside the files it reads: so the `.sqlite` and its `-wal` are hard-linked
/// into a directory of their own next to them (no bytes are copied), read from there, and the
/// directory is removed.
package enum StorePreflight {
    struct Contents {
        var tables: [String]
        /// The `lineup_metadata` rows; nil when the file has no such table.
        var metadata: [String: String]?
    }

    static func read(_ path: String) throws -> Contents {
        guard FileManager.default.fileExists(atPath: path + "-wal") else {
            return try read(path, reportedAs: path, query: URLQueryItem(name: "immutable", value: "1"))
        }
        let url = URL(fileURLWithPath: path)
        let links = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).preflight-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: links, withIntermediateDirectories: false)
        } catch {
            throw StoreError(.storeCorrupt, "\(path): cannot check the store before opening it: \(error)", underlying: error)
        }
        defer { try? FileManager.default.removeItem(at: links) }
        let linked = links.appending(path: url.lastPathComponent).path
        guard link(path, linked) == 0, link(path + "-wal", linked + "-wal") == 0 else {
            throw StoreError(
                .storeCorrupt, "\(path): cannot check the store before opening it: link failed: \(String(cString: strerror(errno)))")
        }
        return try read(linked, reportedAs: path, query: URLQueryItem(name: "mode", value: "ro"))
    }

    private static func read(_ file: String, reportedAs path: String, query: URLQueryItem) throws -> Contents {
        var components = URLComponents()
        components.scheme = "file"
        components.path = file
        components.queryItems = [query]
        let uri = components.string ?? "file:\(file)"
        var connection: OpaquePointer?
        let opened = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        defer { sqlite3_close_v2(connection) }
        guard opened == SQLITE_OK, let connection else {
            throw StoreError(.storeCorrupt, "\(path): cannot read: \(message(connection, opened))")
        }
        let tables = try strings(connection, "SELECT name FROM sqlite_master WHERE type = 'table'", path: path)
        guard tables.contains("lineup_metadata") else { return Contents(tables: tables, metadata: nil) }
        let pairs = try strings(connection, "SELECT key || char(0) || value FROM lineup_metadata", path: path)
        var metadata: [String: String] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { metadata[String(parts[0])] = String(parts[1]) }
        }
        return Contents(tables: tables, metadata: metadata)
    }

    private static func strings(_ connection: OpaquePointer, _ sql: String, path: String) throws -> [String] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else {
            throw StoreError(.storeCorrupt, "\(path): cannot read: \(message(connection, prepared))")
        }
        var values: [String] = []
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_DONE { return values }
            guard stepped == SQLITE_ROW else {
                throw StoreError(.storeCorrupt, "\(path): cannot read: \(message(connection, stepped))")
            }
            if let text = sqlite3_column_text(statement, 0) {
                let count = Int(sqlite3_column_bytes(statement, 0))
                values.append(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            }
        }
    }

    private static func message(_ connection: OpaquePointer?, _ code: Int32) -> String {
        if let connection, let text = sqlite3_errmsg(connection) { return String(cString: text) }
        return String(cString: sqlite3_errstr(code))
    }
}
