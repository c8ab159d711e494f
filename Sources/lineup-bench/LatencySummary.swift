/// Percentiles of a set of latencies (nearest-rank method, so every figure is a latency that
/// was actually observed).
struct LatencySummary {
    let count: Int
    let p50: UInt64
    let p99: UInt64
    let max: UInt64

    /// Nil when there are no samples.
    init?(_ nanoseconds: [UInt64]) {
        guard !nanoseconds.isEmpty else { return nil }
        let sorted = nanoseconds.sorted()
        func rank(_ fraction: Double) -> UInt64 {
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        p50 = rank(0.50)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
    }
}
