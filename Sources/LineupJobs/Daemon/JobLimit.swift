/// A limit on the jobs of one kind or one named queue (``DaemonConfiguration/limits``): how many
/// may run at once, and how many may be claimed in a period. Jobs over a limit stay queued,
/// unclaimed, until it has room again.
///
/// On a spool each daemon counts for itself. On PostgreSQL both counts are the database's, across
/// every daemon: see LineupPostgres's `DatabaseJobStorage` for how a claim keeps to them.
public struct JobLimit: Sendable, Hashable {
    /// At most `jobs` claims in any period of length `period` (a sliding window).
    public struct Rate: Sendable, Hashable {
        public var jobs: Int
        public var period: Duration

        public init(jobs: Int, per period: Duration) {
            self.jobs = jobs
            self.period = period
        }
    }

    /// How many of its jobs may run at once; nil: no limit. A job counts from its claim until
    /// its task ends (spool), or until it is settled (PostgreSQL: a finished job holds its place
    /// until the flush that acknowledges it).
    public var maxRunning: Int?
    /// How many of its jobs may be claimed per period; nil: no limit.
    public var rate: Rate?

    public init(maxRunning: Int? = nil, rate: Rate? = nil) {
        self.maxRunning = maxRunning
        self.rate = rate
    }
}
