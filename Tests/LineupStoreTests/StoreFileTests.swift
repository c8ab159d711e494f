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
    let directory: URL
    let logger = Logger(label: "test")

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lineup-file-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func open(_ name: String, _ types: ManagedObject.Type...) throws -> PersistentContainer {
        try PersistentContainer(url: directory.appendingPathComponent(name), model: ManagedObjectModel(types: types), logger: logger)
    }

    @Test func addingAnEntityAndAnOptionalAttributeMigratesInPlace() throws {
        let v1 = try open("store.sqlite", EntryV1.self)
        let context = v1.newTaskContext(name: "v1")
        try context.performAndWait {
            EntryV1(context: context).location = "kept"
            try context.save()
        }
        try v1.flush()
        try v1.store.close()

        let v2 = try open("store.sqlite", EntryV2.self, Tag.self)
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
        #expect(try v2.store.rowCount(of: "Tag") == 1)
        try v2.store.close()
    }

    @Test func aNewerStoreIsRefused() throws {
        let v2 = try open("store.sqlite", EntryV2.self)
        try v2.store.close()
        let error = #expect(throws: StoreError.self) { try open("store.sqlite", EntryV1.self) }
        #expect(error?.code == .storeNewerThanModel)
        #expect(error?.message.contains("notes") == true)
    }

    @Test func aNewRequiredAttributeCannotBeMigrated() throws {
        try open("store.sqlite", EntryV1.self).store.close()
        let error = #expect(throws: StoreError.self) { try open("store.sqlite", EntryV2Required.self) }
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
        try container.store.checkpoint()
        let wal = directory.appendingPathComponent("store.sqlite-wal")
        let size = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        #expect(size == 0, "a truncating checkpoint empties the WAL")
        let mode = try DatabaseQueue(path: directory.appendingPathComponent("store.sqlite").path).read {
            try String.fetchOne($0, sql: "PRAGMA journal_mode")
        }
        #expect(mode == "wal")
        try container.store.close()
    }
}
