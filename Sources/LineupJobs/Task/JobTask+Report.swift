package import Foundation
package import LineupSpool

extension JobTask {
    /// The report that `done/` keeps for this attempt, if it succeeded: the runner stages it, and
    /// LineupTesting hands it back from an inline run. nil for an attempt that did not succeed.
    ///
    /// - Parameter now: the time for a start or an end the task did not record.
    package func resultReport(
        name: String, id: String?, kind: String, attempt: Int, interruptions: Int = 0, now: Date
    ) -> JobResultReport? {
        guard case let .succeeded(outcome) = finalResult else { return nil }
        return JobResultReport(
            name: name, id: id, kind: kind, attempts: attempt, interruptions: interruptions,
            startedAt: startedAt ?? now, finishedAt: finishedAt ?? now, details: outcome.reportDetails)
    }
}
