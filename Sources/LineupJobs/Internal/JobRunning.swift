import LineupSpool

/// The runner as the daemon drives it, whatever storage holds its jobs: the daemon, its services
/// and its reloads reach the runner (a ``JobRunner`` of a spool or of a database) only through
/// this.
protocol JobRunning: AnyObject, Sendable {
    /// Claims what is due, soon (a hint: files arrived, or a notification came).
    func claimAvailable()
    /// Claims what is due, and returns once that claim has run.
    func claimAvailableNow() async
    /// Acts on the operators' requests to cancel running jobs.
    func checkCancellationRequests() async
    /// Told after each child save: the main context now holds `rows` unsaved rows.
    func mainContextHolds(_ rows: Int)
    /// Takes a reloaded configuration's settings.
    func apply(_ settings: RunnerSettings)
    /// Flushes now and acknowledges what the flush carried.
    func flush(_ reason: FlushSummary.Reason) async throws -> FlushSummary
    /// Asks the main context for its unsaved rows and writes `status.json`.
    func refreshStatus() async
    /// The status as `status.json` has it now.
    func status() async -> DaemonStatus
    /// Pauses (`paused` true) or resumes the jobs of `scope`; returns whether that changed
    /// anything.
    func setPaused(_ scope: JobScope, _ paused: Bool) async throws -> Bool
    /// The first step of shutdown: no more claims, starts or retries.
    func stopStarting() async
    /// The rest of shutdown: the grace period, cancellation, the final flush, the releases.
    func finishShutdown(gracePeriod: Duration, cancellationTimeout: Duration) async -> RunnerShutdownOutcome
}

extension JobRunner: JobRunning {}
