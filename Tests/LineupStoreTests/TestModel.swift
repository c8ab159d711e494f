import Foundation
@testable import LineupStore
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

/// A store in a fresh temporary directory, removed at the end of the test.
final class TemporaryStack {
    let directory: URL
    let url: URL
    let container: PersistentContainer

    init(model: ManagedObjectModel = testModel, maximumReaderCount: Int = SQLiteStore.defaultReaderCount) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lineup-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("store.sqlite")
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        container = try PersistentContainer(url: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount)
    }

    var main: ManagedObjectContext { container.mainContext }

    /// Rows of an entity on disk, read with a second, independent store connection.
    func rowsOnDisk(_ entity: String) throws -> Int {
        try container.rowCount(of: entity)
    }

    deinit {
        try? container.close()
        try? FileManager.default.removeItem(at: directory)
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
