public import LineupStore
public import Logging

extension JobDaemon {
    /// Customization points.
    public struct Hooks: Sendable {
        /// Runs once after the store is opened, before jobs are claimed (e.g. to seed a new
        /// store). An error stops the start with ``DaemonError/Code/storePreparationFailed``.
        public var prepareStore: (@Sendable (PersistentContainer, Logger) throws -> Void)?
        /// Makes the configuration to reload from on SIGHUP (``reload()``); nil re-reads
        /// ``DaemonConfiguration/configurationFile`` when there is one. `lineupd` can reopen its
        /// log files here too, and re-apply its command-line options over the file.
        public var reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)?
        /// A uniform random number in `0..<1` for the retry jitter; tests fix it.
        public var randomJitter: @Sendable () -> Double
        /// A supervisor's watchdog to feed (systemd's `WatchdogSec=`, see ``SystemdNotifier``).
        public var watchdog: Watchdog?
        /// The clock of the jobs' schedules; LineupTesting's `TestClock` replaces the system's.
        package var clock = DaemonClock.system
        /// Whether the runner may claim jobs now. Always, in a daemon; LineupTesting's daemon
        /// claims only while its test drains, so that what a test enqueues stays to be looked at.
        package var mayClaim: @Sendable () -> Bool = { true }

        /// Makes the hooks; by default none, with a uniformly random jitter and no watchdog.
        public init(
            prepareStore: (@Sendable (PersistentContainer, Logger) throws -> Void)? = nil,
            reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)? = nil,
            randomJitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
            watchdog: Watchdog? = nil
        ) {
            self.prepareStore = prepareStore
            self.reloadConfiguration = reloadConfiguration
            self.randomJitter = randomJitter
            self.watchdog = watchdog
        }
    }

    /// A keep-alive that a supervisor expects within `timeout`, or it restarts the daemon.
    ///
    /// The flush loop feeds it, at half the timeout as systemd advises, between its flushes: a
    /// flush that never returns (a wedged disk) stops the feeding, so that the supervisor
    /// restarts a daemon that could acknowledge nothing.
    public struct Watchdog: Sendable {
        /// How long the supervisor waits for a feed before it restarts the daemon (systemd's
        /// `WatchdogSec=`); fed every half of it.
        public var timeout: Duration
        /// Tells the supervisor the daemon is alive (systemd's `WATCHDOG=1`); called from the flush
        /// loop.
        public var feed: @Sendable () -> Void

        /// Makes a watchdog that expects `feed` within `timeout`.
        public init(timeout: Duration, feed: @escaping @Sendable () -> Void) {
            self.timeout = timeout
            self.feed = feed
        }
    }
}
