extension Duration {
    /// The duration a job file's number of seconds gives (`baseDelay`, `timeout`, `uniqueFor`):
    /// in Swift a delay is a `Duration`, in the JSON file a number of seconds. Clamped to
    /// 0...1e9 s, which Int64 nanoseconds hold; the fields' own checks refuse far less.
    package init(jobFileSeconds seconds: Double) {
        self = .nanoseconds(Int64(min(max(seconds, 0), 1e9) * 1e9))
    }

    /// The number of seconds a job file writes for the duration.
    package var jobFileSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
