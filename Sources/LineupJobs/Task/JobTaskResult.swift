/// How one attempt of a ``JobTask`` ended.
public enum JobTaskResult: Sendable {
    /// ``JobTask/run(in:)`` returned and its changes were saved into the main context.
    case succeeded(JobOutcome)
    /// The task threw; nothing it did reached the main context.
    case failed(any Error)
    /// The task was cancelled before it started or while it ran; nothing it did reached the
    /// main context.
    case cancelled

    /// The outcome of a successful attempt.
    public var outcome: JobOutcome? {
        if case let .succeeded(outcome) = self { return outcome }
        return nil
    }

    /// The error of a failed attempt.
    public var error: (any Error)? {
        if case let .failed(error) = self { return error }
        return nil
    }
}
