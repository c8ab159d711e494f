import Foundation
import LineupSpool
import Logging

extension JobRunner {
    /// Builds the report of a task that succeeded and writes it into `tmp/` (see
    /// ``GroupCommitter/stage(_:of:logger:)``); nil for a task that did not succeed. Runs on the
    /// task's thread, before the completion hops to the coordinator: it touches only immutable,
    /// `Sendable` state.
    func stageReport(
        of task: JobTask, claimed: Storage.Held, id: String?, kind: String, attempt: Int, uniqueKey: String? = nil
    ) -> FinishedJob<Storage.Held>? {
        guard
            let report = task.resultReport(
                name: claimed.name, id: id, kind: kind, attempt: attempt, interruptions: claimed.interruptions, now: Date())
        else { return nil }
        var finished = committer.stage(report, of: claimed, logger: logger)
        finished.uniqueKey = uniqueKey
        return finished
    }
}
