import Foundation
import LineupJobs
import LineupSpool
import LineupStore

extension JobDatabase {
    /// The channel that a request to cancel a running job notifies: the daemons that listen look
    /// for requests on their own jobs at once, rather than at their next tick.
    static let cancellationChannel = "lineup_cancel"

    /// What ``cancel(_:)`` did.
    public struct Cancellation: Sendable, Equatable {
        /// Queued jobs, failed now with the reason "cancelled".
        public var failed: [String] = []
        /// Running jobs whose daemon is asked to stop them: they fail as cancelled by an operator
        /// within a second or so, unless they finish first.
        public var requested: [String] = []

        /// A cancellation that did these.
        public init(failed: [String] = [], requested: [String] = []) {
            self.failed = failed
            self.requested = requested
        }
    }

    /// Cancels the queued or running jobs whose id or name is in `jobs`, in one transaction:
    /// a queued job fails at once (reason "cancelled", with a failure report, as on a spool), and
    /// a running one is marked for its daemon, which is notified. Jobs done or failed are left
    /// as they are.
    ///
    /// - Returns: the names of the jobs failed and of those whose daemon was asked.
    @discardableResult
    public func cancel(_ jobs: [String]) throws -> Cancellation {
        guard !jobs.isEmpty else { return Cancellation() }
        let list = try Self.jsonArgument(jobs)
        return try sessions.withSession { session in
            try session.transaction {
                var cancellation = Cancellation()
                let queued = try session.rows(
                    """
                    SELECT id, name, job_id, kind, failed_attempts, interruptions FROM lineup_jobs
                    WHERE state = 'queued' AND (job_id IN (SELECT jsonb_array_elements_text($1::jsonb))
                                                OR name IN (SELECT jsonb_array_elements_text($1::jsonb)))
                    ORDER BY id FOR UPDATE SKIP LOCKED
                    """, [list])
                for row in queued {
                    guard case let .integer(rowID) = row[0], case let .text(name) = row[1] else { continue }
                    let report = JobFailureReport(
                        name: name, id: row[2].textIfPresent, kind: row[3].textIfPresent, reason: "cancelled",
                        attempts: Int(row[4].integerIfPresent ?? 0), interruptions: Int(row[5].integerIfPresent ?? 0),
                        retryable: false, startedAt: nil, finishedAt: Date())
                    try session.execute(
                        "UPDATE lineup_jobs SET state = 'failed', finished_at = now(), report = $2, reason = $3 WHERE id = $1",
                        [.integer(rowID), .text(String(decoding: try report.encoded(), as: UTF8.self)), .text(report.reason)])
                    cancellation.failed.append(name)
                }
                cancellation.requested = try session.rows(
                    """
                    UPDATE lineup_jobs SET cancel_requested_at = now()
                    WHERE state = 'running' AND (job_id IN (SELECT jsonb_array_elements_text($1::jsonb))
                                                 OR name IN (SELECT jsonb_array_elements_text($1::jsonb)))
                    RETURNING name
                    """, [list]
                ).compactMap(\.[0].textIfPresent).sorted()
                if !cancellation.requested.isEmpty {
                    try session.execute("SELECT pg_notify('\(Self.cancellationChannel)', '')")
                }
                // Jobs that waited for the failed ones fail in their turn: the daemons judge them
                // when notified.
                if !cancellation.failed.isEmpty {
                    try session.execute(Self.notification)
                }
                return cancellation
            }
        }
    }

    /// Whether the job with this id or name is still running, and whether its cancellation
    /// waits for its daemon.
    public func runningState(of job: String) throws -> (running: Bool, cancellationPending: Bool) {
        try sessions.withSession { session in
            let rows = try session.rows(
                """
                SELECT CASE WHEN cancel_requested_at IS NULL THEN 0 ELSE 1 END FROM lineup_jobs
                WHERE state = 'running' AND (job_id = $1 OR name = $1)
                """, [.text(job)])
            return (!rows.isEmpty, rows.contains { $0[0] == .integer(1) })
        }
    }
}
