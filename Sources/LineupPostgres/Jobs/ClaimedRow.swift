import Foundation
import LineupSpool
import LineupJobs

/// A job row of the jobs table that this daemon claimed (``DatabaseJobStorage/claimNext()``).
///
/// A claim is the row and its `claims` count: the count grows with every claim, so a daemon that
/// lost the row (its lease ran out and another daemon took the job) no longer matches it, and
/// every change it tries is refused (fencing).
struct ClaimedRow: HeldJob {
    /// The row's id.
    let row: Int64
    /// The row's `claims` count as this claim set it.
    let claims: Int64
    let name: String
    /// Where the row is, for messages: `postgres://host/db#lineup_jobs/42`.
    let location: String
    /// The job file's bytes, as they were enqueued.
    let contents: Data
    let interruptions: Int
    let failedAttempts: Int

    var claim: String { "\(row).\(claims)" }

    var enqueuedFileName: String { name + ".job.json" }

    func decodeJobFile() throws(SpoolError) -> JobFile {
        try JobFile(data: contents, path: location)
    }

    /// The same claim after one more attempt failed.
    func withFailedAttempt() -> ClaimedRow {
        ClaimedRow(
            row: row, claims: claims, name: name, location: location, contents: contents, interruptions: interruptions,
            failedAttempts: failedAttempts + 1)
    }
}
