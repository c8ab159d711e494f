/// How many claimed jobs the runner holds at most, waiting in its queues or running: the
/// configured ``DaemonConfiguration/claimWindow``, or, where none is configured, a window that
/// follows the jobs.
///
/// A claim from a database is a round trip, and the runner asks for more once half its window is
/// free (``JobStorage/claimRoundTrip``). The jobs still in hand then must outlast the round trip,
/// or the daemon idles while it waits: for jobs of a millisecond or less, a window of 8 held a
/// daemon to about 4 jobs a round trip. Holding many more claimed jobs costs other daemons the
/// jobs this one sits on, which matters for long jobs only: 32 claimed one-minute jobs on a
/// daemon running 2 keep them from idle daemons for a quarter of an hour. So the window is
/// sized by time rather than by count: it holds the jobs running, plus the jobs this daemon
/// starts in two round trips, twice over (claims come at half the window). Slow jobs keep the
/// least window; jobs that take less than a round trip widen it, up to ``most``.
///
/// A value type the runner keeps on its coordinator.
struct ClaimWindow {
    /// The window when configured, and the least one otherwise (``DaemonConfiguration/claimWindowRange``).
    let least: Int
    /// The widest window: the configured one, or ``widening`` times the least.
    let most: Int
    /// The jobs that run at once, which the window always covers.
    let concurrency: Int

    /// Jobs claimed a second, smoothed over the last few ``sampleInterval``s; 0 before the first.
    private(set) var jobsPerSecond: Double = 0
    private var sampleStart: ContinuousClock.Instant?
    private var claimedInSample = 0

    /// How long jobs are counted before the rate is updated: long enough to hold many claims of
    /// fast jobs, short enough that a burst widens the window within a fraction of a second.
    static let sampleInterval = Duration.milliseconds(100)
    /// How far a window that is not configured may widen beyond its least.
    static let widening = 16

    init(range: ClosedRange<Int>, concurrency: Int) {
        least = range.lowerBound
        most = range.upperBound
        self.concurrency = concurrency
    }

    /// The window of `configuration`, with no jobs claimed yet.
    init(_ configuration: DaemonConfiguration) {
        self.init(range: configuration.claimWindowRange, concurrency: configuration.totalConcurrency)
    }

    /// Counts a job claimed at `now`.
    mutating func noteClaimed(at now: ContinuousClock.Instant) {
        guard least < most else { return }
        guard let start = sampleStart else {
            sampleStart = now
            claimedInSample = 1
            return
        }
        claimedInSample += 1
        let elapsed = now - start
        guard elapsed >= Self.sampleInterval else { return }
        let rate = Double(claimedInSample) / DaemonConfiguration.seconds(elapsed)
        jobsPerSecond = jobsPerSecond == 0 ? rate : (jobsPerSecond + rate) / 2
        sampleStart = now
        claimedInSample = 0
    }

    /// The window at `now`, for claims that take `roundTrip` (nil: no round trip, a claim a
    /// job, as from a spool: the least window).
    func size(roundTrip: Duration?, at now: ContinuousClock.Instant) -> Int {
        guard least < most, let roundTrip, roundTrip > .zero else { return least }
        let startedPerRoundTrip = recentJobsPerSecond(at: now) * DaemonConfiguration.seconds(roundTrip)
        let wanted = 2 * (Double(concurrency) + 2 * startedPerRoundTrip)
        guard wanted.isFinite else { return most }
        return min(most, max(least, Int(wanted.rounded(.up))))
    }

    /// The smoothed rate, unless the sample under way already shows fewer claims: after a pause,
    /// the rate of the last burst does not size the window of what comes next.
    private func recentJobsPerSecond(at now: ContinuousClock.Instant) -> Double {
        guard let start = sampleStart else { return 0 }
        let elapsed = now - start
        guard elapsed > Self.sampleInterval else { return jobsPerSecond }
        return min(jobsPerSecond, Double(claimedInSample + 1) / DaemonConfiguration.seconds(elapsed))
    }
}
