public import LineupJobs
public import LineupSpool

/// How a task run inline by ``JobTester/run(_:attempt:)`` ended.
public struct InlineRun: Sendable {
    /// The task's result: succeeded with its outcome, failed with its error, or cancelled.
    public let result: JobTaskResult
    /// The report that the daemon would write into `done/`; nil unless the run succeeded.
    public let report: JobResultReport?

    /// The outcome of a successful run.
    public var outcome: JobOutcome? { result.outcome }

    /// The error of a failed run: what the task threw, or what its kind's factory refused.
    public var error: (any Error)? { result.error }
}
