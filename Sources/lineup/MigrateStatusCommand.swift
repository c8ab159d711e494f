import ArgumentParser
import LineupJobs
import LineupPostgres
import LineupStore

/// `lineup migrate status`: each schema's version, the latest this Lineup knows, and what is
/// pending. Reads only: an SQLite store is left byte for byte as it was.
struct MigrateStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show each schema's version, the latest this Lineup knows, and the pending migrations.")

    @OptionGroup var options: MigrationOptions

    func run() throws {
        try options.withDatabase { session in
            for schema in options.schemas {
                let status: SchemaStatus
                switch (schema, session) {
                case (.store, nil): status = try StoreSchema.status(ofSQLiteStoreAt: options.storeURL)
                case let (.store, session?): status = try StoreSchema.status(of: session)
                case let (.jobs, session?): status = try JobTableMigrations.status(of: session)
                case (.jobs, nil): preconditionFailure("MigrationOptions.validate() lets --schema jobs through only with --database")
                }
                print(status.text, terminator: "")
            }
        }
    }
}

extension SchemaStatus {
    /// `job-table schema, postgres://…: version 1 (tables made before versions were recorded); latest 2; 1 pending`,
    /// then a line per pending migration.
    var text: String {
        var head = "\(subject), \(location): version \(version)"
        if let note { head += " (\(note))" }
        head += "; latest \(latestVersion); "
        if isNewer {
            head += "NEWER than this Lineup knows: upgrade Lineup to use it"
        } else if pending.isEmpty {
            head += version == 0 ? "nothing to migrate" : "up to date"
        } else {
            head += "\(pending.count) pending"
        }
        return ([head] + pending.map { "  \($0.version)  \($0.name)" }).joined(separator: "\n") + "\n"
    }
}
