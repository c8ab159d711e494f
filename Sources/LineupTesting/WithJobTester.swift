import Foundation
public import LineupJobs
public import LineupStore
public import Logging
import LineupLocking
import LineupSpool

/// Runs `body` with a ``JobTester``: a daemon with `model` and `registry` over a new temporary
/// directory, started before `body` and stopped (gracefully, with a final flush) after it; the
/// directory is removed then.
///
/// - Parameters:
///   - model: the model of the tester's store.
///   - registry: the job kinds the daemon runs.
///   - logger: the daemon's logger; its level is set from the configuration (`warning` unless
///     `configure` changes it).
///   - configure: changes to the daemon's configuration (retry policy, time limits, cron,
///     queues…). The tester's defaults: flushes only when the test drains or asks, a spool that
///     does not fsync, logs at `warning`.
///   - clock: the clock the test moves; by default one that starts now.
///   - body: the test, given the tester while the daemon runs; what it returns,
///     `withJobTester` returns.
/// - Throws: what `body` throws; otherwise what the daemon's start or stop threw.
public func withJobTester<Result: Sendable>(
    model: ManagedObjectModel, registry: JobRegistry, logger: Logger = Logger(label: "lineup.testing"),
    clock: TestClock = TestClock(), configure: (inout DaemonConfiguration) -> Void = { _ in },
    _ body: (JobTester) async throws -> Result
) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory.appending(path: "lineup-testing-\(UUID().uuidString)")
    for name in ["input", "output"] {
        try FileManager.default.createDirectory(at: directory.appending(path: name), withIntermediateDirectories: true)
    }
    defer { try? FileManager.default.removeItem(at: directory) }

    var configuration = DaemonConfiguration(
        storeURL: directory.appending(path: "store.sqlite"), spoolURL: directory.appending(path: "spool"),
        inputDirectory: directory.appending(path: "input"), outputDirectory: directory.appending(path: "output"))
    // The test decides when to flush: drain() flushes, and so does the end.
    configuration.flushInterval = .seconds(86_400)
    configuration.flushesWhenIdle = false
    configuration.flushJobLimit = 0
    configuration.spoolDurability = .none
    configuration.logLevel = .warning
    configure(&configuration)
    // The tester enqueues the recurring jobs itself, on its clock (see JobTester.advance(by:)):
    // the daemon's own cron service wakes on the system's minutes.
    let cron = configuration.cron
    configuration.cron = []

    var hooks = JobDaemon.Hooks(randomJitter: { 1 })
    hooks.clock = clock.daemonClock
    let draining = Locked(false)
    hooks.mayClaim = { draining.withLock { $0 } }
    let daemon = JobDaemon(configuration: configuration, registry: registry, model: model, logger: logger, hooks: hooks)
    let spool = try SpoolDirectory(root: configuration.spoolURL, durability: configuration.spoolDurability, now: clock.daemonClock.now)
    let activity = ActivitySignal()
    let events = daemon.events()
    let watcher = Task {
        for await event in events {
            if case .started = event {
                activity.started()
            }
            activity.signal()
        }
        activity.finish()
    }
    let running = Task { try await daemon.run() }
    guard await activity.waitUntilStarted() else {
        // The daemon stopped before it started: its run() says why.
        try await running.value
        preconditionFailure("the daemon stopped without starting and without an error")
    }
    let tester = JobTester(
        clock: clock, daemon: daemon, spool: spool, directory: directory, cron: cron, draining: draining, activity: activity,
        logger: logger)
    tester.enqueueDueRecurringJobs()
    let result: Swift.Result<Result, any Error>
    do {
        result = .success(try await body(tester))
    } catch {
        result = .failure(error)
    }
    daemon.requestShutdown()
    let stopped = await running.result
    _ = await watcher.result
    if case .failure = result {
        return try result.get()
    }
    try stopped.get()
    return try result.get()
}
