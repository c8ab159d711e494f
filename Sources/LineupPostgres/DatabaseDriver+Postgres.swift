public import LineupJobs
import LineupStore

extension DatabaseDriver {
    /// PostgreSQL (`postgres://` and `postgresql://` URLs): the store's tables and the jobs table
    /// in one database, which several daemons on several hosts share (DESIGN §6).
    public static let postgres = DatabaseDriver(
        schemes: ["postgres", "postgresql"],
        openStore: { url, model, logger, maximumReaderCount in
            try PersistentContainer(postgresURL: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount)
        },
        openJobs: { url, configuration, logger, mustStop in
            let database = try JobDatabase(
                url: url, logger: logger, connections: configuration.databaseConnectionBudget.jobConnections)
            do {
                return try DatabaseJobStorage(
                    database: database, listenURL: configuration.listenDatabaseURL, lease: configuration.lease,
                    poisonThreshold: configuration.maxInterruptions, dependencyWaitTimeout: configuration.dependencyWaitTimeout,
                    logger: logger,
                    routing: configuration.routing,
                    mustStop: mustStop)
            } catch {
                database.close()
                throw error
            }
        })
}
