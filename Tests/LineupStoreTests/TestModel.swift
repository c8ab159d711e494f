import Foundation
import LineupPostgres
@testable import LineupStore
import LineupTestSupport
import Logging
import Testing

final class Entry: ManagedObject {
    @Attribute("date") var date: Date?
    @Attribute("height") var height: String?
    @Attribute("location") var location: String?
    @Attribute("rating") var rating: Int?
    @Attribute("score") var score: Double = 0
}

final class Station: ManagedObject {
    @Attribute("stationID") var stationID: String?
    @Attribute("name") var name: String?

    override class var uniquenessConstraints: [[String]] { [["stationID"]] }
}

final class Reading: ManagedObject {
    @Relationship("station") var station: Station?
    @Attribute("time") var time: Date?
    @Attribute("waveHeight") var waveHeight: Double?

    override class var uniquenessConstraints: [[String]] { [["station", "time"]] }
}

let testModel = ManagedObjectModel(Entry.self, Station.self, Reading.self)

/// The stores a stack can be built on. The stack's tests take each (`arguments: StoreKind.allCases`):
/// the contexts' semantics must not depend on the store.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// SQLite always; PostgreSQL where its server can be started here, and always in CI
    /// (`LINEUP_REQUIRE_POSTGRES=1`), where a missing server fails the PostgreSQL cases.
    static var allCases: [StoreKind] {
        PostgresTestServer.isAvailable || PostgresTestServer.isRequired ? [.sqlite, .postgres] : [.sqlite]
    }

    var testDescription: String { rawValue }
}

/// A place for a store, removed at the end of the test: a file in a new temporary directory, or
/// a new database on the tests' own PostgreSQL server (see `PostgresTestServer`). A test that
/// reopens a store with another model opens `url` itself.
final class TemporaryStoreURL {
    let kind: StoreKind
    let directory: URL
    /// The SQLite file, or the PostgreSQL database.
    let url: URL
    private let database: (server: PostgresTestServer, name: String)?

    init(_ kind: StoreKind) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lineup-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch kind {
        case .sqlite:
            url = directory.appendingPathComponent("store.sqlite")
            database = nil
        case .postgres:
            let server = try PostgresTestServer.shared()
            let name = try server.createDatabase()
            url = URL(string: server.url(database: name))!
            database = (server, name)
        }
    }

    /// Opens the stack on the store: SQLite's, or LineupPostgres's.
    func open(
        model: ManagedObjectModel = testModel, logger: Logger = Logger(label: "test"),
        maximumReaderCount: Int = SQLiteStore.defaultReaderCount
    ) throws -> PersistentContainer {
        try openStack(at: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount)
    }

    /// How the store names itself in messages: the file's path, or the database's URL.
    var location: String { kind == .sqlite ? url.path : url.absoluteString }

    deinit {
        try? FileManager.default.removeItem(at: directory)
        if let database { try? database.server.dropDatabase(database.name) }
    }
}

/// Opens the stack on the store at `url`: a file's is SQLite's, a `postgres://` URL's is
/// LineupPostgres's.
func openStack(
    at url: URL, model: ManagedObjectModel, logger: Logger = Logger(label: "test"),
    maximumReaderCount: Int = SQLiteStore.defaultReaderCount
) throws -> PersistentContainer {
    if url.isFileURL {
        try PersistentContainer(url: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount)
    } else {
        try PersistentContainer(postgresURL: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount)
    }
}

/// A stack on a fresh store (see `TemporaryStoreURL`), removed at the end of the test.
final class TemporaryStack {
    let place: TemporaryStoreURL
    let container: PersistentContainer

    init(_ kind: StoreKind = .sqlite, model: ManagedObjectModel = testModel, maximumReaderCount: Int = SQLiteStore.defaultReaderCount) throws {
        place = try TemporaryStoreURL(kind)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        container = try place.open(model: model, logger: logger, maximumReaderCount: maximumReaderCount)
    }

    var directory: URL { place.directory }
    var url: URL { place.url }
    var main: ManagedObjectContext { container.mainContext }

    /// Rows of an entity on disk, read with a second, independent store connection.
    func rowsOnDisk(_ entity: String) throws -> Int {
        try container.rowCount(of: entity)
    }

    deinit {
        // Closed before the place goes: PostgreSQL drops no database that a connection holds.
        try? container.close()
    }
}

extension ManagedObjectContext {
    /// Inserts an entry with the given location and rating.
    @discardableResult
    func insertEntry(_ location: String, rating: Int? = nil) -> Entry {
        let entry = Entry(context: self)
        entry.location = location
        entry.rating = rating
        return entry
    }
}

extension PersistentContainer {
    /// The SQLite store under the stack, for the tests that look at SQLite itself.
    var sqliteStore: SQLiteStore { store as! SQLiteStore }
}
