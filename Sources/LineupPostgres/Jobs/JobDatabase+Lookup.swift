import Foundation
public import LineupJobs
import LineupSpool
import LineupStore

extension JobDatabase {
    /// The jobs whose id or name is `job`, oldest first (an id may be reused by later jobs).
    public func jobs(matching job: String) throws -> [StoredJob] {
        try sessions.withSession { session in
            try session.rows(
                """
                SELECT j.name, j.job_id, j.kind, j.state, j.contents, j.failed_attempts, j.interruptions,
                       d.host || ' pid ' || d.pid, extract(epoch FROM j.finished_at)::float8, j.report, j.reason,
                       CASE WHEN j.cancel_requested_at IS NULL THEN 0 ELSE 1 END
                FROM lineup_jobs AS j LEFT JOIN lineup_daemons AS d ON d.id = j.claimed_by AND j.state = 'running'
                WHERE j.job_id = $1 OR j.name = $1 ORDER BY j.id
                """, [.text(job)]
            ).compactMap { row -> StoredJob? in
                guard case let .text(name) = row[0], case let .text(stateName) = row[3],
                    let state = JobState(columnValue: stateName), case let .blob(contents) = row[4]
                else { return nil }
                return StoredJob(
                    name: name, id: row[1].textIfPresent, kind: row[2].textIfPresent, state: state, contents: contents,
                    failedAttempts: Int(row[5].integerIfPresent ?? 0), interruptions: Int(row[6].integerIfPresent ?? 0),
                    claimedBy: row[7].textIfPresent, finishedAt: row[8].realIfPresent.map(Date.init(timeIntervalSince1970:)),
                    report: row[9].textIfPresent, reason: row[10].textIfPresent, cancellationRequested: row[11] == .integer(1))
            }
        }
    }

    /// How the jobs with these ids were settled, with their reports, as a job that waited for
    /// them reads them (``JobRequest/dependencyReports()``). An id that no settled job has, or
    /// whose report cannot be read, is left out.
    public func settledReports(ofJobIDs ids: some Sequence<String>) throws -> [String: DependencyReport] {
        var reports: [String: DependencyReport] = [:]
        for id in ids {
            reports[id] = try settledReport(ofJobID: id)
        }
        return reports
    }
}
