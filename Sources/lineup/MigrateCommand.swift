import ArgumentParser

/// `lineup migrate status|up`: the versions of a store's own tables and, in a PostgreSQL
/// database, of its job tables, and the migrations between them.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Show or run the schema migrations of a store and its job tables.",
        discussion: """
            Each schema has a version: the store's own tables (lineup_metadata; on PostgreSQL also its \
            sequences) and, in a PostgreSQL database, the job tables (lineup_jobs, lineup_daemons). \
            A daemon migrates an older schema when it opens it, and refuses a newer one; these \
            commands show where a database stands and migrate it by hand, e.g. before daemons of the \
            new version start. Stop the daemons of the old version first.
            """,
        subcommands: [MigrateStatusCommand.self, MigrateUpCommand.self], defaultSubcommand: MigrateStatusCommand.self)
}
