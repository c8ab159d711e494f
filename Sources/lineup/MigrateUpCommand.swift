import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupStore

/// `lineup migrate up`: runs the pending migrations of each schema, each schema in one
/// transaction that holds its lock (the one daemons take when they migrate at start), or prints
/// their SQL with `--dry-run`.
struct MigrateUpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up", abstract: "Run the pending migrations, or print their SQL with --dry-run.",
        discussion: """
            Each schema migrates in one transaction with the records of its versions: a failure \
            leaves it as it was. On an SQLite store it takes the store's lock file, as a daemon \
            does: it is refused while a daemon runs on the store.
            """)

    @OptionGroup var options: MigrationOptions
    @Option(help: "Migrate up to this version rather than the latest (with --database, give --schema too).")
    var to: Int?
    @Flag(help: "Print the SQL that would run, and run nothing.")
    var dryRun = false

    func validate() throws {
        guard let to else { return }
        guard options.schemas.count == 1 else {
            throw ValidationError("--to needs --schema store or --schema jobs: the store and the job tables have versions of their own")
        }
        guard to >= 0 else { throw ValidationError("--to must be a version: 0 or more") }
    }

    func run() throws {
        try options.withDatabase { session in
            for schema in options.schemas {
                switch (schema, session) {
                case (.store, nil): try sqliteStore()
                case let (.store, session?):
                    let plan =
                        if dryRun { try StoreSchema.plan(of: session, to: to) } else {
                            try StoreSchema.migrate(session, to: to, logger: DatabaseOption.logger)
                        }
                    report(plan, opening: ["BEGIN", StoreSchema.postgresLock])
                case let (.jobs, session?):
                    let plan =
                        if dryRun { try JobTableMigrations.plan(of: session, to: to) } else {
                            try session.transaction { try JobTableMigrations.migrate(session, to: to, logger: DatabaseOption.logger) }
                        }
                    report(plan, opening: ["BEGIN", JobTableMigrations.lockStatement])
                case (.jobs, nil): preconditionFailure("MigrationOptions.validate() lets --schema jobs through only with --database")
                }
            }
        }
    }

    private func sqliteStore() throws {
        let url = options.storeURL
        let plan = try StoreSchema.planSQLiteStore(at: url, to: to)
        guard !dryRun, !plan.isEmpty else {
            report(plan, opening: StoreSchema.sqliteOpening)
            return
        }
        // The store's owner while it migrates, as a daemon or `lineup run` would be.
        let ownership = try OwnershipLock.acquire(url.path + ".lock", guarding: "store")
        defer { ownership.release() }
        report(try StoreSchema.migrateSQLiteStore(at: url, to: to, logger: DatabaseOption.logger), opening: StoreSchema.sqliteOpening)
    }

    /// What ran (or, with `--dry-run`, the script that would run).
    private func report(_ plan: SchemaMigrationPlan, opening: [String]) {
        let place = "\(plan.subject), \(plan.location)"
        if plan.isEmpty {
            let state = plan.fromVersion == 0 && plan.subject == StoreSchema.subject ? "no store yet" : "version \(plan.fromVersion)"
            print(dryRun ? "-- \(place): \(state); nothing to run" : "\(place): \(state); nothing to run")
        } else if dryRun {
            print(plan.script(opening: opening), terminator: "")
        } else {
            print("\(place): migrated from version \(plan.fromVersion) to \(plan.toVersion)")
            for migration in plan.migrations { print("  ran \(migration.version)  \(migration.name)") }
        }
    }
}
