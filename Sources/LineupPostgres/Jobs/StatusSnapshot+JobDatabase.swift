public import LineupJobs

extension StatusSnapshot {
    /// The jobs of a database: `queued` are its available jobs (due or not), and the daemons
    /// that share it are listed.
    public init(_ database: JobDatabase, recentFailureCount: Int = Self.recentFailureCount) throws {
        self.init(
            counts: try database.counts(), daemons: try database.daemons(),
            recentFailures: try database.failures(limit: recentFailureCount), paused: try database.pausedScopes())
    }
}
