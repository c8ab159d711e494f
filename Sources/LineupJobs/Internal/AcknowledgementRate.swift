import Foundation

/// Jobs acknowledged per minute over the last hour, for the status (the dashboard's throughput):
/// a ring of 60 counters, one per minute of the clock.
struct AcknowledgementRate {
    private var counts = [Int](repeating: 0, count: 60)
    /// The minute (since 1970) each counter counts; a counter of an older minute is stale.
    private var minutes = [Int](repeating: -1, count: 60)

    mutating func count(_ jobs: Int, at date: Date) {
        guard jobs > 0 else { return }
        let minute = Self.minute(of: date)
        let slot = minute % 60
        if minutes[slot] != minute {
            minutes[slot] = minute
            counts[slot] = 0
        }
        counts[slot] += jobs
    }

    /// The counts of the 60 minutes up to the one of `date`, oldest first.
    func perMinute(endingAt date: Date) -> [Int] {
        let now = Self.minute(of: date)
        return (now - 59...now).map { minute in
            let slot = minute % 60
            return minutes[slot] == minute ? counts[slot] : 0
        }
    }

    private static func minute(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 60).rounded(.down))
    }
}
