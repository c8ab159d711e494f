import Foundation
@testable import LineupStore
import Testing
import LineupTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `../shared/corpus/surfjournal` beside the package root (this file is
/// `<root>/Tests/LineupStoreTests/CoreDataStoreReaderTests.swift`).
private let surfJournalCorpus = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("../shared/corpus/surfjournal", isDirectory: true)
    .standardizedFileURL

private let storeName = "SurfJournalModel.sqlite"

extension ScratchDirectory {
    /// Copies the SurfJournal store files with the given suffixes (the corpus is never opened
    /// in place), and returns the URL of the copied `.sqlite`.
    func copySurfJournal(suffixes: [String] = ["", "-wal", "-shm"]) throws -> URL {
        for suffix in suffixes {
            try FileManager.default.copyItem(
                at: surfJournalCorpus.appendingPathComponent(storeName + suffix),
                to: url.appendingPathComponent(storeName + suffix)
            )
        }
        return url.appendingPathComponent(storeName)
    }
}

private func contents(_ store: URL, _ suffix: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: store.path + suffix))
}

/// Runs `body` on this thread with the file permissions of user nobody (65534), so that a
/// test run as root meets the permission checks any other user meets. Linux keeps the
/// filesystem user ID per thread, and `CoreDataStoreReader`'s synchronous calls run their
/// SQLite work on the calling thread (a synchronous dispatch onto the connection's serial
/// queue). Run as another user, `body` simply runs: the permissions already apply.
private func withFilePermissionsOfNobody<T>(_ body: () throws -> T) throws -> T {
    guard geteuid() == 0 else { return try body() }
    typealias SetFileSystemUserID = @convention(c) (UInt32) -> Int32
    let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), "setfsuid"), "setfsuid not found in libc")
    let setfsuid = unsafeBitCast(symbol, to: SetFileSystemUserID.self)
    _ = setfsuid(65_534)
    defer { _ = setfsuid(0) }
    // setfsuid answers the previous ID, even for an invalid request: -1 reads the current one.
    try #require(setfsuid(UInt32.max) == 65_534, "could not switch the filesystem user ID")
    return try body()
}

/// Reads every JournalEntry row of a reader, in batches.
private func journalEntries(of reader: CoreDataStoreReader, batchSize: Int = 1_000) throws -> [CoreDataRow] {
    var rows: [CoreDataRow] = []
    try reader.forEachRow(ofEntity: "JournalEntry", batchSize: batchSize) { rows += $0 }
    return rows
}

@Suite("CoreDataStoreReader")
struct CoreDataStoreReaderTests {
    // MARK: - The SurfJournal store

    @Test("lists the JournalEntry entity, its 5,000 rows and its attributes")
    func surfJournalEntities() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let reader = try CoreDataStoreReader(url: try directory.copySurfJournal())

        #expect(reader.entities.map(\.name) == ["JournalEntry"])
        let entity = try #require(reader.entity(named: "JournalEntry"))
        #expect(entity.entityNumber == 1)
        #expect(entity.superentityNumber == nil)
        #expect(entity.tableName == "ZJOURNALENTRY")
        #expect(entity.rowCount == 5_000)
        #expect(entity.maxPrimaryKey == 5_000)
        #expect(entity.attributes.map(\.name) == ["rating", "date", "height", "location", "period", "wind"])
        #expect(entity.attributes.map(\.columnName) == ["ZRATING", "ZDATE", "ZHEIGHT", "ZLOCATION", "ZPERIOD", "ZWIND"])
        #expect(entity.attributes.map(\.declaredType) == ["INTEGER", "TIMESTAMP", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR"])
        #expect(reader.storeUUID == "D246D1F7-4A2D-462D-AE31-1A41C47E7B6C")
        #expect(reader.entity(named: "journalentry") == nil)
        #expect(reader.warnings.isEmpty, "a complete store raises no doubt")
    }

    @Test("streams all 5,000 rows from the -wal in Z_PK order, in batches")
    func surfJournalRows() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let reader = try CoreDataStoreReader(url: try directory.copySurfJournal())

        var batchSizes: [Int] = []
        var rows: [CoreDataRow] = []
        try reader.forEachRow(ofEntity: "JournalEntry", batchSize: 700) { batch in
            batchSizes.append(batch.count)
            rows += batch
        }
        #expect(batchSizes == [700, 700, 700, 700, 700, 700, 700, 100])
        #expect(rows.map(\.primaryKey) == Array(1...5_000))
        #expect(Set(rows.map(\.entityNumber)) == [1])
        #expect(Set(rows.map(\.version)) == [1])

        let first = rows[0]
        #expect(first.attributeNames == ["rating", "date", "height", "location", "period", "wind"])
        #expect(try first.int("rating") == 1)
        #expect(try first.date("date") == Date(timeIntervalSinceReferenceDate: 120_303_488.929_257_99))
        #expect(try first.string("height") == "3.9")
        #expect(try first.string("location") == "C Street")
        #expect(try first.string("period") == "0")
        #expect(try first.string("wind") == "1.9")
        #expect(first["date"] == .real(120_303_488.929_257_99))

        let last = rows[4_999]
        #expect(try last.int("rating") == 2)
        #expect(try last.date("date") == Date(timeIntervalSinceReferenceDate: 292_000_509.245529))
        #expect(try last.string("location") == "Rincon")

        let dates = try rows.map { try #require(try $0.date("date")) }
        let earliest = try #require(dates.min())
        let latest = try #require(dates.max())
        // 2004-09-02T07:03:08.7906Z (Z_PK 877) and 2014-08-29T14:02:09.299382Z (Z_PK 355).
        #expect(earliest == Date(timeIntervalSinceReferenceDate: 115_801_388.7906))
        #expect(latest == Date(timeIntervalSinceReferenceDate: 431_013_729.299382))
        #expect(earliest.timeIntervalSince1970 == 1_094_108_588.7906)
        #expect(rows[dates.firstIndex(of: earliest)!].primaryKey == 877)
        #expect(rows[dates.firstIndex(of: latest)!].primaryKey == 355)

        var sessionsByLocation: [String: Int] = [:]
        for row in rows {
            sessionsByLocation[try #require(try row.string("location")), default: 0] += 1
        }
        #expect(sessionsByLocation == [
            "Bells Beach": 510, "Blacks Beach": 478, "C Street": 546, "J-Bay": 519, "Malibu": 509,
            "Margaret River": 471, "Rincon": 486, "Teahupoo": 514, "Trestles": 483, "Waikiki": 484,
        ])
        #expect(Set(try rows.map { try $0.int("rating") }) == [1, 2, 3, 4, 5])
    }

    @Test("never modifies the .sqlite or -wal file")
    func leavesStoreFilesUnchanged() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal()
        let sqliteBefore = try contents(store, "")
        let walBefore = try contents(store, "-wal")

        do {
            let reader = try CoreDataStoreReader(url: store)
            #expect(try journalEntries(of: reader).count == 5_000)
            try reader.close()
        }
        // The connection is closed: anything SQLite does on close has happened.
        #expect(try contents(store, "") == sqliteBefore)
        #expect(try contents(store, "-wal") == walBefore)
        #expect(try contents(store, "") == (try contents(surfJournalCorpus.appendingPathComponent(storeName), "")))
    }

    @Test("reads a store whose directory and files are not writable")
    func readsReadOnlyDirectory() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal()
        try directory.makeReadOnly()
        let before = try ["", "-wal", "-shm"].map { try contents(store, $0) }

        let rows = try withFilePermissionsOfNobody {
            let reader = try CoreDataStoreReader(url: store)
            defer { try? reader.close() }
            return try journalEntries(of: reader)
        }
        #expect(rows.count == 5_000)
        #expect(try ["", "-wal", "-shm"].map { try contents(store, $0) } == before)
    }

    /// Without its `-wal` the store is opened immutable, which needs no `-shm`: a read-only
    /// directory that lacks both reads (with the warning that the log is missing).
    @Test(
        "refuses, naming the files, a read-only directory that has the -wal but lacks the -shm",
        arguments: [["-shm"]]
    )
    func readOnlyDirectoryWithoutWALFiles(missing: [String]) throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal(suffixes: ["", "-wal", "-shm"].filter { !missing.contains($0) })
        try directory.makeReadOnly()

        let error = try withFilePermissionsOfNobody {
            try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: store) }
        }
        #expect(error.code == .walFilesUnavailable)
        #expect(error.path == store.path)
        for suffix in missing {
            #expect(error.description.contains(store.path + suffix))
        }
        #expect(error.description.contains(directory.url.path))
    }

    @Test(
        "reading a store whose -wal is absent leaves its directory as it was, -shm or not",
        arguments: [[""], ["", "-shm"]]
    )
    func readingWithoutTheWALWritesNothingBesideTheStore(copied: [String]) throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal(suffixes: copied)
        func listing() throws -> [String: Data] {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: directory.url.appending(path: $0))) })
        }
        let before = try listing()

        let reader = try CoreDataStoreReader(url: store)
        _ = try reader.entity(named: "JournalEntry").map { entity in
            try reader.forEachRow(ofEntity: entity.name) { _ in }
        }
        // While the reader is open, and after it is closed.
        #expect(try listing() == before)
        try reader.close()
        #expect(try listing() == before)
        #expect(reader.warnings.map(\.code) == [.walFileMissing])
    }

    @Test("a read-only directory that holds the store alone reads, with the warning that its -wal is missing")
    func readOnlyDirectoryWithTheStoreAlone() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal(suffixes: [""])
        try directory.makeReadOnly()
        let warnings = try withFilePermissionsOfNobody {
            let reader = try CoreDataStoreReader(url: store)
            defer { try? reader.close() }
            #expect(reader.entity(named: "JournalEntry")?.rowCount == 0)
            return reader.warnings.map(\.code)
        }
        #expect(warnings == [.walFileMissing])
    }

    @Test("a path with characters that a file: URI escapes still opens the store immutable")
    func uriEscapedPath() throws {
        #expect(CoreDataStoreSource.uriEscaped("/tmp/a b/%x?y#z/é.sqlite") == "/tmp/a%20b/%25x%3Fy%23z/%C3%A9.sqlite")
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let odd = directory.url.appending(path: "50% a?b#c")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        let store = odd.appending(path: storeName)
        try FileManager.default.copyItem(at: surfJournalCorpus.appending(path: storeName), to: store)
        let reader = try CoreDataStoreReader(url: store)
        defer { try? reader.close() }
        #expect(reader.entity(named: "JournalEntry") != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: odd.path) == [storeName])
    }

    @Test("the .sqlite copied without its -wal holds no rows, and the reader says why, naming the file")
    func sqliteFileAloneIsEmpty() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal(suffixes: [""])
        let reader = try CoreDataStoreReader(url: store)

        // An empty journal is not reported as the truth.
        #expect(reader.warnings.map(\.code) == [.walFileMissing])
        #expect(reader.warnings.first?.path == store.path)
        #expect(reader.warnings.first?.description.contains("SurfJournalModel.sqlite-wal is not beside it") == true)

        let entity = try #require(reader.entity(named: "JournalEntry"))
        #expect(entity.rowCount == 0)
        #expect(entity.maxPrimaryKey == 0)
        var batches = 0
        try reader.forEachRow(ofEntity: "JournalEntry") { _ in batches += 1 }
        #expect(batches == 0)
    }

    // MARK: - Iteration

    @Test("a store in rollback-journal mode needs no -wal and raises no doubt")
    func rollbackJournalStoreHasNoWarning() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.write(CoreDataStoreFixtures.inheritanceStore, to: "Spots.sqlite")
        let reader = try CoreDataStoreReader(url: store)
        #expect(reader.warnings.isEmpty)
    }

    @Test("an error thrown by the body stops the iteration and comes out unchanged")
    func bodyErrorIsRethrown() throws {
        struct Stop: Error, Equatable {}
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let reader = try CoreDataStoreReader(url: try directory.copySurfJournal())

        var batches = 0
        #expect(throws: Stop()) {
            try reader.forEachRow(ofEntity: "JournalEntry", batchSize: 100) { _ in
                batches += 1
                throw Stop()
            }
        }
        #expect(batches == 1)
        // The reader is still usable afterwards.
        #expect(try journalEntries(of: reader).count == 5_000)
    }

    @Test("an unknown entity is an error that lists the known ones")
    func unknownEntity() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal()
        let reader = try CoreDataStoreReader(url: store)

        let error = try #require(throws: CoreDataStoreError.self) {
            try reader.forEachRow(ofEntity: "BuoyStation") { _ in }
        }
        #expect(error.code == .unknownEntity)
        #expect(error.description == "Core Data store \(store.path): no entity named 'BuoyStation' (the store has: JournalEntry)")
    }

    @Test("reading after close() fails with an error naming the file")
    func readAfterClose() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.copySurfJournal()
        let reader = try CoreDataStoreReader(url: store)
        try reader.close()

        let error = try #require(throws: CoreDataStoreError.self) {
            try reader.forEachRow(ofEntity: "JournalEntry") { _ in }
        }
        #expect(error.code == .readFailed)
        #expect(error.description.hasPrefix("Core Data store \(store.path): "))
    }

    // MARK: - Sub-entities, names and types

    @Test("a sub-entity shares its root's table and is told apart by Z_ENT")
    func subEntities() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let reader = try CoreDataStoreReader(url: try directory.write(CoreDataStoreFixtures.inheritanceStore, to: "Spots.sqlite"))

        #expect(reader.entities.map(\.name) == ["Spot", "ReefSpot"])
        #expect(reader.entities.map(\.entityNumber) == [1, 2])
        #expect(reader.entities.map(\.superentityNumber) == [nil, 1])
        #expect(reader.entities.map(\.tableName) == ["ZSPOT", "ZSPOT"])
        #expect(reader.entities.map(\.rowCount) == [3, 1])
        #expect(reader.entities.map(\.maxPrimaryKey) == [3, 0])
        #expect(reader.storeUUID == "0E5C1E7A-1111-4222-8333-944455556666")

        var spots: [CoreDataRow] = []
        try reader.forEachRow(ofEntity: "Spot", batchSize: 2) { spots += $0 }
        #expect(spots.map(\.primaryKey) == [1, 2, 3])
        #expect(spots.map(\.entityNumber) == [1, 2, 1])
        #expect(spots.map(\.version) == [1, 3, 1])

        var reefSpots: [CoreDataRow] = []
        try reader.forEachRow(ofEntity: "ReefSpot") { reefSpots += $0 }
        #expect(reefSpots.map(\.primaryKey) == [2])
        #expect(try reefSpots.map { try $0.string("name") } == ["Teahupoo"])
    }

    @Test("attribute names are lower-cased column names unless the model's names are given")
    func attributeNames() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.write(CoreDataStoreFixtures.inheritanceStore, to: "Spots.sqlite")

        let plain = try CoreDataStoreReader(url: store)
        #expect(plain.entities[0].attributes.map(\.name) == ["name", "waveheight", "reefdepth", "firstsurfed", "photo"])

        let named = try CoreDataStoreReader(url: store, attributeNames: ["waveHeight", "firstSurfed", "unused"])
        #expect(named.entities[0].attributes.map(\.name) == ["name", "waveHeight", "reefdepth", "firstSurfed", "photo"])
        #expect(named.entities[1].attributes.map(\.name) == ["name", "waveHeight", "reefdepth", "firstSurfed", "photo"])
        var rows: [CoreDataRow] = []
        try named.forEachRow(ofEntity: "Spot") { rows += $0 }
        #expect(rows[0].attributeNames == ["name", "waveHeight", "reefdepth", "firstSurfed", "photo"])
        #expect(try rows[0].double("waveHeight") == 1.5)
    }

    @Test("typed accessors convert Core Data's storage and give nil for NULL")
    func typedAccessors() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.write(CoreDataStoreFixtures.inheritanceStore, to: "Spots.sqlite")
        let reader = try CoreDataStoreReader(url: store, attributeNames: ["waveHeight", "firstSurfed", "reefDepth"])
        var rows: [CoreDataRow] = []
        try reader.forEachRow(ofEntity: "Spot") { rows += $0 }
        let (malibu, teahupoo, empty) = (rows[0], rows[1], rows[2])

        #expect(try malibu.string("name") == "Malibu")
        #expect(try malibu.double("waveHeight") == 1.5)
        #expect(try malibu.int("reefDepth") == nil)
        #expect(try malibu.date("firstSurfed") == Date(timeIntervalSince1970: 946_684_800))  // 2000-01-01T00:00:00Z
        #expect(try malibu.data("photo") == nil)
        #expect(malibu["waveHeight"] == .real(1.5))
        #expect(malibu["reefDepth"] == .null)
        #expect(malibu["nope"] == nil)

        #expect(try teahupoo.int("waveHeight") == 2)  // an integral REAL
        #expect(try teahupoo.double("reefDepth") == 4)  // an INTEGER read as Double
        #expect(try teahupoo.date("firstSurfed") == Date(timeIntervalSinceReferenceDate: 0.25))
        #expect(try teahupoo.data("photo") == Data([0xCA, 0xFE]))
        #expect(teahupoo.dictionary == [
            "name": .text("Teahupoo"), "waveHeight": .real(2), "reefDepth": .integer(4),
            "firstSurfed": .real(0.25), "photo": .blob(Data([0xCA, 0xFE])),
        ])

        for name in empty.attributeNames {
            #expect(empty[name] == .null)
        }
        #expect(try empty.string("name") == nil)
        #expect(try empty.date("firstSurfed") == nil)
    }

    @Test("a value of another type or an unknown attribute is an error, not nil")
    func accessorErrors() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let store = try directory.write(CoreDataStoreFixtures.inheritanceStore, to: "Spots.sqlite")
        let reader = try CoreDataStoreReader(url: store, attributeNames: ["waveHeight"])
        var rows: [CoreDataRow] = []
        try reader.forEachRow(ofEntity: "Spot") { rows += $0 }
        let malibu = rows[0]

        let fraction = try #require(throws: CoreDataStoreError.self) { try malibu.int("waveHeight") }
        #expect(fraction.code == .typeMismatch)
        // Names the file, entity, row and attribute; never the value (1.5).
        #expect(fraction.description == """
            Core Data store \(store.path): Spot Z_PK 1: attribute 'waveHeight' holds REAL, expected an integral number
            """)

        let text = try #require(throws: CoreDataStoreError.self) { try malibu.date("name") }
        #expect(text.code == .typeMismatch)
        #expect(!text.description.contains("Malibu"))
        #expect(throws: CoreDataStoreError.self) { try malibu.string("waveHeight") }
        #expect(throws: CoreDataStoreError.self) { try rows[1].string("photo") }

        let unknown = try #require(throws: CoreDataStoreError.self) { try malibu.string("wave_height") }
        #expect(unknown.code == .unknownAttribute)
        #expect(unknown.description == """
            Core Data store \(store.path): entity Spot has no attribute 'wave_height' \
            (it has: name, waveHeight, reefdepth, firstsurfed, photo)
            """)
    }

    // MARK: - Files that are not Core Data stores

    @Test("a missing file is an error naming it")
    func missingFile() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let missing = directory.url.appendingPathComponent("Nowhere.sqlite")
        let error = try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: missing) }
        #expect(error.code == .fileNotFound)
        #expect(error.description == "Core Data store \(missing.path): no such file")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test("a file that is not SQLite is an error naming it")
    func notSQLite() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let text = try directory.write(Data("date,location\n2014-08-29,Rincon\n".utf8), to: "journal.sqlite")
        let error = try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: text) }
        #expect(error.code == .notADatabase)
        #expect(error.description.hasPrefix("Core Data store \(text.path): not an SQLite database"))

        let folder = try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: directory.url) }
        #expect(folder.code == .notADatabase)
        #expect(folder.description.contains(directory.url.path))
    }

    @Test("an SQLite database without Z_PRIMARYKEY and Z_METADATA is not a Core Data store")
    func notCoreData() throws {
        let directory = try ScratchDirectory(prefix: "CoreDataStoreReaderTests")
        let plain = try directory.write(CoreDataStoreFixtures.plainSQLiteDatabase, to: "Notes.sqlite")
        let error = try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: plain) }
        #expect(error.code == .notACoreDataStore)
        #expect(error.description == """
            Core Data store \(plain.path): not a Core Data store: an SQLite database without the \
            Z_PRIMARYKEY and Z_METADATA tables
            """)

        // SQLite reads an empty file as an empty database.
        let empty = try directory.write(Data(), to: "Empty.sqlite")
        let emptyError = try #require(throws: CoreDataStoreError.self) { try CoreDataStoreReader(url: empty) }
        #expect(emptyError.code == .notACoreDataStore)
        #expect(emptyError.path == empty.path)
    }
}
