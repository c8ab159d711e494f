import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import LineupLocking

/// What one run of the real daemon over a spool of no-op jobs measured.
struct DaemonSpoolResult {
    let jobs: Int
    /// From the producer's first `enqueue` call until the last job's file was in `done/` (the
    /// daemon announced its acknowledgement).
    let elapsed: UInt64
    /// From the first `enqueue` call until the last one returned.
    let producerElapsed: UInt64
    /// From the first `enqueue` call until the last job finished running (its changes in the
    /// main context, waiting for a flush).
    let lastFinished: UInt64
    /// For each job: from the producer's `enqueue` call to the task starting to run.
    let pickups: [UInt64]
    /// For each job: how long the producer's `enqueue` call took.
    let enqueueCalls: [UInt64]
    /// Flushes that acknowledged jobs: when each one ended (from the first `enqueue` call) and
    /// how many jobs it acknowledged.
    let acknowledgingFlushes: [(endedAfter: UInt64, jobs: Int)]
    /// CPU time of the whole process (producer, daemon, event reader) during the run.
    let cpuTime: UInt64

    var jobsPerSecond: Double { Double(jobs) / MonotonicClock.seconds(elapsed) }
}

/// Runs the real `JobDaemon` in this process, over a new spool and store, with a producer thread
/// that enqueues `jobs` no-op jobs through `SpoolDirectory.enqueue` (what `lineup enqueue`
/// does), either flat out or at a steady rate, and waits until every job is acknowledged.
struct DaemonSpoolRun {
    enum Pace {
        /// As fast as the producer can write them.
        case flatOut
        /// An open loop: job i is enqueued at start + i / rate, whether or not earlier ones ran.
        case steady(perSecond: Int)
        /// Every job in one bulk file (`SpoolDirectory.enqueueBulk`, what `lineup enqueue --from`
        /// does), enqueued with one call.
        case bulk
    }

    let jobs: Int
    let durability: SpoolDirectory.Durability
    let pace: Pace
    let flushInterval: Duration
    let flushesWhenIdle: Bool
    let directory: URL

    /// No acknowledgement and no job start for this long means the daemon is stuck.
    private static let stallLimit: UInt64 = 120_000_000_000

    func run() throws -> DaemonSpoolResult {
        let spoolURL = directory.appendingPathComponent("spool", isDirectory: true)
        let configuration = try makeConfiguration(spoolURL: spoolURL)
        let recorder = PickupRecorder(capacity: jobs)
        let daemon = JobDaemon(
            configuration: configuration, registry: NoOpJobTask.registry(recorder: recorder),
            model: ManagedObjectModel(BenchEntry.self), logger: BenchSupport.logger())
        let watch = DaemonWatch(expected: jobs)
        let events = daemon.events()
        Task {
            for await event in events { watch.handle(event) }
            watch.streamEnded()
        }
        let runError = Locked<String?>(nil)
        let runFinished = DispatchSemaphore(value: 0)
        Task {
            do {
                try await daemon.run()
            } catch {
                runError.withLock { $0 = "\(error)" }
            }
            runFinished.signal()
        }
        var stopped = false
        func stop() {
            guard !stopped else { return }
            stopped = true
            daemon.requestShutdown()
            if runFinished.wait(timeout: .now() + 60) == .timedOut {
                progress("spool: the daemon did not stop within 60 s of the shutdown request")
            }
        }
        defer { stop() }
        guard watch.waitUntilStarted() else {
            throw BenchError(.lineup, "the daemon did not start: \(runError.withLock({ $0 }) ?? "its event stream ended")")
        }

        let producer = Producer(
            spool: try SpoolDirectory(root: spoolURL, durability: durability), jobs: jobs, pace: pace)
        let cpuAtStart = ProcessCPU.usedNanoseconds()
        producer.start()
        try watch.waitUntilAllAcknowledged(
            stallLimit: Self.stallLimit, progress: { recorder.latencies.count },
            producerFailure: { producer.failure })
        let cpuTime = ProcessCPU.usedNanoseconds() - cpuAtStart
        let produced = producer.waitUntilDone()
        if let failure = producer.failure { throw BenchError(.lineup, "enqueue failed: \(failure)") }
        // Stopped before the figures are read, so that every event (the last flush's too) is in.
        stop()
        if let error = runError.withLock({ $0 }) { throw BenchError(.lineup, "the daemon's run failed: \(error)") }
        watch.waitUntilStreamEnded()

        let state = watch.state
        let counts = try SpoolDirectory(root: spoolURL, durability: .none).counts()
        // A bulk file is one file in done/, with a line of its results for each job.
        let files = producer.isBulk ? 1 : jobs
        guard counts.done == files, counts.failed == 0, counts.queued == 0, counts.running == 0 else {
            throw BenchError(
                .verification,
                "\(spoolURL.path): expected \(files) files in done/ and none elsewhere, found \(counts.done) done, \(counts.failed) failed, \(counts.queued) in new/, \(counts.running) in active/")
        }
        if producer.isBulk {
            let done = spoolURL.appendingPathComponent("done", isDirectory: true)
            let results = try FileManager.default.contentsOfDirectory(atPath: done.path).filter { $0.hasSuffix(".results.jsonl") }
            let lines = try results.first.map { name in
                try Data(contentsOf: done.appendingPathComponent(name)).withUnsafeBytes { bytes in
                    bytes.reduce(0) { count, byte in byte == UInt8(ascii: "\n") ? count + 1 : count }
                }
            }
            guard lines == jobs else {
                throw BenchError(.verification, "\(done.path): the bulk's results hold \(lines ?? 0) lines for \(jobs) jobs")
            }
        }
        let pickups = recorder.latencies
        guard pickups.count == jobs else {
            throw BenchError(.verification, "\(jobs) jobs were acknowledged but \(pickups.count) no-op tasks ran")
        }
        return DaemonSpoolResult(
            jobs: jobs, elapsed: state.lastAcknowledged - produced.firstCall,
            producerElapsed: produced.lastReturn - produced.firstCall,
            lastFinished: state.lastFinished - produced.firstCall, pickups: pickups,
            enqueueCalls: produced.callDurations,
            acknowledgingFlushes: state.acknowledgingFlushes.map { ($0.endedAt - produced.firstCall, $0.jobs) },
            cpuTime: cpuTime)
    }

    private func makeConfiguration(spoolURL: URL) throws -> DaemonConfiguration {
        let input = try BenchSupport.makeDirectory(directory.appendingPathComponent("input", isDirectory: true))
        let output = try BenchSupport.makeDirectory(directory.appendingPathComponent("output", isDirectory: true))
        var configuration = DaemonConfiguration(
            storeURL: directory.appendingPathComponent("store.sqlite"), spoolURL: spoolURL, inputDirectory: input,
            outputDirectory: output)
        configuration.spoolDurability = durability
        configuration.flushInterval = flushInterval
        configuration.flushesWhenIdle = flushesWhenIdle
        configuration.logLevel = .warning
        return configuration
    }
}

/// The producer thread of a ``DaemonSpoolRun``.
private final class Producer: Sendable {
    struct Produced: Sendable {
        var firstCall: UInt64 = 0
        var lastReturn: UInt64 = 0
        var callDurations: [UInt64] = []
        var failure: String?
    }

    private let spool: SpoolDirectory
    private let jobs: Int
    private let interval: UInt64?
    let isBulk: Bool
    private let state = Locked(Produced())
    private let done = DispatchSemaphore(value: 0)

    init(spool: SpoolDirectory, jobs: Int, pace: DaemonSpoolRun.Pace) {
        self.spool = spool
        self.jobs = jobs
        switch pace {
        case .flatOut, .bulk: interval = nil
        case let .steady(perSecond): interval = 1_000_000_000 / UInt64(max(1, perSecond))
        }
        if case .bulk = pace { isBulk = true } else { isBulk = false }
    }

    var failure: String? { state.withLock({ $0 }).failure }

    func start() {
        let thread = Thread { [self] in
            produce()
            done.signal()
        }
        thread.name = "lineup-bench.producer"
        thread.start()
    }

    func waitUntilDone() -> Produced {
        done.wait()
        done.signal()
        return state.withLock({ $0 })
    }

    private func produce() {
        if isBulk {
            produceBulk()
            return
        }
        var durations: [UInt64] = []
        durations.reserveCapacity(jobs)
        let firstCall = MonotonicClock.now()
        var lastReturn = firstCall
        var failure: String?
        for index in 0..<jobs {
            if let interval {
                let deadline = firstCall + UInt64(index) * interval
                let now = MonotonicClock.now()
                if deadline > now {
                    var pause = timespec(tv_sec: Int(deadline - now) / 1_000_000_000, tv_nsec: Int(deadline - now) % 1_000_000_000)
                    nanosleep(&pause, nil)
                }
            }
            let called = MonotonicClock.now()
            do {
                let job = try JobFile(kind: NoOpJobTask.kind, parameters: ["enqueuedAt": .integer(Int(called))])
                try spool.enqueue(job)
            } catch {
                failure = "job \(index + 1): \(error)"
                break
            }
            lastReturn = MonotonicClock.now()
            durations.append(lastReturn - called)
        }
        state.withLock { state in
            state = Produced(firstCall: firstCall, lastReturn: lastReturn, callDurations: durations, failure: failure)
        }
    }
}

extension Producer {
    /// One bulk file with every job, written with one call; the jobs' enqueue time is that call's.
    private func produceBulk() {
        let firstCall = MonotonicClock.now()
        var failure: String?
        do {
            let job = try JobFile(kind: NoOpJobTask.kind, parameters: ["enqueuedAt": .integer(Int(firstCall))])
            try spool.enqueueBulk([JobFile](repeating: job, count: jobs))
        } catch {
            failure = "the bulk file: \(error)"
        }
        let lastReturn = MonotonicClock.now()
        state.withLock { state in
            state = Produced(firstCall: firstCall, lastReturn: lastReturn, callDurations: [lastReturn - firstCall], failure: failure)
        }
    }
}

/// Follows the daemon's event stream: start, finished and acknowledged jobs, failures, flushes.
private final class DaemonWatch: Sendable {
    struct State: Sendable {
        var started = false
        var streamEnded = false
        var finished = 0
        var acknowledged = 0
        var lastFinished: UInt64 = 0
        var lastAcknowledged: UInt64 = 0
        var acknowledgingFlushes: [(endedAt: UInt64, jobs: Int)] = []
        var failures: [String] = []
    }

    private let expected: Int
    private let box = Locked(State())
    private let changed = DispatchSemaphore(value: 0)

    init(expected: Int) {
        self.expected = expected
    }

    var state: State { box.withLock({ $0 }) }

    func handle(_ event: DaemonEvent) {
        let wake: Bool = box.withLock { state in
            switch event {
            case .started:
                state.started = true
                return true
            case .jobFinished:
                state.finished += 1
                if state.finished == expected { state.lastFinished = MonotonicClock.now() }
                return false
            case .jobAcknowledged:
                state.acknowledged += 1
                if state.acknowledged == expected {
                    state.lastAcknowledged = MonotonicClock.now()
                    return true
                }
                return false
            case let .flushed(summary):
                if !summary.acknowledged.isEmpty {
                    state.acknowledgingFlushes.append((MonotonicClock.now(), summary.acknowledged.count))
                }
                return false
            case let .jobFailed(info, report):
                state.failures.append("\(info): \(report.reason)")
                return true
            case let .flushFailed(_, error):
                state.failures.append("a flush failed: \(error)")
                return true
            default:
                return false
            }
        }
        if wake { changed.signal() }
    }

    func streamEnded() {
        box.withLock { $0.streamEnded = true }
        changed.signal()
    }

    func waitUntilStreamEnded() {
        while !box.withLock({ $0 }).streamEnded {
            _ = changed.wait(timeout: .now() + 1)
        }
    }

    /// False when the stream ended before the daemon started.
    func waitUntilStarted() -> Bool {
        while true {
            let state = box.withLock({ $0 })
            if state.started { return true }
            if state.streamEnded { return false }
            _ = changed.wait(timeout: .now() + 1)
        }
    }

    func waitUntilAllAcknowledged(
        stallLimit: UInt64, progress: () -> Int, producerFailure: () -> String?
    ) throws {
        var lastProgress = (acknowledged: -1, started: -1)
        var lastProgressAt = MonotonicClock.now()
        while true {
            let state = box.withLock({ $0 })
            if state.acknowledged >= expected { return }
            if let failure = state.failures.first {
                throw BenchError(.lineup, "the daemon failed a no-op job: \(failure)")
            }
            if state.streamEnded {
                throw BenchError(.lineup, "the daemon stopped after acknowledging \(state.acknowledged) of \(expected) jobs")
            }
            if let failure = producerFailure() {
                throw BenchError(.lineup, "enqueue failed: \(failure)")
            }
            let now = MonotonicClock.now()
            let current = (state.acknowledged, progress())
            if current != lastProgress {
                lastProgress = current
                lastProgressAt = now
            } else if now - lastProgressAt > stallLimit {
                throw BenchError(
                    .lineup,
                    "no job started or was acknowledged for \(stallLimit / 1_000_000_000) s (\(state.acknowledged) of \(expected) acknowledged)")
            }
            _ = changed.wait(timeout: .now() + 1)
        }
    }
}
