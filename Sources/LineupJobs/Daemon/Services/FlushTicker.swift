import ServiceLifecycle

/// Flushes every flush interval, and feeds the supervisor's watchdog between flushes.
///
/// The ticks keep their pace whatever a flush costs: the next one is due an interval after the
/// last one was due, not after it ended, so a large group to file does not push every later
/// flush back (one that ends late is followed at once). The watchdog (see
/// ``JobDaemon/Watchdog``) is fed only while flushes return: a flush that never returns (a
/// wedged disk) stops the feeding, so that the supervisor restarts a daemon that could
/// acknowledge nothing.
struct FlushTicker: Service, CustomStringConvertible {
    /// One flush of the runner, for the interval's reason.
    let flush: @Sendable () async -> Void
    let watchdog: JobDaemon.Watchdog?
    /// Read at each tick, so that a reload changes it.
    let interval: @Sendable () -> Duration

    var description: String { "flush ticker" }

    func run() async {
        let clock = ContinuousClock()
        var flushDue = clock.now.advanced(by: interval())
        var feedDue = clock.now
        while true {
            if let watchdog, clock.now >= feedDue {
                watchdog.feed()
                feedDue = clock.now.advanced(by: watchdog.timeout / 2)
            }
            let wakeUp = watchdog == nil ? flushDue : min(flushDue, feedDue)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(until: wakeUp, clock: clock) }
            } catch {
                return
            }
            guard clock.now >= flushDue else { continue }
            await flush()
            flushDue = max(flushDue.advanced(by: interval()), clock.now)
        }
    }
}
