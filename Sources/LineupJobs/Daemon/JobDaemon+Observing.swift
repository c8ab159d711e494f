import Foundation
public import LineupSpool
public import LineupStore
import LineupLocking
import Logging

/// What a daemon shows of itself while it runs, and the controls it takes.
extension JobDaemon {
    /// The configuration in effect (reloads change it).
    public var configuration: DaemonConfiguration {
        state.withLock { $0.configuration }
    }

    /// The daemon's logger, at the level in effect.
    var logger: Logger {
        state.withLock { $0.logger }
    }

    /// The stack, once ``run()`` has opened it. After ``run()`` returns its store is closed.
    public var container: PersistentContainer? {
        state.withLock { $0.container }
    }

    /// A new stream of everything the daemon does from now on; it finishes when the daemon
    /// stops. Subscribe before ``run()`` to see every event.
    public func events() -> DaemonEvents {
        broadcaster.subscribe()
    }

    /// Has the runner claim what is due now, and returns once it has: for a test that has moved
    /// its clock and reads the status next (LineupTesting).
    package func claimAvailableJobs() async {
        await state.withLock { $0.runner }?.claimAvailableNow()
    }

    /// Pauses the jobs of `scope` where every daemon of these jobs reads it (the spool's
    /// `paused.json`, the database's `lineup_paused`): they stay queued, unclaimed, across
    /// restarts, until ``resume(_:)``; jobs running go on. Returns false when it was paused
    /// already.
    ///
    /// - Throws: ``DaemonError/Code/notRunning`` when the daemon is not running (pause the
    ///   spool, `SpoolDirectory.pause(_:)`, or the database, `JobDatabase.pause(_:)`, then).
    @discardableResult
    public func pause(_ scope: JobScope) async throws -> Bool {
        try await runnerForControl().setPaused(scope, true)
    }

    /// Resumes the jobs of `scope` (see ``pause(_:)``); returns false when it was not paused.
    @discardableResult
    public func resume(_ scope: JobScope) async throws -> Bool {
        try await runnerForControl().setPaused(scope, false)
    }

    private func runnerForControl() throws -> any JobRunning {
        guard let runner = state.withLock({ $0.runner }) else {
            throw DaemonError(.notRunning, path: configuration.spoolURL.path, "the daemon is not running")
        }
        return runner
    }

    /// What `status.json` would say now; nil when the daemon is not running.
    public func status() async -> DaemonStatus? {
        guard let runner = state.withLock({ $0.runner }) else { return nil }
        return await runner.status()
    }
}
