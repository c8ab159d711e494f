import Foundation
import LineupJobs
import LineupLocking
import LineupPostgres
import Logging

/// The dashboard's job browser on the daemon's database: a ``JobDatabase`` of its own,
/// connected at the first request rather than at start, so that a database that is down makes
/// the daemon fail as it always has (its own connection says why), not the dashboard first.
final class DatabaseJobBrowser: JobBrowsing {
    let url: URL
    let logger: Logger
    private let database = Locked<JobDatabase?>(nil)

    init(url: URL, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    var sourceName: String { "database" }

    private func opened() throws -> JobDatabase {
        try database.withLock { database in
            if let database { return database }
            let opened = try JobDatabase(url: url, logger: logger)
            database = opened
            return opened
        }
    }

    func page(_ query: JobQuery) async throws -> JobPage { try await opened().page(query) }

    func act(
        _ action: JobBulkAction, on query: JobQuery, cancelRunning: @Sendable (JobRow) async throws -> Bool
    ) async throws -> JobBulkOutcome {
        try await opened().act(action, on: query, cancelRunning: cancelRunning)
    }

    func statistics(minutes: Int, now: Date) async throws -> JobStatistics { try await opened().statistics(minutes: minutes, now: now) }

    func daemonLeases() async throws -> [DaemonLease]? { try await opened().daemonLeases() }

    /// Closes the connections, if a request opened them.
    func close() {
        database.withLock { $0?.close() }
    }
}
