public import LineupSpool

/// How a job named in another's `after` list was settled, with its report: what a batch's
/// callback reads of the jobs it waited for (``JobRequest/dependencyReports()``).
public enum DependencyReport: Sendable, Hashable {
    /// It succeeded; its result report, as `done/` (or the jobs table) keeps it.
    case done(JobResultReport)
    /// It failed for good (a job with `afterSettled` runs after failures too); its error report.
    case failed(JobFailureReport)

    /// Whether it succeeded.
    public var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}
