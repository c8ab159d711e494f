package import Foundation
package import LineupStore
package import Logging

/// What opens the store and the jobs of a daemon that runs on a database
/// (``DaemonConfiguration/databaseURL``) instead of a SQLite file and the spool.
///
/// LineupJobs itself knows the spool and SQLite only, so that an app on SQLite links no database
/// driver and no NIO. A daemon whose configuration names a database is given the driver that
/// opens it, from the module that links it (LineupPostgres's `DatabaseDriver.postgres`):
///
/// ```swift
/// import LineupPostgres
///
/// let daemon = JobDaemon(
///     configuration: configuration, registry: registry, model: model, logger: logger, database: .postgres)
/// ```
public struct DatabaseDriver: Sendable {
    /// The URL schemes it opens, e.g. `postgres` and `postgresql`.
    public let schemes: Set<String>
    /// Opens the store at the URL, with at most the given number of readers.
    package let openStore: @Sendable (URL, ManagedObjectModel, Logger, _ maximumReaderCount: Int) throws -> PersistentContainer
    /// Opens the jobs kept at the URL and registers this daemon there. The closure it is given
    /// stops the daemon without writing what its jobs did (see ``SharedJobQueue``).
    package let openJobs:
        @Sendable (URL, DaemonConfiguration, Logger, _ mustStop: @escaping @Sendable (DaemonError) -> Void) throws
            -> any SharedJobQueue

    package init(
        schemes: Set<String>,
        openStore: @escaping @Sendable (URL, ManagedObjectModel, Logger, Int) throws -> PersistentContainer,
        openJobs: @escaping @Sendable (URL, DaemonConfiguration, Logger, @escaping @Sendable (DaemonError) -> Void) throws
            -> any SharedJobQueue
    ) {
        self.schemes = schemes
        self.openStore = openStore
        self.openJobs = openJobs
    }

    /// Whether it opens `url`.
    func opens(_ url: URL) -> Bool {
        url.scheme.map { schemes.contains($0.lowercased()) } ?? false
    }
}
