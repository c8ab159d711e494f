import Foundation
import GRDB

// Opening: checking the file, reading the Core Data bookkeeping tables, explaining failures.
extension CoreDataStoreReader {
    struct Schema {
        var entities: [CoreDataEntity]
        var storeUUID: String?
    }

    /// One row of `Z_PRIMARYKEY`.
    private struct ListedEntity {
        var number: Int64
        var name: String
        var superNumber: Int64?
        var maxPrimaryKey: Int64
    }

    private static let bookkeepingColumns: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

    /// Refuses what is not an SQLite file before SQLite gets a chance to give a vaguer error.
    ///
    /// An empty file passes: SQLite reads it as an empty database, which then fails the Core
    /// Data check with a clear message.
    /// Returns whether the header says the database is in WAL mode (file format write and read
    /// versions, bytes 18 and 19, both 2).
    @discardableResult
    static func checkIsSQLiteFile(at path: String) throws -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CoreDataStoreError(code: .fileNotFound, path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw CoreDataStoreError(code: .notADatabase, path: path, reason: "is a directory, not an SQLite file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CoreDataStoreError(code: .cannotOpen, path: path, reason: "the file cannot be read by this user")
        }
        defer { try? handle.close() }
        let header: Data
        do {
            header = try handle.read(upToCount: 20) ?? Data()
        } catch {
            throw CoreDataStoreError(code: .cannotOpen, path: path, reason: "reading the file header failed", underlyingError: error)
        }
        if !header.isEmpty && header.prefix(16) != Data("SQLite format 3\0".utf8) {
            throw CoreDataStoreError(
                code: .notADatabase,
                path: path,
                reason: "not an SQLite database (the file does not start with the SQLite header)"
            )
        }
        return header.count == 20 && header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }

    /// Explains an SQLite failure to open the store, naming the files involved.
    static func openError(_ error: GRDB.DatabaseError, path: String) -> CoreDataStoreError {
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return CoreDataStoreError(code: .notADatabase, path: path, reason: "not an SQLite database", underlyingError: error)
        case .SQLITE_CANTOPEN, .SQLITE_READONLY:
            // SQLite reports both when a read-only connection to a WAL-mode store cannot
            // create the -shm (CANTOPEN) or -wal (READONLY) file it needs.
            let missing = ["-wal", "-shm"].map { path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
            if !missing.isEmpty {
                let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
                return CoreDataStoreError(
                    code: .walFilesUnavailable,
                    path: path,
                    reason: """
                        SQLite cannot read this WAL-mode store read-only: \
                        \(missing.joined(separator: " and ")) \(missing.count == 1 ? "does" : "do") not exist \
                        and cannot be created in \(directory); reading a WAL store read-only needs its \
                        -wal and -shm files beside it or a writable directory
                        """,
                    underlyingError: error
                )
            }
            return CoreDataStoreError(code: .cannotOpen, path: path, reason: "SQLite cannot open it read-only", underlyingError: error)
        default:
            return CoreDataStoreError(code: .cannotOpen, path: path, reason: "SQLite cannot open it read-only", underlyingError: error)
        }
    }

    static func readSchema(_ db: GRDB.Database, path: String, attributeNames: Set<String>) throws -> Schema {
        for table in ["Z_PRIMARYKEY", "Z_METADATA"] where try !db.tableExists(table) {
            throw CoreDataStoreError(
                code: .notACoreDataStore,
                path: path,
                reason: "not a Core Data store: an SQLite database without the Z_PRIMARYKEY and Z_METADATA tables"
            )
        }
        let primaryKeyColumns = try Set(db.columns(in: "Z_PRIMARYKEY").map { $0.name.uppercased() })
        let missingColumns = ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"].filter { !primaryKeyColumns.contains($0) }
        guard missingColumns.isEmpty else {
            throw CoreDataStoreError(
                code: .notACoreDataStore,
                path: path,
                reason: "not a Core Data store: table Z_PRIMARYKEY lacks \(missingColumns.joined(separator: ", "))"
            )
        }

        var listed: [ListedEntity] = []
        for row in try GRDB.Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
            func column(_ index: Int, _ name: String) -> StrictColumn {
                StrictColumn(row: row, index: index, name: name, table: "Z_PRIMARYKEY", path: path)
            }
            guard let number = try column(0, "Z_ENT").integer(), let name = try column(1, "Z_NAME").text() else {
                throw CoreDataStoreError(code: .malformedStore, path: path, reason: "Z_PRIMARYKEY has a row without Z_ENT or Z_NAME")
            }
            let superNumber = try column(2, "Z_SUPER").integer()
            listed.append(ListedEntity(
                number: number,
                name: name,
                superNumber: superNumber == 0 ? nil : superNumber,
                maxPrimaryKey: try column(3, "Z_MAX").integer() ?? 0
            ))
        }

        let metadataColumns = try Set(db.columns(in: "Z_METADATA").map { $0.name.uppercased() })
        let storeUUID = metadataColumns.contains("Z_UUID")
            ? try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA ORDER BY rowid DESC LIMIT 1")
            : nil

        let nameByColumn = Dictionary(
            attributeNames.sorted().map { ("Z" + $0.uppercased(), $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let entities = try listed.map { entity in
            try describe(entity, among: listed, db: db, path: path, nameByColumn: nameByColumn)
        }
        return Schema(entities: entities, storeUUID: storeUUID)
    }

    private static func describe(
        _ entity: ListedEntity,
        among listed: [ListedEntity],
        db: GRDB.Database,
        path: String,
        nameByColumn: [String: String]
    ) throws -> CoreDataEntity {
        let byNumber = Dictionary(listed.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })

        // Sub-entities live in the root entity's table.
        var root = entity
        var steps = 0
        while let superNumber = root.superNumber {
            guard let parent = byNumber[superNumber], steps < listed.count else {
                throw CoreDataStoreError(
                    code: .malformedStore,
                    path: path,
                    reason: "entity \(entity.name) has a Z_SUPER chain that does not end at a listed root entity"
                )
            }
            root = parent
            steps += 1
        }
        let tableName = "Z" + root.name.uppercased()
        guard try db.tableExists(tableName) else {
            throw CoreDataStoreError(
                code: .malformedStore,
                path: path,
                reason: "entity \(entity.name) is listed in Z_PRIMARYKEY but its table \(tableName) does not exist"
            )
        }
        let columns = try db.columns(in: tableName)
        let columnNames = Set(columns.map { $0.name.uppercased() })
        guard columnNames.contains("Z_PK") else {
            throw CoreDataStoreError(code: .malformedStore, path: path, reason: "table \(tableName) has no Z_PK column")
        }
        let hasEntityColumn = columnNames.contains("Z_ENT")

        var rowEntityNumbers = [entity.number]
        var index = 0
        while index < rowEntityNumbers.count, rowEntityNumbers.count <= listed.count {
            let parent = rowEntityNumbers[index]
            rowEntityNumbers += listed.filter { $0.superNumber == parent }.map(\.number)
            index += 1
        }
        let sharesTable = hasEntityColumn && (entity.superNumber != nil || rowEntityNumbers.count > 1)

        let attributes = columns
            .filter { !bookkeepingColumns.contains($0.name.uppercased()) }
            .map { column in
                CoreDataAttribute(
                    name: nameByColumn[column.name.uppercased()] ?? defaultAttributeName(column: column.name),
                    columnName: column.name,
                    declaredType: column.type
                )
            }

        var countSQL = "SELECT COUNT(*) FROM \(tableName.quotedDatabaseIdentifier)"
        if sharesTable {
            countSQL += " WHERE Z_ENT IN (\(rowEntityNumbers.map(String.init).joined(separator: ", ")))"
        }
        let rowCount = try Int.fetchOne(db, sql: countSQL) ?? 0

        return CoreDataEntity(
            name: entity.name,
            entityNumber: entity.number,
            superentityNumber: entity.superNumber,
            tableName: tableName,
            rowCount: rowCount,
            maxPrimaryKey: entity.maxPrimaryKey,
            attributes: attributes,
            rowEntityNumbers: rowEntityNumbers,
            sharesTable: sharesTable,
            hasEntityColumn: hasEntityColumn,
            hasVersionColumn: columnNames.contains("Z_OPT")
        )
    }

    /// `ZLOCATION` → `location`: Core Data's column name without its `Z`, lower-cased.
    private static func defaultAttributeName(column: String) -> String {
        column.hasPrefix("Z") ? column.dropFirst().lowercased() : column.lowercased()
    }
}
