import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupStore
import LineupTesting
import Logging
import Testing

/// A daemon running in-process over a temporary spool, store, input and output directory.
///
/// The flush interval is an hour, and the daemon does not flush when idle nor past a number of
/// finished jobs, unless a test says otherwise, so that tests flush on demand
/// (``JobDaemon/flush()``) and know exactly which flush acknowledges what.
struct DaemonHarness {
    let root: URL
    let spool: SpoolDirectory
    let configuration: DaemonConfiguration
    let daemon: JobDaemon
    let latch: Latch
    let running: Latch

    init(
        root existingRoot: URL? = nil,
        latch: Latch = Latch(),
        running: Latch = Latch(),
        hooks: JobDaemon.Hooks = JobDaemon.Hooks(randomJitter: { 0 }),
        registry: JobRegistry? = nil,
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) throws {
        let root =
            existingRoot
            ?? FileManager.default.temporaryDirectory.appending(path: "lineup-jobs-tests-\(UUID().uuidString)")
        for directory in ["input", "output"] {
            try FileManager.default.createDirectory(at: root.appending(path: directory), withIntermediateDirectories: true)
        }
        var configuration = DaemonConfiguration(
            storeURL: root.appending(path: "store.sqlite"), spoolURL: root.appending(path: "spool"),
            inputDirectory: root.appending(path: "input"), outputDirectory: root.appending(path: "output"))
        configuration.maxConcurrentJobs = 2
        configuration.flushInterval = .seconds(3600)
        configuration.flushesWhenIdle = false
        configuration.flushJobLimit = 0
        configuration.rescanInterval = .milliseconds(20)
        configuration.statusInterval = .seconds(3600)
        configuration.gracePeriod = .seconds(30)
        configuration.cancellationTimeout = .seconds(30)
        configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
        configuration.spoolDurability = .none
        configuration.logLevel = .warning
        configure(&configuration)
        self.root = root
        self.configuration = configuration
        self.latch = latch
        self.running = running
        self.spool = try SpoolDirectory(root: configuration.spoolURL, durability: .none)
        self.daemon = JobDaemon(
            configuration: configuration, registry: registry ?? testRegistry(latch: latch, running: running), model: testModel,
            logger: Logger(label: "lineup.jobs.tests"), database: .postgres, hooks: hooks)
    }

    /// Starts the daemon; returns its events (from before the start) and the running task.
    func start() async throws -> (EventLog, Task<Void, any Error>) {
        var events = EventLog(daemon.events())
        let task = Task { try await daemon.run() }
        _ = try await events.next { if case .started = $0 { true } else { false } }
        return (events, task)
    }

    /// Readies a flush that fails: a job saves a row labelled `old` and is flushed; a second job
    /// relabels the row and waits for its flush; then someone else saves a newer version of the
    /// row straight to disk, so that the next flush's main → writer step conflicts (merge policy
    /// `.error`). Returns the relabelling job.
    @discardableResult
    func prepareConflictingFlush(_ events: inout EventLog) async throws -> SpoolEntry {
        let seed = try enqueue(["kind": "insert-rows", "count": 1, "label": "old"])
        try await events.finished(seed.name)
        try await daemon.flush()
        let relabel = try enqueue(["kind": "relabel", "from": "old", "to": "new"])
        try await events.finished(relabel.name)
        let writer = try container.writerContext
        try writer.performAndWait {
            let row = try #require(try writer.fetch(FetchRequest<TestRow>()).first)
            row.value = 99
            try writer.save()
        }
        return relabel
    }

    /// Enqueues a job file made of `fields`.
    @discardableResult
    func enqueue(_ fields: [String: JSONValue]) throws -> SpoolEntry {
        var parameters = fields
        let kind = parameters.removeValue(forKey: "kind")?.stringValue ?? "?"
        let id = parameters.removeValue(forKey: "id")?.stringValue
        let after = parameters.removeValue(forKey: "after").flatMap { value -> [String]? in
            guard case let .array(items) = value else { return nil }
            return items.compactMap(\.stringValue)
        } ?? []
        let maxAttempts = parameters.removeValue(forKey: "maxAttempts")?.integerValue
        let baseDelay = parameters.removeValue(forKey: "baseDelay")?.doubleValue.map(Duration.seconds)
        let timeout = parameters.removeValue(forKey: "timeout")?.doubleValue.map(Duration.seconds)
        return try spool.enqueue(
            JobFile(kind: kind, id: id, after: after, maxAttempts: maxAttempts, baseDelay: baseDelay, timeout: timeout,
                parameters: parameters))
    }

    /// Enqueues raw bytes (for malformed job files).
    @discardableResult
    func enqueue(raw: String) throws -> SpoolEntry {
        try spool.enqueue(contents: Data(raw.utf8))
    }

    /// The running daemon's container.
    var container: PersistentContainer {
        get throws { try #require(daemon.container) }
    }

    /// Rows of the test entity on disk (committed data only).
    func rowsOnDisk() throws -> Int {
        try container.rowCount(of: "TestRow")
    }

    /// Rows on disk, read through a separate store opened on the file (after the daemon
    /// stopped and closed its own).
    func rowsOnDiskAfterStop() throws -> Int {
        let store = try SQLiteStore(url: configuration.storeURL, model: testModel, logger: Logger(label: "reader"))
        defer { try? store.close() }
        return try store.rowCount(of: "TestRow")
    }

    /// Whether the main context holds unsaved changes.
    func mainContextHasChanges() throws -> Bool {
        let main = try container.mainContext
        return main.performAndWait { main.hasChanges }
    }

    func stop(_ task: Task<Void, any Error>) async throws {
        daemon.requestShutdown()
        try await task.value
    }

    /// Removes the test's directory. A test that threw half-way has not stopped its daemon:
    /// it is asked to stop first, so that it does not go on polling a spool that is gone (and
    /// bury the test's failure under a log line per poll).
    func removeFiles() {
        daemon.requestShutdown()
        try? FileManager.default.removeItem(at: root)
    }

    func failureReport(_ entry: SpoolEntry) throws -> JobFailureReport {
        let failed = try #require(try spool.entries(.failed).first { $0.name == entry.name })
        return try spool.failureReport(for: failed)
    }

    func resultReport(_ entry: SpoolEntry) throws -> JobResultReport {
        let done = try #require(try spool.entries(.done).first { $0.name == entry.name })
        return try spool.resultReport(for: done)
    }
}

/// The daemon's events, read in order by one test.
///
/// The waits for one job's event (``finished(_:)``, ``failed(_:)``, …) also find it among the
/// events read already: the events of independent jobs come in no set order (two jobs run side
/// by side), and a test that waits for one and then the other must not miss the second because
/// it came first.
struct EventLog {
    private var iterator: DaemonEvents.Iterator
    /// Every event read so far.
    private(set) var seen: [DaemonEvent] = []

    init(_ stream: DaemonEvents) {
        iterator = stream.makeAsyncIterator()
    }

    struct StreamEnded: Error, CustomStringConvertible {
        let seen: [DaemonEvent]
        var description: String { "the event stream ended first; events: \(seen)" }
    }

    /// Reads events until one matches.
    @discardableResult
    mutating func next(_ matches: (DaemonEvent) -> Bool) async throws -> DaemonEvent {
        while let event = await iterator.next() {
            seen.append(event)
            if matches(event) { return event }
        }
        throw StreamEnded(seen: seen)
    }

    /// The first event read already that matches, or else the next one that does.
    @discardableResult
    private mutating func find(_ matches: (DaemonEvent) -> Bool) async throws -> DaemonEvent {
        if let event = seen.first(where: matches) {
            return event
        }
        return try await next(matches)
    }

    /// Reads events until the job named `name` is acknowledged; returns its report.
    mutating func acknowledged(_ name: String) async throws -> JobResultReport {
        let event = try await find {
            if case let .jobAcknowledged(info, _) = $0 { return info.name == name }
            return false
        }
        guard case let .jobAcknowledged(_, report) = event else { preconditionFailure() }
        return report
    }

    /// Reads events until the job named `name` has failed for good; returns its report.
    mutating func failed(_ name: String) async throws -> JobFailureReport {
        let event = try await find {
            if case let .jobFailed(info, _) = $0 { return info.name == name }
            return false
        }
        guard case let .jobFailed(_, report) = event else { preconditionFailure() }
        return report
    }

    /// Reads events until the job named `name` finished an attempt (awaiting the flush).
    mutating func finished(_ name: String) async throws {
        try await find {
            if case let .jobFinished(info) = $0 { return info.name == name }
            return false
        }
    }

    /// Reads events until the job named `name` finished an attempt or failed for good.
    mutating func ended(_ name: String) async throws {
        try await find {
            switch $0 {
            case let .jobFinished(info), let .jobFailed(info, _): info.name == name
            default: false
            }
        }
    }

    /// Reads events until the job named `name` started an attempt.
    mutating func started(_ name: String) async throws {
        try await find {
            if case let .jobStarted(info) = $0 { return info.name == name }
            return false
        }
    }

    /// Reads events until the job named `name` was returned to `new/`.
    mutating func released(_ name: String) async throws {
        try await find {
            if case let .jobReleased(info) = $0 { return info.name == name }
            return false
        }
    }

    /// The flushes seen so far.
    var flushes: [FlushSummary] {
        seen.compactMap { if case let .flushed(summary) = $0 { summary } else { nil } }
    }

    /// Reads the remaining events until the stream ends (the daemon stopped).
    mutating func drain() async {
        while let event = await iterator.next() {
            seen.append(event)
        }
    }
}

extension JobDaemon.Hooks {
    /// The harness's hooks, with the daemon's schedules (retries, time limits, rate-limit
    /// periods, the wait for unknown `after` ids) on `clock`, which the test moves.
    static func harness(on clock: TestClock) -> Self {
        var hooks = Self(randomJitter: { 0 })
        hooks.clock = clock.daemonClock
        return hooks
    }
}
