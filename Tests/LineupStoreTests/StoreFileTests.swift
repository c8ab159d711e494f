import Foundation
import GRDB
import LineupStore
import Logging
import Testing

final class EntryV1: ManagedObject {
    override class var entityName: String { "Entry" }
    @Attribute("location") var location: String?
}

final class EntryV2: ManagedObject {
    override class var entityName: String { "Entry" }
    @Attribute("location") var location: String?
    @Attribute("notes") var notes: String?
}

final class EntryV2Required: ManagedObject {
    override class var entityName: String { "Entry" }
    @Attribute("location") var location: String?
    @Attribute("rating") var rating: Int = 3
}

final class Tag: ManagedObject {
    @Attribute("label") var label: String?
}

@Suite struct StoreFileTests {
    /// Removed when the test ends (a suite value lives for one test).
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let logger = Logger(label: "test")

    init() throws {
        scratch = try ScratchDirectory(prefix: "lineup-file-tests")
    }

    private func open(_ name: String, _ types: ManagedObject.Type...) throws -> PersistentContainer {
        try PersistentContainer(url: directory.appendingPathComponent(name), model: ManagedObjectModel(types: types), logger: logger)
    }

    private func open(_ place: TemporaryStoreURL, _ types: ManagedObject.Type...) throws -> PersistentContainer {
        try openStack(at: place.url, model: ManagedObjectModel(types: types), logger: logger)
    }

    @Test(arguments: StoreKind.allCases) func addingAnEntityAndAnOptionalAttributeMigratesInPlace(_ store: StoreKind) throws {
        let place = try TemporaryStoreURL(store)
        defer { extendLifetime(place) }
        let v1 = try open(place, EntryV1.self)
        let context = v1.newTaskContext(name: "v1")
        try context.performAndWait {
            EntryV1(context: context).location = "kept"
            try context.save()
        }
        try v1.flush()
        try v1.close()

        let v2 = try open(place, EntryV2.self, Tag.self)
        let reader = v2.newTaskContext(name: "v2")
        try reader.performAndWait {
            let entries = try reader.fetch(FetchRequest<EntryV2>())
            #expect(entries.map(\.location) == ["kept"])
            #expect(entries[0].notes == nil)
            entries[0].notes = "new column"
            Tag(context: reader).label = "new table"
            try reader.save()
        }
        try v2.flush()
        #expect(try v2.rowCount(of: "Tag") == 1)
        try v2.close()
    }

    @Test(arguments: StoreKind.allCases) func aNewerStoreIsRefused(_ store: StoreKind) throws {
        let place = try TemporaryStoreURL(store)
        defer { extendLifetime(place) }
        let v2 = try open(place, EntryV2.self)
        try v2.close()
        let error = #expect(throws: StoreError.self) { try open(place, EntryV1.self) }
        #expect(error?.code == .storeNewerThanModel)
        #expect(error?.message.contains("notes") == true)
    }

    @Test(arguments: StoreKind.allCases) func aNewRequiredAttributeCannotBeMigrated(_ store: StoreKind) throws {
        let place = try TemporaryStoreURL(store)
        defer { extendLifetime(place) }
        try open(place, EntryV1.self).close()
        let error = #expect(throws: StoreError.self) { try open(place, EntryV2Required.self) }
        #expect(error?.code == .migrationUnsupported)
    }

    @Test func aForeignDatabaseIsRefusedAndLeftUntouched() throws {
        let url = directory.appendingPathComponent("foreign.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)") }
        try queue.close()
        let before = try Data(contentsOf: url)
        let error = #expect(throws: StoreError.self) { try open("foreign.sqlite", EntryV1.self) }
        #expect(error?.code == .storeNotOurs)
        #expect(error?.message.contains(url.path) == true)
        #expect(try Data(contentsOf: url) == before)
    }

    /// Every file of the store (`.sqlite`, `-wal`, `-shm`) that exists, with its bytes.
    private func snapshot(_ name: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            let url = directory.appendingPathComponent(name + suffix)
            if FileManager.default.fileExists(atPath: url.path) {
                files[name + suffix] = try Data(contentsOf: url)
            }
        }
        return files
    }

    /// Issue 8, item 1: a store a newer model or a newer Lineup wrote is refused, and left byte
    /// for byte as it was, with no `-wal` or `-shm` appearing that was not there.
    @Test func aRefusedNewerStoreIsLeftByteForByte() throws {
        let v2 = try open("store.sqlite", EntryV2.self)
        let context = v2.newTaskContext(name: "v2")
        try context.performAndWait {
            EntryV2(context: context).notes = "written by the newer model"
            try context.save()
        }
        try v2.flush()
        try v2.close()
        let before = try snapshot("store.sqlite")
        #expect(before.keys.sorted() == ["store.sqlite"], "a closed store keeps no -wal or -shm")
        let error = #expect(throws: StoreError.self) { try open("store.sqlite", EntryV1.self) }
        #expect(error?.code == .storeNewerThanModel)
        #expect(try snapshot("store.sqlite") == before)

        // A newer store format, likewise.
        let url = directory.appendingPathComponent("store.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "UPDATE lineup_metadata SET value = '99' WHERE key = 'format_version'") }
        try queue.close()
        let newerFormat = try snapshot("store.sqlite")
        let formatError = #expect(throws: StoreError.self) { try open("store.sqlite", EntryV2.self) }
        #expect(formatError?.code == .storeNewerThanModel)
        #expect(formatError?.message.contains("store schema version 99; this Lineup knows up to 2") == true)
        #expect(try snapshot("store.sqlite") == newerFormat)
    }

    /// The same with rows still in the `-wal` (a store copied, or left by a crash, before a
    /// checkpoint): the three files stay as they were.
    @Test func aRefusedStoreWithItsWALIsLeftByteForByte() throws {
        let v2 = try open("live.sqlite", EntryV2.self)
        let context = v2.newTaskContext(name: "v2")
        try context.performAndWait {
            EntryV2(context: context).notes = "in the WAL"
            try context.save()
        }
        try v2.flush()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                at: directory.appendingPathComponent("live.sqlite" + suffix),
                to: directory.appendingPathComponent("copy.sqlite" + suffix))
        }
        try v2.close()
        let before = try snapshot("copy.sqlite")
        #expect(before.keys.count == 3)
        #expect((before["copy.sqlite-wal"]?.count ?? 0) > 0, "the rows are in the -wal")
        let error = #expect(throws: StoreError.self) { try open("copy.sqlite", EntryV1.self) }
        #expect(error?.code == .storeNewerThanModel)
        #expect(try snapshot("copy.sqlite") == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("preflight") } == [])
    }

    @Test func aCorruptFileIsRefused() throws {
        let url = directory.appendingPathComponent("corrupt.sqlite")
        try Data("this is not a database, just some text that is long enough".utf8).write(to: url)
        let error = #expect(throws: StoreError.self) { try open("corrupt.sqlite", EntryV1.self) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains(url.path) == true)
    }

    @Test func walModeAndCheckpoint() throws {
        let container = try open("store.sqlite", EntryV1.self)
        let context = container.newTaskContext(name: "job")
        try context.performAndWait {
            EntryV1(context: context).location = "x"
            try context.save()
        }
        try container.flush()
        try container.checkpoint()
        let wal = directory.appendingPathComponent("store.sqlite-wal")
        let size = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        #expect(size == 0, "a truncating checkpoint empties the WAL")
        let mode = try DatabaseQueue(path: directory.appendingPathComponent("store.sqlite").path).read {
            try String.fetchOne($0, sql: "PRAGMA journal_mode")
        }
        #expect(mode == "wal")
        try container.close()
    }

    /// SQLite keeps what another program writes into an integer column: a real with a fraction,
    /// one past Int64's range, or infinity. A Core Data user reading such a row gets a value
    /// or the attribute's default, never a crash of the process.
    @Test(arguments: [("2.75", 2 as Int?), ("-2.75", -2), ("1e300", nil), ("9e999", nil), ("-9e999", nil)])
    func aForeignRealInAnIntegerColumnReadsWithoutTrapping(written: String, read: Int?) throws {
        let url = directory.appendingPathComponent("store.sqlite")
        let container = try PersistentContainer(url: url, model: testModel, logger: logger)
        let context = container.newTaskContext(name: "job")
        try context.performAndWait {
            Entry(context: context).rating = 3
            try context.save()
        }
        try container.flush()
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "UPDATE \"Entry\" SET rating = \(written)")
            #expect(try String.fetchOne(db, sql: "SELECT typeof(rating) FROM \"Entry\"") == "real")
        }
        let reader = container.newTaskContext(name: "reader")
        let rating = try reader.performAndWait { try reader.fetch(FetchRequest<Entry>()).first?.rating }
        #expect(rating == read)
        try container.close()
    }
}
