import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupStore

/// Where `lineup migrate` looks: an SQLite store (`--store`), or a PostgreSQL database
/// (`--database`) with its store and its job tables; `--schema` picks one of them.
struct MigrationOptions: ParsableArguments {
    /// The schemas of a store or a database.
    enum Schema: String, ExpressibleByArgument, CaseIterable {
        /// The store's own tables (StoreSchema).
        case store
        /// The job tables of a PostgreSQL database (JobTableMigrations).
        case jobs
    }

    @Option(help: "The SQLite store (default: lineup.sqlite).")
    var store: String?
    @Option(help: "A PostgreSQL database (lineupd --database): its store and its job tables.")
    var database: String?
    @Option(help: "Only this schema: store (the store's own tables) or jobs (the job tables, with --database).")
    var schema: Schema?

    func validate() throws {
        if store != nil, database != nil {
            throw ValidationError("give --store or --database, not both")
        }
        if schema == .jobs, database == nil {
            throw ValidationError("--schema jobs needs --database: the job tables are in a PostgreSQL database, an SQLite store has none")
        }
    }

    /// The SQLite store's file, when there is no `--database`.
    var storeURL: URL { URL(fileURLWithPath: store ?? "lineup.sqlite") }

    /// The schemas to act on, in the order a daemon opens them.
    var schemas: [Schema] {
        if let schema { return [schema] }
        return database == nil ? [.store] : [.store, .jobs]
    }

    /// A connection to `--database`, for `body`; nil when there is none.
    func withDatabase<Result>(_ body: (PostgresSession?) throws -> Result) throws -> Result {
        guard let database else { return try body(nil) }
        let session = try PostgresSession.connect(to: try DatabaseOption.url(database), logger: DatabaseOption.logger)
        defer { session.close() }
        return try body(session)
    }
}
