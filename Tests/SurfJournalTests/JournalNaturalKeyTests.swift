import Foundation
import LineupJobs
import LineupStore
import Logging
@testable import SurfJournal
import Testing
import LineupTestSupport

/// `JournalEntry`'s natural key, (source store UUID, Z_PK): re-runs, two imports of one store at
/// once, and stores written before the key existed.
@Suite struct JournalNaturalKeyTests {
    static let fixtureStoreUUID = "5B1D0C2E-7A3F-4C9B-8E21-3F6A9D4B7C10"
    static let importFixture = #"{"kind": "import-coredata", "input": "nulls.sqlite"}"#

    @Test func reImportingAddsNothingForEntriesWithoutADateOrALocation() throws {
        let fixture = try JournalFixture()
        try fixture.writeInput("nulls.sqlite", CoreDataStoreFixtures.journalEntriesWithoutDateOrLocation)
        let first = try fixture.runSucceeding(Self.importFixture)
        #expect(first.counts["inserted"] == 6, "each Core Data row is an entry, the two alike ones and the two at one time included")
        let again = try fixture.runSucceeding(Self.importFixture)
        #expect(again.counts["inserted"] == 0)
        #expect(again.counts["unchanged"] == 6)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 6)
        #expect(try sourceKeys(in: fixture) == [Self.fixtureStoreUUID: [1, 2, 3, 4, 5, 7]])
    }

    @Test func anEntryEditedInTheAppIsUpdatedNotAddedAgain() throws {
        let fixture = try JournalFixture()
        try fixture.writeInput("nulls.sqlite", CoreDataStoreFixtures.journalEntriesWithoutDateOrLocation)
        _ = try fixture.runSucceeding(Self.importFixture)
        // The same store after the surfer moved entry 1 to another spot: the Z_PK stays.
        var edited = CoreDataStoreFixtures.journalEntriesWithoutDateOrLocation
        let range = try #require(edited.range(of: Data("C Street".utf8)))
        edited.replaceSubrange(range, with: Data("Rincon!!".utf8))
        try fixture.writeInput("nulls.sqlite", edited)
        let again = try fixture.runSucceeding(Self.importFixture)
        #expect(again.counts["inserted"] == 0)
        #expect(again.counts["updated"] == 1)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 6)
        #expect(try fixture.count(FetchRequest<JournalEntry>(predicate: \.location == "Rincon!!")) == 1)
    }

    @Test func aStoreWithoutAUUIDIsRefusedByName() throws {
        let fixture = try JournalFixture()
        var noUUID = CoreDataStoreFixtures.journalEntriesWithoutDateOrLocation
        let range = try #require(noUUID.range(of: Data(Self.fixtureStoreUUID.utf8)))
        noUUID.replaceSubrange(range, with: Data(repeating: 0x20, count: range.count))
        try fixture.writeInput("nouuid.sqlite", noUUID)
        let result = try fixture.run(#"{"kind": "import-coredata", "input": "nouuid.sqlite"}"#)
        let error = try #require(result.error as? JobError)
        #expect(!error.isRetryable)
        #expect(error.description.contains("nouuid.sqlite"))
        #expect(error.description.contains("Z_UUID"))
    }

    /// Two jobs import one store at once, with an explicit timeline: both look the entries up
    /// before either saves, so both insert them. The second save is refused with a uniqueness
    /// conflict (whether the first job's entries still wait in the main context or are on disk
    /// already), and the attempt after it finds those entries.
    @Test(arguments: [false, true])
    func theSecondOfTwoConcurrentImportsConflictsAndItsRetryUpserts(flushedBetween: Bool) throws {
        let fixture = try JournalFixture()
        try fixture.writeInput("nulls.sqlite", CoreDataStoreFixtures.journalEntriesWithoutDateOrLocation)
        let reader = try CoreDataStoreReader(url: fixture.input.appendingPathComponent("nulls.sqlite"))
        defer { try? reader.close() }
        var rows: [CoreDataRow] = []
        try reader.forEachRow(ofEntity: "JournalEntry") { rows += $0 }
        let container = fixture.container

        func upsert(in context: ManagedObjectContext) throws -> JournalEntryUpserter.Counts {
            try context.performAndWait {
                var upserter = JournalEntryUpserter(context: context, sourceStoreUUID: Self.fixtureStoreUUID)
                try upserter.upsert(rows)
                return upserter.counts
            }
        }
        let first = container.newTaskContext(name: "first")
        let second = container.newTaskContext(name: "second")
        #expect(try upsert(in: first).inserted == 6)
        #expect(try upsert(in: second).inserted == 6)
        try first.performAndWait { try first.save() }
        if flushedBetween { try container.flush() }
        let error = #expect(throws: StoreError.self) { try second.performAndWait { try second.save() } }
        #expect(error?.code == .mergeConflict)
        #expect(error?.conflicts.count == 6)
        for conflict in error?.conflicts ?? [] {
            guard case let .uniqueness(properties, _) = conflict.reason else {
                Issue.record("expected a uniqueness conflict, got \(conflict.reason)")
                continue
            }
            #expect(properties == ["sourceStoreUUID", "sourcePrimaryKey"])
        }
        #expect(ErrorClassification.isRetryable(try #require(error)), "the runner retries the job")
        second.performAndWait {
            second.rollback()
            second.reset()
        }

        let retry = container.newTaskContext(name: "second, attempt 2")
        let counts = try upsert(in: retry)
        #expect(counts.inserted == 0)
        #expect(counts.unchanged == 6)
        try retry.performAndWait { try retry.save() }
        try container.flush()
        #expect(try container.rowCount(of: "JournalEntry") == 6)
    }

    // MARK: - A store written before the key

    /// The store as the import left it before the natural key: `JournalEntry` without a source,
    /// no uniqueness constraint, and an entry without a date inserted again on every run.
    static func writeStoreBeforeTheKey(at url: URL, _ entries: [(Date?, String?, String?)]) throws {
        let container = try PersistentContainer(url: url, model: modelBeforeTheKey, logger: .init(label: "before"))
        let context = container.newTaskContext(name: "old import")
        try context.performAndWait {
            for (date, location, height) in entries {
                let entry = JournalEntryBeforeTheKey(context: context)
                entry.date = date
                entry.location = location
                entry.height = height
            }
            try context.save()
        }
        try container.flush()
        try container.close()
    }

    @Test func aStoreWrittenBeforeTheKeyMigratesAndItsEntriesAreAdoptedNotDuplicated() throws {
        let d1 = Date(timeIntervalSinceReferenceDate: 120_303_488.5)
        let d3 = Date(timeIntervalSinceReferenceDate: 283_005_368)
        // The fixture store imported twice by the old import: (date, location) merged rows 1 and
        // 7, and the entries without a date came in again on the second run.
        let fixture = try JournalFixture { url in
            try Self.writeStoreBeforeTheKey(
                at: url,
                [
                    (d1, "C Street", "4.2"), (nil, "Malibu", "2.1"), (d3, nil, "8.8"), (nil, nil, "1.0"),
                    (nil, "Malibu", "2.1"), (nil, nil, "1.0"),
                ])
        }
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 6, "opening migrated in place")
        try fixture.writeInput("nulls.sqlite", CoreDataStoreFixtures.journalEntriesWithoutDateOrLocation)
        let first = try fixture.runSucceeding(Self.importFixture)
        #expect(first.counts["adopted"] == 5)
        #expect(first.counts["inserted"] == 1, "row 7, which the old key had folded into row 1")
        #expect(try sourceKeys(in: fixture) == [Self.fixtureStoreUUID: [1, 2, 3, 4, 5, 7]])
        #expect(try fixture.count(FetchRequest<JournalEntry>(predicate: \.sourceStoreUUID == nil)) == 1, "the old run's extra Malibu entry is left alone")
        let again = try fixture.runSucceeding(Self.importFixture)
        #expect(again.counts["inserted"] == 0)
        #expect(again.counts["adopted"] == 0)
        #expect(again.counts["unchanged"] == 6)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 7)
    }

    @Test func theCorpusStoreImportedBeforeTheKeyIsNotImportedAgain() throws {
        let fixture = try JournalFixture { url in
            let corpus = corpusDirectory.appendingPathComponent("surfjournal/SurfJournalModel.sqlite")
            let copy = url.deletingLastPathComponent().appendingPathComponent("old-import")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(
                    at: URL(fileURLWithPath: corpus.path + suffix),
                    to: copy.appendingPathComponent("SurfJournalModel.sqlite" + suffix))
            }
            let reader = try CoreDataStoreReader(url: copy.appendingPathComponent("SurfJournalModel.sqlite"))
            defer { try? reader.close() }
            var entries: [(Date?, String?, String?)] = []
            try reader.forEachRow(ofEntity: "JournalEntry") { rows in
                for row in rows { entries.append((try row.date("date"), try row.string("location"), try row.string("height"))) }
            }
            try Self.writeStoreBeforeTheKey(at: url, entries)
        }
        try fixture.copyCorpus("surfjournal/SurfJournalModel.sqlite", withSidecars: true)
        let job = #"{"kind": "import-coredata", "input": "SurfJournalModel.sqlite"}"#
        let outcome = try fixture.runSucceeding(job)
        #expect(outcome.counts["inserted"] == 0)
        #expect(outcome.counts["adopted"] == 5_000)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 5_000)
        #expect(try fixture.count(FetchRequest<JournalEntry>(predicate: \.sourceStoreUUID == nil)) == 0)
        let again = try fixture.runSucceeding(job)
        #expect(again.counts["unchanged"] == 5_000)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 5_000)
    }

    /// The source keys on disk, by store UUID.
    private func sourceKeys(in fixture: JournalFixture) throws -> [String: [Int]] {
        let context = fixture.container.newTaskContext(name: "check")
        return try context.performAndWait {
            var keys: [String: [Int]] = [:]
            for entry in try context.fetch(FetchRequest<JournalEntry>(predicate: \.sourceStoreUUID != nil)) {
                keys[entry.sourceStoreUUID!, default: []].append(entry.sourcePrimaryKey ?? -1)
            }
            return keys.mapValues { $0.sorted() }
        }
    }
}

/// `JournalEntry` as it was before its natural key.
final class JournalEntryBeforeTheKey: ManagedObject {
    override class var entityName: String { "JournalEntry" }
    @Attribute("date") var date: Date?
    @Attribute("height") var height: String?
    @Attribute("period") var period: String?
    @Attribute("wind") var wind: String?
    @Attribute("location") var location: String?
    @Attribute("rating") var rating: Int?

    override class var indexes: [[String]] { [["date"], ["location"]] }
}

let modelBeforeTheKey = ManagedObjectModel(JournalEntryBeforeTheKey.self, BuoyStation.self, BuoyObservation.self)
