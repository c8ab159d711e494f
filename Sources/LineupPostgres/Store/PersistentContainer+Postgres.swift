public import Foundation
public import LineupStore
public import Logging

extension PersistentContainer {
    /// Opens the PostgreSQL database at `url` (`postgres://user:password@host:port/database`) as
    /// the store, and builds the stack on it. Several daemons on several hosts can share it (see
    /// DESIGN §6); tasks do not change with the store.
    ///
    /// `maximumReaderCount` bounds the connections that task contexts read with (see
    /// ``PersistentContainer/readerCount(forConcurrentTasks:)``).
    public convenience init(
        postgresURL url: URL, model: ManagedObjectModel, logger: Logger,
        maximumReaderCount: Int = SQLiteStore.defaultReaderCount
    ) throws {
        self.init(
            store: try PostgresStore(url: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount),
            logger: logger)
    }
}
