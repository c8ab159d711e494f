/// How often a failed job is attempted, and how long the runner waits between attempts.
///
/// The wait before a retry is capped exponential backoff with full jitter (as in AWS's
/// "Exponential Backoff and Jitter"): the ceiling doubles with each failed attempt, from
/// ``baseDelay`` up to ``maxDelay``, and the actual wait is drawn uniformly between zero and
/// that ceiling, so that jobs that failed together do not retry together.
///
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(1), maxDelay: .seconds(60))
/// policy.backoffCeiling(afterAttempt: 1)   // 1 s
/// policy.backoffCeiling(afterAttempt: 3)   // 4 s
/// policy.backoffCeiling(afterAttempt: 9)   // 60 s (capped)
/// policy.delay(afterAttempt: 3, jitter: 0.5) // 2 s
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// How many attempts a job gets in all (1 means no retry).
    public var maxAttempts: Int
    /// The backoff ceiling after the first failed attempt.
    public var baseDelay: Duration
    /// The largest backoff ceiling.
    public var maxDelay: Duration

    /// - Precondition: `maxAttempts >= 1`, delays not negative.
    public init(maxAttempts: Int = 3, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300)) {
        precondition(maxAttempts >= 1, "maxAttempts must be at least 1")
        precondition(baseDelay >= .zero && maxDelay >= .zero, "retry delays must not be negative")
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// This policy with a job file's own `maxAttempts` and `baseDelay`, where given.
    public func overridden(maxAttempts: Int?, baseDelay: Duration?) -> RetryPolicy {
        var copy = self
        if let maxAttempts { copy.maxAttempts = max(1, maxAttempts) }
        if let baseDelay, baseDelay >= .zero {
            copy.baseDelay = baseDelay
            copy.maxDelay = max(copy.maxDelay, copy.baseDelay)
        }
        return copy
    }

    /// Whether a job that failed its `attempt`-th attempt (counting from 1) gets another.
    public func allowsRetry(afterAttempt attempt: Int) -> Bool {
        attempt < maxAttempts
    }

    /// The most the runner waits after the `attempt`-th failed attempt:
    /// `min(maxDelay, baseDelay × 2^(attempt − 1))`.
    public func backoffCeiling(afterAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 62)
        let base = baseDelay / .nanoseconds(1)
        let cap = maxDelay / .nanoseconds(1)
        guard base > 0 else { return .zero }
        // Doubling past the cap would overflow for large attempt counts: stop at the cap.
        let limit = cap / Double(1 << exponent)
        let nanoseconds = base >= limit ? cap : base * Double(1 << exponent)
        return .nanoseconds(Int64(nanoseconds.rounded()))
    }

    /// The wait after the `attempt`-th failed attempt, with full jitter: `jitter` (a uniform
    /// random number in `0..<1`, injected so that tests can fix it) times
    /// ``backoffCeiling(afterAttempt:)``.
    public func delay(afterAttempt attempt: Int, jitter: Double) -> Duration {
        let fraction = min(max(jitter, 0), 1)
        let ceiling = backoffCeiling(afterAttempt: attempt) / .nanoseconds(1)
        return .nanoseconds(Int64((ceiling * fraction).rounded(.down)))
    }
}
