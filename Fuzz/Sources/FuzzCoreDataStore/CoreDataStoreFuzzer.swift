// libFuzzer target for the Core Data store reader on mutated SQLite files. Each input is written
// as a store file, opened, and every entity's rows are read in small batches, every attribute
// through every typed accessor. Anything may be refused, but only with a CoreDataStoreError that
// names the file; what is read must be what the reader promised: rows in ascending primary-key
// order, each with its entity's attributes. (Not as many as the entity's row count: that is
// counted when the store is opened, and a Core Data app may write between the two.)

import Foundation
import FuzzSupport
import LineupStore

private let storePath = scratchPath("Store.sqlite")

@main
enum CoreDataStoreFuzzer {
    static func main() { runFuzzer(fuzzCoreDataStore) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCoreDataStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // A -wal or -shm left by an earlier input would be read with this one.
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(storePath + suffix) }
    guard FileManager.default.createFile(atPath: storePath, contents: inputData(data, size)) else {
        fatalError("cannot write the fuzz input to \(storePath)")
    }
    do {
        let reader = try CoreDataStoreReader(url: URL(fileURLWithPath: storePath))
        defer { try? reader.close() }
        for entity in reader.entities {
            try read(entity, from: reader)
        }
    } catch let error as CoreDataStoreError {
        expect(error.path == storePath && error.description.contains(storePath), "the error does not name the store: \(error)")
    } catch {
        fatalError("not a CoreDataStoreError: \(error)")
    }
    return 0
}

private func read(_ entity: CoreDataEntity, from reader: CoreDataStoreReader) throws {
    let names = Set(entity.attributes.map(\.name))
    var lastPrimaryKey = Int64.min
    try reader.forEachRow(ofEntity: entity.name, batchSize: 7) { batch in
        expect(!batch.isEmpty && batch.count <= 7, "a batch of \(batch.count) rows")
        for row in batch {
            expect(row.primaryKey > lastPrimaryKey, "primary keys out of order in \(entity.name)")
            lastPrimaryKey = row.primaryKey
            expect(Set(row.attributeNames) == names, "row attributes \(row.attributeNames), entity has \(names)")
            for name in row.attributeNames {
                // A value of another type is refused with an error; any value is read or refused.
                _ = try? row.string(name)
                _ = try? row.int(name)
                _ = try? row.double(name)
                _ = try? row.date(name)
                _ = try? row.data(name)
            }
        }
    }
}
