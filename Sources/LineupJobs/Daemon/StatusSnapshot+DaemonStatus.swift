public import LineupSpool

extension StatusSnapshot {
    /// Reads the spool at `directory`, with `daemonStatus` as its daemon's status rather than
    /// the status file: for the dashboard, which runs in the daemon's process and asks the
    /// daemon itself (``JobDaemon/status()``), where reading `status.json` again each second
    /// would cost a file read and show a status up to one status interval old.
    public init(_ directory: SpoolDirectory, daemonStatus: DaemonStatus?, recentFailureCount: Int = Self.recentFailureCount) throws {
        counts = try directory.counts()
        unrecognized = try directory.unrecognizedQueueEntries()
        daemon = daemonStatus
        recentFailures = Array(try Self.failures(in: directory).prefix(recentFailureCount))
        // The daemon's own reading: on a database, the table's, which the spool does not hold.
        paused = try daemonStatus.map { $0.paused } ?? Self.nonEmpty(directory.pausedScopes())
    }
}
