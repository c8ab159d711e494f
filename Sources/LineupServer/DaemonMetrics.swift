public import Foundation
public import LineupJobs
import LineupLocking
import LineupSpool
import Metrics

/// The daemon's metrics, through swift-metrics: whatever backend the process bootstrapped
/// (`lineupd` exports them in the Prometheus text format at `/metrics`).
///
/// Counters and timers follow the daemon's events (``follow(_:)``), so a job is counted where
/// the daemon decides its fate, once: claimed, retried, failed, acknowledged. Gauges describe a
/// moment and are set from the daemon's status when asked (``update(from:queue:unsavedRowCount:now:)``,
/// at each scrape), never polled in the background.
///
/// | metric | type | labels |
/// |---|---|---|
/// | `lineup_jobs_claimed_total` | counter | `kind` |
/// | `lineup_jobs_succeeded_total` (acknowledged: flushed and filed in `done/`) | counter | `kind` |
/// | `lineup_jobs_failed_total` (for good, in `failed/`) | counter | `kind` |
/// | `lineup_jobs_retried_total` (an attempt failed; another is scheduled) | counter | `kind` |
/// | `lineup_job_duration_seconds` (the run of a succeeded job's last attempt) | timer | `kind` |
/// | `lineup_flush_duration_seconds` | timer | |
/// | `lineup_flush_rows` (rows written by one flush) | recorder | |
/// | `lineup_flushes_failed_total` | counter | |
/// | `lineup_queue_depth` (job files in `new/`) | gauge | |
/// | `lineup_oldest_queued_job_age_seconds` (0 when `new/` is empty) | gauge | |
/// | `lineup_jobs_running`, `lineup_jobs_awaiting_flush`, `lineup_jobs_waiting_for_retry` | gauge | |
/// | `lineup_main_context_unsaved_rows` (what the next flush writes) | gauge | |
/// | `lineup_flush_failures_consecutive` | gauge | |
/// | `lineup_up` (1 while running, 0 once stopping) | gauge | |
/// | `lineup_paused` (1 while paused, 0 once resumed) | gauge | `scope` |
/// | `lineup_limit_running`, `lineup_limit_running_max` | gauge | `scope` |
/// | `lineup_limit_claimed_in_period`, `lineup_limit_rate` | gauge | `scope` |
/// | `lineup_limit_holding_back` (1 while the limit keeps due jobs queued) | gauge | `scope` |
/// | `lineup_database_claims_total`, `lineup_database_claims_empty_total` (claim statements on a database's jobs table, and those that found no job) | counter | |
/// | `lineup_database_claim_duration_seconds` (one claim statement, call to rows) | timer | |
public final class DaemonMetrics: Sendable {
    /// Metric objects by kind: made once per kind, since a backend's factory call is not free.
    private struct ByKind {
        var claimed: [String: Counter] = [:]
        var succeeded: [String: Counter] = [:]
        var failed: [String: Counter] = [:]
        var retried: [String: Counter] = [:]
        var duration: [String: Metrics.Timer] = [:]
    }

    /// Gauges by label and scope (`kind:NAME`, `queue:NAME`), made once each.
    private let byScope = Locked<[String: [String: Gauge]]>([:])

    private let byKind = Locked(ByKind())
    private let flushDuration = Metrics.Timer(label: "lineup_flush_duration_seconds", preferredDisplayUnit: .seconds)
    private let flushRows = Recorder(label: "lineup_flush_rows")
    private let flushesFailed = Counter(label: "lineup_flushes_failed_total")
    private let queueDepth = Gauge(label: "lineup_queue_depth")
    private let oldestQueuedAge = Gauge(label: "lineup_oldest_queued_job_age_seconds")
    private let running = Gauge(label: "lineup_jobs_running")
    private let awaitingFlush = Gauge(label: "lineup_jobs_awaiting_flush")
    private let waitingForRetry = Gauge(label: "lineup_jobs_waiting_for_retry")
    private let unsavedRows = Gauge(label: "lineup_main_context_unsaved_rows")
    private let consecutiveFlushFailures = Gauge(label: "lineup_flush_failures_consecutive")
    private let up = Gauge(label: "lineup_up")

    /// Makes the metrics with the process's metrics backend (`MetricsSystem.bootstrap`).
    public init() {}

    /// What each metric means, for the `# HELP` lines of the Prometheus text format.
    public static let helpTexts: [String: String] = [
        "lineup_jobs_claimed_total": "Jobs claimed from new/, by kind.",
        "lineup_jobs_succeeded_total": "Jobs acknowledged: flushed to disk and filed in done/, by kind.",
        "lineup_jobs_failed_total": "Jobs failed for good and filed in failed/, by kind.",
        "lineup_jobs_retried_total": "Failed attempts followed by another attempt, by kind.",
        "lineup_job_duration_seconds": "How long the last attempt of an acknowledged job ran, by kind.",
        "lineup_flush_duration_seconds": "How long a flush (main context to writer to disk) took.",
        "lineup_flush_rows": "Rows one flush wrote to the store.",
        "lineup_flushes_failed_total": "Flushes that failed.",
        "lineup_queue_depth": "Job files in new/, due or scheduled.",
        "lineup_oldest_queued_job_age_seconds": "How long the due job that has waited longest in new/ has been due; 0 when none.",
        "lineup_jobs_running": "Jobs whose task runs now.",
        "lineup_jobs_awaiting_flush": "Finished jobs waiting for the flush that acknowledges them.",
        "lineup_jobs_waiting_for_retry": "Jobs waiting for the backoff delay before their next attempt.",
        "lineup_main_context_unsaved_rows": "Rows the main context holds that the next flush writes.",
        "lineup_flush_failures_consecutive": "Flushes failed in a row since the last one that succeeded.",
        "lineup_up": "1 while the daemon runs, 0 while it starts or stops.",
        "lineup_paused": "1 while the kind or queue is paused (lineup pause), 0 once resumed.",
        "lineup_limit_running": "Jobs of the limit's kind or queue running now (on PostgreSQL: on every daemon).",
        "lineup_limit_running_max": "How many jobs of the limit's kind or queue may run at once.",
        "lineup_limit_claimed_in_period": "Jobs of the limit's kind or queue claimed within its rate's period.",
        "lineup_limit_rate": "How many jobs of the limit's kind or queue may be claimed per period.",
        "lineup_limit_holding_back": "1 while the limit is used up and keeps due jobs queued.",
        "lineup_database_claims_total": "Claim statements run on the database's jobs table (--database).",
        "lineup_database_claims_empty_total": "Claim statements on the database's jobs table that found no job to claim.",
        "lineup_database_claim_duration_seconds": "How long one claim statement on the database's jobs table took.",
    ]

    /// `exposition` (the Prometheus text format, as a registry writes it) with a `# HELP` line
    /// before the `# TYPE` line of each metric of ``helpTexts``: swift-metrics has no place for
    /// help texts, and `promtool check metrics` asks for them.
    public static func addingHelp(to exposition: String) -> String {
        var lines: [Substring] = []
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first,
                let help = helpTexts[String(name)]
            {
                lines.append("# HELP \(name) \(help)")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Counts the events of `events` (``JobDaemon/events()``, subscribed before the daemon
    /// runs) until the stream ends.
    public func follow(_ events: DaemonEvents) async {
        for await event in events {
            record(event)
        }
    }

    /// Counts one event.
    public func record(_ event: DaemonEvent) {
        switch event {
        case let .jobClaimed(info):
            counter(\.claimed, "lineup_jobs_claimed_total", info.kind).increment()
        case let .retryScheduled(info, _, _):
            counter(\.retried, "lineup_jobs_retried_total", info.kind).increment()
        case let .jobFailed(info, _):
            counter(\.failed, "lineup_jobs_failed_total", info.kind).increment()
        case let .jobAcknowledged(info, report):
            counter(\.succeeded, "lineup_jobs_succeeded_total", info.kind).increment()
            let seconds = max(0, report.finishedAt.timeIntervalSince(report.startedAt))
            durationTimer(info.kind).recordNanoseconds(Int64(seconds * 1e9))
        case let .flushed(summary):
            let (seconds, attoseconds) = summary.duration.components
            flushDuration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            flushRows.record(summary.rowsWritten)
        case .flushFailed:
            flushesFailed.increment()
        case .started:
            up.record(1)
        case .stopping, .stopped:
            up.record(0)
        case .jobWaitingForDependencies, .jobStarted, .jobFinished, .jobReleased, .jobScheduled, .reloaded:
            break
        }
    }

    /// Sets the gauges: from the daemon's status (nil once it has stopped), the spool's queue,
    /// and the rows the main context holds.
    ///
    /// - Parameters:
    ///   - queue: the job files in `new/` and the time the oldest of them was enqueued.
    ///   - unsavedRowCount: `unsavedRowCount` of the main context; nil when the store is not open.
    public func update(from status: DaemonStatus?, queue: (count: Int, oldest: Date?), unsavedRowCount: Int?, now: Date = Date()) {
        queueDepth.record(queue.count)
        oldestQueuedAge.record(queue.oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        if let unsavedRowCount {
            unsavedRows.record(unsavedRowCount)
        }
        guard let status else {
            up.record(0)
            return
        }
        up.record(status.phase == .running ? 1 : 0)
        updateControls(from: status)
        running.record(status.running.count)
        awaitingFlush.record(status.awaitingFlush)
        waitingForRetry.record(status.waitingForRetry)
        consecutiveFlushFailures.record(status.consecutiveFlushFailures)
    }

    /// The paused scopes and the limits' states. A scope resumed since reads 0 rather than
    /// vanishing, so that a graph of it ends at the resume.
    private func updateControls(from status: DaemonStatus) {
        let paused = Set((status.paused ?? []).map(\.description))
        for scope in Set(byScope.withLock { $0["lineup_paused"]?.keys.map { $0 } ?? [] }).union(paused) {
            gauge("lineup_paused", scope).record(paused.contains(scope) ? 1 : 0)
        }
        for limit in status.limits ?? [] {
            let scope = limit.scope.description
            gauge("lineup_limit_running", scope).record(limit.running)
            if let maxRunning = limit.maxRunning { gauge("lineup_limit_running_max", scope).record(maxRunning) }
            if let rate = limit.rate {
                gauge("lineup_limit_claimed_in_period", scope).record(limit.claimedInPeriod ?? 0)
                gauge("lineup_limit_rate", scope).record(rate)
            }
            gauge("lineup_limit_holding_back", scope).record(limit.holdingBack ? 1 : 0)
        }
    }

    private func gauge(_ label: String, _ scope: String) -> Gauge {
        byScope.withLock { gauges in
            if let gauge = gauges[label]?[scope] { return gauge }
            let gauge = Gauge(label: label, dimensions: [("scope", scope)])
            gauges[label, default: [:]][scope] = gauge
            return gauge
        }
    }

    private func counter(_ keyPath: WritableKeyPath<ByKind, [String: Counter]>, _ label: String, _ kind: String?) -> Counter {
        let kind = kind ?? "unknown"
        return byKind.withLock { byKind in
            if let counter = byKind[keyPath: keyPath][kind] { return counter }
            let counter = Counter(label: label, dimensions: [("kind", kind)])
            byKind[keyPath: keyPath][kind] = counter
            return counter
        }
    }

    private func durationTimer(_ kind: String?) -> Metrics.Timer {
        let kind = kind ?? "unknown"
        return byKind.withLock { byKind in
            if let timer = byKind.duration[kind] { return timer }
            let timer = Metrics.Timer(label: "lineup_job_duration_seconds", dimensions: [("kind", kind)], preferredDisplayUnit: .seconds)
            byKind.duration[kind] = timer
            return timer
        }
    }
}
