import Dispatch
import Foundation
import LineupJobs
import LineupLocking
import LineupPostgres
import LineupSpool
import LineupStore
import Logging
import Metrics

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon of `lineup-bench postgres-jobs`, as a process of its own: the benchmark starts
/// this executable K times (`lineup-bench postgres-jobs-daemon URL ROOT [CLAIM_WINDOW]`), as a deployment
/// starts K `lineupd`, but with the no-op job kind that `lineupd` does not have.
///
/// It speaks to the benchmark on its standard output, a line an event:
///
///     ready                                   the daemon runs and listens
///     acknowledged N                          N of its jobs are done in the table so far
///     stopped acknowledged=N claims=C empty=E claim_p50_us=M claim_p99_us=P
///                                             after SIGTERM: its totals, and the claim
///                                             statements it ran (E found no job), with their
///                                             median and p99
enum BenchDaemonProcess {
    static let subcommand = "postgres-jobs-daemon"

    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2 || arguments.count == 3, let databaseURL = URL(string: arguments[0]) else {
            progress("usage: lineup-bench \(subcommand) DATABASE_URL ROOT [CLAIM_WINDOW]")
            return 2
        }
        let root = URL(fileURLWithPath: arguments[1], isDirectory: true)
        let metrics = CountingMetrics()
        MetricsSystem.bootstrap(metrics)
        var configuration = DaemonConfiguration(
            storeURL: root.appending(path: "unused.sqlite"), spoolURL: root.appending(path: "spool"), inputDirectory: root,
            outputDirectory: root)
        configuration.databaseURL = databaseURL
        configuration.spoolDurability = .none
        configuration.logLevel = .warning
        configuration.claimWindow = arguments.count == 3 ? Int(arguments[2]) : nil
        let daemon = JobDaemon(
            configuration: configuration, registry: NoOpJobTask.registry(recorder: PickupRecorder(capacity: 1)),
            model: ManagedObjectModel(BenchEntry.self), logger: BenchSupport.logger(), database: .postgres)
        let acknowledged = Locked(0)
        let events = daemon.events()
        Task {
            for await event in events {
                switch event {
                case .started: say("ready")
                case .jobAcknowledged: acknowledged.withLock { $0 += 1 }
                default: break
                }
            }
        }
        // The count, at most every 20 ms: a line a job would cost the daemon more than its job.
        let reporter = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lineup.bench.report"))
        let reported = Locked(0)
        reporter.schedule(deadline: .now(), repeating: .milliseconds(20))
        reporter.setEventHandler {
            let count = acknowledged.withLock { $0 }
            if reported.withLock({ previous in defer { previous = count }; return previous != count }) {
                say("acknowledged \(count)")
            }
        }
        reporter.resume()
        signal(SIGTERM, SIG_IGN)
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
        termination.setEventHandler { daemon.requestShutdown() }
        termination.resume()
        let stopped = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        Task {
            do { try await daemon.run() } catch { failure.withLock { $0 = "\(error)" } }
            stopped.signal()
        }
        // The main queue serves the signal source while this thread waits.
        DispatchQueue.global().async {
            stopped.wait()
            if let failure = failure.withLock({ $0 }) {
                progress("bench daemon \(getpid()): \(failure)")
                exit(1)
            }
            let claims = metrics.counter("lineup_database_claims_total")
            let empty = metrics.counter("lineup_database_claims_empty_total")
            // The first claim waited at the benchmark's start lock for as long as the daemons took
            // to start (the coordinator claims one statement at a time, so it is the first timed).
            let p50 = metrics.percentile(0.5, of: "lineup_database_claim_duration_seconds", skippingFirst: 1).map { $0 / 1_000 } ?? 0
            let p99 = metrics.percentile(0.99, of: "lineup_database_claim_duration_seconds", skippingFirst: 1).map { $0 / 1_000 } ?? 0
            say("stopped acknowledged=\(acknowledged.withLock { $0 }) claims=\(claims) empty=\(empty) claim_p50_us=\(p50) claim_p99_us=\(p99)")
            exit(0)
        }
        dispatchMain()
    }

    private static func say(_ line: String) {
        // One write a line: the benchmark reads lines, and a pipe keeps a write of this size whole.
        let data = Data((line + "\n").utf8)
        data.withUnsafeBytes { buffer in _ = write(STDOUT_FILENO, buffer.baseAddress, buffer.count) }
    }
}

/// A metrics backend that keeps the counters' totals and every timer's values, for a bench
/// daemon to report at its end. The other kinds of metric are not kept.
final class CountingMetrics: MetricsFactory, Sendable {
    private let counters = Locked<[String: CountingCounter]>([:])
    private let timers = Locked<[String: KeptTimer]>([:])

    func counter(_ label: String) -> Int64 {
        counters.withLock { $0[label] }?.total.withLock { $0 } ?? 0
    }

    /// The value at `fraction` (0.99: the 99th percentile) of a timer's nanoseconds, leaving out
    /// the first `skipped` it recorded; nil when it recorded no more.
    func percentile(_ fraction: Double, of label: String, skippingFirst skipped: Int = 0) -> Int64? {
        guard let values = timers.withLock({ $0[label] })?.values.withLock({ $0.dropFirst(skipped).sorted() }), !values.isEmpty else { return nil }
        return values[min(values.count - 1, Int(Double(values.count) * fraction))]
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counters.withLock { counters in
            if let counter = counters[label] { return counter }
            let counter = CountingCounter()
            counters[label] = counter
            return counter
        }
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        timers.withLock { timers in
            if let timer = timers[label] { return timer }
            let timer = KeptTimer()
            timers[label] = timer
            return timer
        }
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

final class CountingCounter: CounterHandler, Sendable {
    let total = Locked<Int64>(0)
    func increment(by amount: Int64) { total.withLock { $0 += amount } }
    func reset() { total.withLock { $0 = 0 } }
}

final class KeptTimer: TimerHandler, Sendable {
    let values = Locked<[Int64]>([])
    func recordNanoseconds(_ duration: Int64) { values.withLock { $0.append(duration) } }
}
