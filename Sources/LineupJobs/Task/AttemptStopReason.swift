/// Why the runner stopped an attempt before it ended by itself (``JobTask/stop(_:)``).
enum AttemptStopReason: Sendable, Equatable {
    /// It ran past its time limit: retryable, the next attempt may be quicker.
    case timedOut(after: Duration)
    /// An operator cancelled the job (`lineup cancel`, the API, the dashboard): it fails for good.
    case cancelledByOperator
}
