public import Foundation

/// Throughput and duration per kind over a recent window: what the job browser's chart draws.
public struct JobStatistics: Sendable, Encodable {
    /// One kind's jobs finished in the window.
    public struct Kind: Sendable, Encodable {
        public var kind: String
        /// Jobs finished each minute of the window, oldest minute first.
        public var perMinute: [Int]
        public var finished: Int
        /// Durations (start of the last attempt to finish), in seconds.
        public var p50: Double
        public var p95: Double
    }

    public var since: Date
    public var until: Date
    public var kinds: [Kind]
    /// How many finished jobs were read; a spool reads at most a bounded number of the newest.
    public var sampled: Int
    /// Whether the bound was reached, so that older jobs finished in the window may be missing.
    public var truncated: Bool

    /// The statistics of `samples` (kind, started, finished) that finished within the `minutes`
    /// before `now`.
    public init(samples: [(kind: String, startedAt: Date, finishedAt: Date)], minutes: Int, now: Date, sampled: Int, truncated: Bool) {
        let since = now.addingTimeInterval(-Double(minutes) * 60)
        self.since = since
        self.until = now
        self.sampled = sampled
        self.truncated = truncated
        var byKind: [String: [(Date, Date)]] = [:]
        for sample in samples where sample.finishedAt >= since && sample.finishedAt <= now {
            byKind[sample.kind, default: []].append((sample.startedAt, sample.finishedAt))
        }
        kinds = byKind.keys.sorted().map { kind in
            let jobs = byKind[kind] ?? []
            var perMinute = Array(repeating: 0, count: minutes)
            for (_, finished) in jobs {
                perMinute[min(minutes - 1, max(0, Int(finished.timeIntervalSince(since) / 60)))] += 1
            }
            let durations = jobs.map { max(0, $0.1.timeIntervalSince($0.0)) }.sorted()
            return Kind(
                kind: kind, perMinute: perMinute, finished: jobs.count, p50: Self.percentile(0.5, of: durations),
                p95: Self.percentile(0.95, of: durations))
        }
    }

    /// The nearest-rank percentile of sorted values; 0 for none.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
