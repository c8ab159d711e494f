import Foundation
import GRDB
@testable import LineupPostgres
@testable import LineupStore
import LineupTestSupport
import Logging
import Testing

/// The versions of a store's own tables (`StoreSchema`): recorded, reported, migrated forward
/// once, and a newer one refused naming both versions. Beyond the real versions (1: the metadata
/// table; 2: the outbox), the migrating itself runs a list of the tests' own, which adds versions
/// 3 and 4 to the real ones.
@Suite struct StoreSchemaTests {
    let scratch: ScratchDirectory
    let logger = Logger(label: "test")

    init() throws {
        scratch = try ScratchDirectory(prefix: "lineup-schema-tests")
    }

    /// The newest real version.
    static let real = 2
    /// The one after it, which only these tests know.
    static let next = real + 1

    /// The store's real migrations and a version 3 (and 4) that only these tests know.
    static func testMigrations(_ base: SchemaMigrations = StoreSchema.sqlite, upTo latest: Int = next, failing: Bool = false)
        -> SchemaMigrations
    {
        let added = (base.latestVersion + 1...latest).map { version in
            SchemaMigration(
                version: version, name: "test marker \(version)",
                statements: [
                    "INSERT INTO lineup_metadata (key, value) VALUES ('test_marker_\(version)', 'set')",
                    failing && version == latest ? "INSERT INTO no_such_table VALUES (1)" : "SELECT 1",
                ])
        }
        return SchemaMigrations(subject: StoreSchema.subject, migrations: base.migrations + added, recording: StoreSchema.recording)
    }

    private func metadata(_ url: URL) throws -> [String: String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM lineup_metadata").map {
                (String($0["key"] as String), String($0["value"] as String))
            })
        }
    }

    /// Every file of a store, with its bytes.
    private func snapshot(_ url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            files[suffix] = try Data(contentsOf: URL(fileURLWithPath: url.path + suffix))
        }
        return files
    }

    private func newStore(_ name: String = "store.sqlite") throws -> URL {
        let url = scratch.url.appending(path: name)
        try PersistentContainer(url: url, model: testModel, logger: logger).close()
        return url
    }

    @Test func bothEnginesHaveTheSameStoreVersions() {
        #expect(StoreSchema.sqlite.migrations.map(\.version) == StoreSchema.postgres.migrations.map(\.version))
        #expect(StoreSchema.latestVersion == Self.real)
        // The PostgreSQL store's sequences, as its first migration makes them, hand out the
        // blocks the store takes.
        let sequences = StoreSchema.postgres.migrations[0].statements
        #expect(sequences.contains("CREATE SEQUENCE lineup_primary_keys INCREMENT BY \(PostgresStore.primaryKeyBlock)"))
        #expect(sequences.contains("CREATE SEQUENCE lineup_stamps INCREMENT BY \(PostgresStore.stampBlock)"))
    }

    @Test func aNewStoreRecordsAndReportsItsVersion() throws {
        let url = try newStore()
        #expect(try metadata(url)["format_version"] == "\(Self.real)")
        let status = try StoreSchema.status(ofSQLiteStoreAt: url)
        #expect(status.version == Self.real && status.latestVersion == Self.real && status.pending.isEmpty && !status.isNewer)
        #expect(status.location == url.path)
    }

    /// A store that the Lineup before versioned migrations made is version 1, and opens; opening
    /// migrates it (version 2 adds the outbox).
    @Test func aStoreOfTheFirstVersionIsRecognizedAndOpens() throws {
        let url = scratch.url.appending(path: "first.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for statement in SchemaVersion1Fixtures.sqliteStore { try db.execute(sql: statement) }
        }
        try queue.close()
        #expect(try StoreSchema.status(ofSQLiteStoreAt: url).version == 1)
        let container = try PersistentContainer(url: url, model: testModel, logger: logger)
        #expect(container.storeIdentifier.uuidString == "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        try container.close()
        #expect(try metadata(url)["format_version"] == "\(Self.real)")
    }

    @Test func aStoreOfANewerVersionIsRefusedNamingBothVersionsAndLeftAsItWas() throws {
        let url = try newStore()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "UPDATE lineup_metadata SET value = '3' WHERE key = 'format_version'") }
        try queue.close()
        let before = try snapshot(url)

        let error = #expect(throws: StoreError.self) { try PersistentContainer(url: url, model: testModel, logger: logger) }
        #expect(error?.code == .storeNewerThanModel)
        #expect(error?.message == "\(url.path) has store schema version 3; this Lineup knows up to 2: upgrade Lineup to use it")
        let status = try StoreSchema.status(ofSQLiteStoreAt: url)
        #expect(status.isNewer && status.version == 3 && status.latestVersion == 2)
        let migrating = #expect(throws: StoreError.self) { try StoreSchema.migrateSQLiteStore(at: url, logger: logger) }
        #expect(migrating?.message.contains("has store schema version 3; this Lineup knows up to 2") == true)
        #expect(try snapshot(url) == before)
    }

    @Test func pendingMigrationsRunOnceInOrderAndRecordTheirVersion() throws {
        let url = try newStore()
        let migrations = Self.testMigrations(upTo: 4)
        let status = try StoreSchema.status(ofSQLiteStoreAt: url, migrations: migrations)
        #expect(status.version == 2 && status.latestVersion == 4 && status.pending.map(\.version) == [3, 4])

        // Planning reads only.
        let before = try snapshot(url)
        let plan = try StoreSchema.planSQLiteStore(at: url, to: 3, migrations: migrations)
        #expect(plan.fromVersion == 2 && plan.toVersion == 3)
        #expect(plan.statements == migrations.migrations[2].statements + [StoreSchema.recording(migrations.migrations[2])])
        let script = plan.script(opening: StoreSchema.sqliteOpening)
        #expect(script.hasPrefix("-- store schema of \(url.path): version 2 to 3\nBEGIN IMMEDIATE TRANSACTION;\n-- 3: test marker 3\n"))
        #expect(script.hasSuffix("ON CONFLICT (key) DO UPDATE SET value = excluded.value;\nCOMMIT;\n"))
        #expect(try snapshot(url) == before)

        let ran = try StoreSchema.migrateSQLiteStore(at: url, to: 3, migrations: migrations, logger: logger)
        #expect(ran.migrations.map(\.version) == [3])
        var stored = try metadata(url)
        #expect(stored["format_version"] == "3" && stored["test_marker_3"] == "set" && stored["test_marker_4"] == nil)

        let rest = try StoreSchema.migrateSQLiteStore(at: url, migrations: migrations, logger: logger)
        #expect(rest.fromVersion == 3 && rest.migrations.map(\.version) == [4])
        stored = try metadata(url)
        #expect(stored["format_version"] == "4" && stored["test_marker_4"] == "set")
        #expect(try StoreSchema.migrateSQLiteStore(at: url, migrations: migrations, logger: logger).isEmpty)

        // Migrations only go forward, and only to versions this Lineup knows.
        let back = #expect(throws: StoreError.self) { try StoreSchema.planSQLiteStore(at: url, to: 1, migrations: migrations) }
        #expect(back?.message.contains("has store schema version 4, past 1: migrations only go forward") == true)
        let beyond = #expect(throws: StoreError.self) { try StoreSchema.planSQLiteStore(at: url, to: 5, migrations: migrations) }
        #expect(beyond?.message.contains("there is no store schema version 5; this Lineup knows up to 4") == true)

        // The real Lineup knows versions 1 and 2 only.
        let refused = #expect(throws: StoreError.self) { try PersistentContainer(url: url, model: testModel, logger: logger) }
        #expect(refused?.message.contains("has store schema version 4; this Lineup knows up to 2") == true)
    }

    /// A store of version 1 gets the outbox through `lineup migrate`'s migration, which the next
    /// open then finds done; the table takes what a flush writes into it.
    @Test func aStoreOfVersion1GetsTheOutboxByMigration() throws {
        let url = scratch.url.appending(path: "first.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for statement in SchemaVersion1Fixtures.sqliteStore { try db.execute(sql: statement) }
        }
        try queue.close()
        let status = try StoreSchema.status(ofSQLiteStoreAt: url)
        #expect(status.version == 1 && status.pending.map(\.name) == ["outbox of jobs enqueued with the data"])
        let ran = try StoreSchema.migrateSQLiteStore(at: url, logger: logger)
        #expect(ran.fromVersion == 1 && ran.toVersion == 2)
        #expect(try metadata(url)["format_version"] == "2")

        let container = try PersistentContainer(url: url, model: testModel, logger: logger)
        defer { try? container.close() }
        container.mainContext.performAndWait {
            container.mainContext.enqueue(OutboxMessage(channel: "test", key: "k1", body: Data("one".utf8)))
        }
        try container.flush()
        #expect(try container.outboxEntries(on: "test", limit: 10).map(\.message.key) == ["k1"])
    }

    @Test func aMigrationThatFailsLeavesTheStoreAsItWas() throws {
        let url = try newStore()
        let migrations = Self.testMigrations(upTo: 4, failing: true)
        let error = #expect(throws: StoreError.self) { try StoreSchema.migrateSQLiteStore(at: url, migrations: migrations, logger: logger) }
        #expect(error?.message.contains("\(url.path): migration 4 (test marker 4) of the store schema failed, and nothing of it was kept") == true)
        let stored = try metadata(url)
        #expect(stored["format_version"] == "2" && stored["test_marker_3"] == nil, "one transaction: version 3 went with 4")
    }

    @Test func aPlaceWithoutAStoreHasNothingToMigrateAndAMissingFileIsAnError() throws {
        let empty = scratch.url.appending(path: "empty.sqlite")
        try Data().write(to: empty)
        let status = try StoreSchema.status(ofSQLiteStoreAt: empty)
        #expect(status.version == 0 && status.pending.isEmpty && status.note?.contains("no store yet") == true)
        #expect(try StoreSchema.migrateSQLiteStore(at: empty, logger: logger).isEmpty)
        #expect(try Data(contentsOf: empty).isEmpty)

        let missing = scratch.url.appending(path: "missing.sqlite")
        let error = #expect(throws: StoreError.self) { try StoreSchema.status(ofSQLiteStoreAt: missing) }
        #expect(error?.message == "no store at \(missing.path): no such file")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    // MARK: - PostgreSQL

    @Test(.enabled(if: StoreKind.allCases.contains(.postgres), "no PostgreSQL server here"))
    func aPostgresStoreRecordsItsVersionMigratesForwardAndRefusesANewerOne() throws {
        let place = try TemporaryStoreURL(.postgres)
        defer { extendLifetime(place) }
        let session = try PostgresSession.connect(to: place.url, logger: logger)
        defer { session.close() }
        #expect(try StoreSchema.status(of: session).note?.contains("no store yet") == true)
        #expect(try StoreSchema.migrate(session, logger: logger).isEmpty, "the first open creates the store, not migrate")
        #expect(try session.rows("SELECT count(*) FROM pg_tables WHERE tablename = 'lineup_metadata'") == [[.integer(0)]])

        try place.open(model: testModel, logger: logger).close()
        let status = try StoreSchema.status(of: session)
        #expect(status.version == 2 && status.pending.isEmpty)

        let migrations = Self.testMigrations(StoreSchema.postgres)
        #expect(try StoreSchema.plan(of: session, migrations: migrations).migrations.map(\.version) == [3])
        let ran = try StoreSchema.migrate(session, migrations: migrations, logger: logger)
        #expect(ran.fromVersion == 2 && ran.toVersion == 3)
        #expect(
            try session.rows("SELECT value FROM lineup_metadata WHERE key IN ('format_version', 'test_marker_3') ORDER BY key")
                == [[.text("3")], [.text("set")]])
        #expect(try StoreSchema.migrate(session, migrations: migrations, logger: logger).isEmpty)

        let error = #expect(throws: StoreError.self) { try place.open(model: testModel, logger: logger) }
        #expect(error?.code == .storeNewerThanModel)
        #expect(error?.message == "\(place.location) has store schema version 3; this Lineup knows up to 2: upgrade Lineup to use it")
    }
}
