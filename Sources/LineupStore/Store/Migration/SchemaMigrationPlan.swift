package import Logging

/// What migrating one database's schema from its version to a later one runs: the pending
/// migrations, each followed by the statement that records its version.
///
/// The caller runs it inside one transaction that holds the schema's lock and read the version
/// under it (PostgreSQL: an advisory lock; SQLite: the write transaction), so that several
/// processes opening one database at once migrate it once, and a failure leaves nothing behind.
package struct SchemaMigrationPlan: Sendable {
    /// What the versions are of ("job-table schema").
    package let subject: String
    /// The database, for messages: a file's path, or a URL without its password.
    package let location: String
    /// The version the database was at when the plan was made.
    package let fromVersion: Int
    /// The migrations to run, in order; empty when there is nothing to do.
    package let migrations: [SchemaMigration]
    let preamble: [String]
    /// The statement that records each of `migrations`, in the same order.
    let recordings: [String]

    /// The version the database is at once the plan has run.
    package var toVersion: Int { migrations.last?.version ?? fromVersion }

    package var isEmpty: Bool { migrations.isEmpty }

    /// Every statement, in the order ``run(logger:_:)`` runs them.
    package var statements: [String] {
        preamble + zip(migrations, recordings).flatMap { migration, recording in migration.statements + [recording] }
    }

    /// Runs the statements through `execute`, in the caller's transaction. A statement that fails
    /// throws, naming the migration; the caller's rollback then leaves the database as it was.
    ///
    /// A database that had none of the schema (version 0) is being created, not upgraded: that is
    /// logged at debug, an upgrade at info.
    package func run(logger: Logger, _ execute: (String) throws -> Void) throws {
        guard !isEmpty else { return }
        for statement in preamble {
            try run(statement, in: nil, execute)
        }
        for (migration, recording) in zip(migrations, recordings) {
            logger.log(
                level: fromVersion == 0 ? .debug : .info, "migrating a schema",
                metadata: [
                    "schema": "\(subject)", "database": "\(location)", "version": "\(migration.version)",
                    "migration": "\(migration.name)",
                ])
            for statement in migration.statements + [recording] {
                try run(statement, in: migration, execute)
            }
        }
    }

    private func run(_ statement: String, in migration: SchemaMigration?, _ execute: (String) throws -> Void) throws {
        do {
            try execute(statement)
        } catch {
            let step = migration.map { "migration \($0.version) (\($0.name))" } ?? "the preparation"
            let code = (error as? StoreError)?.code ?? .sqlite
            let reason = (error as? StoreError)?.message ?? "\(error)"
            throw StoreError(
                code, "\(location): \(step) of the \(subject) failed, and nothing of it was kept: \(reason)", underlying: error)
        }
    }

    /// The plan as an SQL script, each statement ended by a semicolon, between `opening` (the
    /// transaction's BEGIN and the lock) and `closing`, with a comment naming each migration: what
    /// `lineup migrate up --dry-run` prints. Empty when there is nothing to do.
    package func script(opening: [String], closing: [String] = ["COMMIT"]) -> String {
        guard !isEmpty else { return "" }
        var lines = ["-- \(subject) of \(location): version \(fromVersion) to \(toVersion)"]
        lines += (opening + preamble).map { $0 + ";" }
        for (migration, recording) in zip(migrations, recordings) {
            lines.append("-- \(migration.version): \(migration.name)")
            lines += (migration.statements + [recording]).map { $0 + ";" }
        }
        lines += closing.map { $0 + ";" }
        return lines.joined(separator: "\n") + "\n"
    }
}
