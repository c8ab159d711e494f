public import Foundation

/// A source of every job for the dashboard's job browser: a spool (LineupServer reads it), or a
/// jobs table that several daemons share (LineupPostgres's `JobDatabase` conforms). `lineupd`
/// hands the endpoint the table when it runs on one, so that the dashboard, which does not link
/// PostgresNIO, lists every host's jobs and every daemon.
public protocol JobBrowsing: Sendable {
    /// `spool` or `database`.
    var sourceName: String { get }
    /// A page of the jobs that `query` selects, newest first within each of its states.
    func page(_ query: JobQuery) async throws -> JobPage
    /// Applies `action` to the jobs that `query` selects (its cursor and limit aside: a bounded
    /// number of them, with the cursor to go on).
    ///
    /// - Parameters:
    ///   - action: what to do to each job: retry, discard or cancel it.
    ///   - query: the filters that select the jobs.
    ///   - cancelRunning: asks the daemon that holds a running job to stop it, given
    ///     its row; false when the job finished meanwhile (it is then counted as skipped).
    func act(
        _ action: JobBulkAction, on query: JobQuery, cancelRunning: @Sendable (JobRow) async throws -> Bool
    ) async throws -> JobBulkOutcome
    /// Throughput and durations per kind over the last `minutes`.
    func statistics(minutes: Int, now: Date) async throws -> JobStatistics
    /// Every daemon with its lease; nil where one daemon owns the jobs (a spool).
    func daemonLeases() async throws -> [DaemonLease]?
}
