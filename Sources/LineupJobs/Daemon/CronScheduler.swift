public import Foundation
public import LineupSpool
public import Logging

/// Enqueues the recurring jobs of ``DaemonConfiguration/cron``: one job per entry and period,
/// even across restarts and crashes.
///
/// Each period's job gets a name of its own, `cron-<name>-<yyyyMMddHHmm>` (the fire time, UTC),
/// and the last period enqueued for each entry is kept in `<spool>/cron.json`. A period is
/// enqueued only if no job of its name is in the spool already (queued, running, done or
/// failed), and recorded after: a crash between the two finds the job on the next start and
/// records it without enqueuing it again.
///
/// When the daemon was down over a fire time, the latest missed period is enqueued at the next
/// start, once (as anacron does); earlier missed ones are not. An entry seen for the first time
/// enqueues only if it fires in the current minute: a nightly job added at noon waits for the
/// night.
public final class CronScheduler: Sendable {
    private let spool: SpoolDirectory
    private let stateURL: URL
    private let logger: Logger

    /// Makes a scheduler for `spool`; its state is kept in `<spool>/cron.json`.
    public init(spool: SpoolDirectory, logger: Logger) {
        self.spool = spool
        self.stateURL = spool.root.appending(path: "cron.json")
        self.logger = logger
    }

    /// The name of the job of `entry` for the period that fired at `fireTime`.
    public static func jobName(of entry: CronJob, firedAt fireTime: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: fireTime)
        let stamp = String(
            format: "%04d%02d%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
        return "cron-\(entry.name)-\(stamp)"
    }

    /// Enqueues the job of every entry whose latest fire time at or before `now` has not been
    /// enqueued yet; returns the names enqueued. An entry that cannot be enqueued (a full
    /// disk) is logged and tried again at the next call.
    @discardableResult
    public func enqueueDue(_ entries: [CronJob], now: Date = Date()) -> [String] {
        var state = readState()
        var enqueued: [String] = []
        var changed = false
        for entry in entries {
            guard let fireTime = entry.schedule.previousFireTime(atOrBefore: now) else { continue }
            if let last = state[entry.name], last >= fireTime { continue }
            if state[entry.name] == nil && now.timeIntervalSince(fireTime) >= 60 {
                // First sight of the entry, past its fire time: wait for the next one.
                state[entry.name] = fireTime
                changed = true
                continue
            }
            let name = Self.jobName(of: entry, firedAt: fireTime)
            do {
                if try !spool.containsJob(named: name) {
                    var fields = entry.job.fields
                    fields["notBefore"] = nil
                    let job = try JobFile(data: JSONEncoder().encode(fields))
                    try spool.enqueue(job, named: name)
                    enqueued.append(name)
                    logger.info(
                        "recurring job enqueued",
                        metadata: ["job": "\(name)", "cron": "\(entry.name)", "schedule": "\(entry.schedule)", "kind": "\(job.kind)"])
                }
                state[entry.name] = fireTime
                changed = true
            } catch {
                logger.error("cannot enqueue a recurring job", metadata: ["job": "\(name)", "cron": "\(entry.name)", "error": "\(error)"])
            }
        }
        if changed {
            writeState(state)
        }
        return enqueued
    }

    /// The last period enqueued by entry name; empty when the file is missing or unreadable (a
    /// job already in the spool is still not enqueued twice).
    private func readState() -> [String: Date] {
        guard let data = try? Data(contentsOf: stateURL) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode([String: Date].self, from: data)
        } catch {
            logger.warning("cannot read the recurring jobs' state; starting afresh", metadata: ["file": "\(stateURL.path)", "error": "\(error)"])
            return [:]
        }
    }

    /// Written to a temporary file and renamed over the old one, so a crash leaves one or the
    /// other, whole.
    private func writeState(_ state: [String: Date]) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            try encoder.encode(state).write(to: stateURL, options: .atomic)
        } catch {
            logger.error("cannot record the recurring jobs' state", metadata: ["file": "\(stateURL.path)", "error": "\(error)"])
        }
    }
}
