public import LineupSpool

extension DaemonStatus {
    /// Where one limit (``JobLimit``) stands: what it allows, what is used of it, and whether it
    /// keeps jobs queued now.
    public struct LimitState: Sendable, Hashable, Codable {
        /// The kind or queue it applies to.
        public var scope: JobScope
        /// Its jobs running now (on PostgreSQL: claimed and not settled, on every daemon).
        public var running: Int
        /// How many may run at once; nil: no limit on that.
        public var maxRunning: Int?
        /// Its jobs claimed in the last ``period`` seconds (on PostgreSQL: by every daemon).
        public var claimedInPeriod: Int?
        /// How many may be claimed per period; nil: no rate.
        public var rate: Int?
        /// The rate's period, in seconds.
        public var period: Double?
        /// Whether it keeps jobs that are due queued now: it is used up and such jobs wait.
        public var holdingBack: Bool

        public init(
            scope: JobScope, running: Int, maxRunning: Int?, claimedInPeriod: Int?, rate: Int?, period: Double?, holdingBack: Bool
        ) {
            self.scope = scope
            self.running = running
            self.maxRunning = maxRunning
            self.claimedInPeriod = claimedInPeriod
            self.rate = rate
            self.period = period
            self.holdingBack = holdingBack
        }

        /// Whether it has no room for another claim.
        public var isUsedUp: Bool {
            if let maxRunning, running >= maxRunning { return true }
            if let rate, let claimedInPeriod, claimedInPeriod >= rate { return true }
            return false
        }
    }
}
