import Foundation
import GRDB
import LineupStore
import LineupTestSupport
import Testing

/// Damaged stores that SQLite reads without complaint, found by the core-data-store fuzzer
/// (scripts/fuzz.sh core-data-store): the reader must refuse them with an error that names the
/// file, not hand out rows that break its promises, and not stop the process.
@Suite struct CoreDataStoreDamageTests {
    /// Removed when the test ends (a suite value lives for one test).
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory(prefix: "CoreDataStoreDamageTests")
    }

    func readAll(_ store: URL, entity: String) throws -> [Int64] {
        let reader = try CoreDataStoreReader(url: store)
        var keys: [Int64] = []
        try reader.forEachRow(ofEntity: entity) { keys += $0.map(\.primaryKey) }
        return keys
    }

    @Test("a table whose b-tree gives its keys out of order is refused as malformed")
    func keysOutOfOrder() throws {
        let store = directory.appendingPathComponent("Spots.sqlite")
        try CoreDataStoreFixtures.inheritanceStore.write(to: store)
        #expect(try readAll(store, entity: "Spot") == [1, 2, 3])

        // Swap the first two cell pointers of ZSPOT's one leaf page: SQLite then walks the rows
        // as 2, 1, 3 and reports nothing (only PRAGMA integrity_check would).
        let (rootPage, pageSize) = try DatabaseQueue(path: store.path).read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'ZSPOT'")!,
             try Int.fetchOne(db, sql: "PRAGMA page_size")!)
        }
        var bytes = [UInt8](try Data(contentsOf: store))
        let page = (rootPage - 1) * pageSize
        #expect(bytes[page] == 0x0D, "ZSPOT's root is a leaf table page")
        let pointers = page + 8
        bytes.swapAt(pointers, pointers + 2)
        bytes.swapAt(pointers + 1, pointers + 3)
        try Data(bytes).write(to: store)

        let error = try #require(throws: CoreDataStoreError.self) { try readAll(store, entity: "Spot") }
        #expect(error.code == .malformedStore)
        #expect(error.description.contains(store.path) && error.description.contains("out of Z_PK order"), "\(error)")
    }

    @Test("a Z_PK or Z_ENT that is not an integer is refused as malformed, not a crash")
    func nonIntegerKeys() throws {
        for (column, row) in [("Z_PK", "('one', 1, 1, 'x')"), ("Z_ENT", "(1, 'Note', 1, 'x')")] {
            let store = directory.appendingPathComponent("Notes-\(column).sqlite")
            try DatabaseQueue(path: store.path).write { db in
                try db.execute(sql: """
                    CREATE TABLE ZNOTE (Z_PK, Z_ENT, Z_OPT INTEGER, ZTEXT VARCHAR);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 1);
                    INSERT INTO Z_METADATA VALUES (1, 'F00D', NULL);
                    INSERT INTO ZNOTE VALUES \(row);
                    """)
            }
            let error = try #require(throws: CoreDataStoreError.self) { try readAll(store, entity: "Note") }
            #expect(error.code == .malformedStore)
            #expect(error.description.contains(store.path) && error.description.contains(column), "\(error)")
        }
    }

    @Test("a Z_PRIMARYKEY column of the wrong type is refused as malformed, not a crash", arguments: [
        ("(1, 'Note', x'00ff', 1)", "Z_SUPER"), ("('one', 'Note', 0, 1)", "Z_ENT"), ("(1, x'4e6f7465', 0, 1)", "Z_NAME"),
        ("(1, 'Note', 0, 'many')", "Z_MAX"),
    ])
    func primaryKeyTableOfTheWrongTypes(row: String, column: String) throws {
        let store = directory.appendingPathComponent("Notes.sqlite")
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(sql: """
                CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR);
                CREATE TABLE Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX);
                CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                INSERT INTO Z_PRIMARYKEY VALUES \(row);
                INSERT INTO Z_METADATA VALUES (1, 'F00D', NULL);
                """)
        }
        let error = try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: store) }
        #expect(error.code == .malformedStore)
        #expect(error.description.contains(store.path) && error.description.contains("Z_PRIMARYKEY has a \(column)"), "\(error)")
    }

    /// The stores the fuzzer stopped on, in `Fuzz/core-data-store/`: each is read to the end or
    /// refused with an error naming it.
    @Test func storesTheFuzzerFoundAreRefusedNotCrashedOn() throws {
        let inputs = FuzzInputs.files(besides: #filePath).first { $0.lastPathComponent == "core-data-store" }
        let stores = try FileManager.default.contentsOfDirectory(at: try #require(inputs), includingPropertiesForKeys: nil)
        #expect(!stores.isEmpty)
        for input in stores {
            let store = directory.appendingPathComponent(input.lastPathComponent)
            try FileManager.default.copyItem(at: input, to: store)
            do {
                let reader = try CoreDataStoreReader(url: store)
                for entity in reader.entities {
                    try reader.forEachRow(ofEntity: entity.name) { _ in }
                }
            } catch let error as CoreDataStoreError {
                #expect(error.description.contains(store.path), "\(error)")
            }
        }
    }
}
