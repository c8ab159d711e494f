import ArgumentParser
import Foundation
import LineupStore
import Logging

/// `--database URL`, which the commands that act on jobs take to act on a database's jobs table
/// (`lineupd --database`) instead of a spool.
enum DatabaseOption {
    static func url(_ text: String) throws -> URL {
        // Several hosts with their ports are a libpq URL that URL(string:) refuses.
        guard let url = PostgresConnectionSettings.url(libpqURL: text) else {
            throw ValidationError(
                "--database \(PostgresConnectionSettings.redactedLocation(of: text)) is not a PostgreSQL URL (postgres://user@host:port/database)")
        }
        return url
    }

    /// The commands' own logger: postgres-nio logs through it, and only what is worth a warning.
    static var logger: Logger {
        var logger = Logger(label: "lineup")
        logger.logLevel = .warning
        return logger
    }
}
