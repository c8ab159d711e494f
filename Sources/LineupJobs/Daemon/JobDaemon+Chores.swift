import Dispatch
import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging

/// The daemon's recurring chores, as services (see ``RecurringService``).
extension JobDaemon {
    /// Removes done jobs older than ``DaemonConfiguration/keepDone`` at start and then every
    /// hour (or every tenth of the retention, when that is shorter). Read each time, so that a
    /// reload can turn it on or off.
    func retentionService(spool: SpoolDirectory, database: (any SharedJobQueue)?) -> RecurringService {
        RecurringService(
            name: "retention", worksAtStart: true,
            pause: { [state] in min(.seconds(3_600), (state.withLock { $0.configuration.keepDone } ?? .seconds(3_600)) / 10) }
        ) {
            guard let keepDone = self.configuration.keepDone else { return }
            let cutoff = Date().addingTimeInterval(-Double(keepDone.components.seconds))
            do {
                let pruning = try spool.pruneDone(finishedBefore: cutoff)
                if !pruning.removed.isEmpty || !pruning.keptForDependents.isEmpty {
                    self.logger.info(
                        "removed done jobs past their retention",
                        metadata: [
                            "removed": "\(pruning.removed.count)", "keptForDependents": "\(pruning.keptForDependents.count)",
                            "finishedBefore": "\(cutoff.ISO8601Format())",
                        ])
                }
            } catch {
                self.logger.warning("cannot remove done jobs past their retention", metadata: ["error": "\(error)"])
            }
            if let database {
                await self.pruneDone(in: database, finishedBefore: cutoff)
            }
        }
    }

    /// The database's side of the retention, off the Swift tasks' threads: its calls block (see
    /// `BlockingWork`).
    func pruneDone(in database: any SharedJobQueue, finishedBefore cutoff: Date) async {
        let logger = self.logger
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            BlockingWork.queue(named: "lineup.retention").async {
                do {
                    let removed = try database.pruneDone(finishedBefore: cutoff)
                    if removed > 0 {
                        logger.info(
                            "removed done jobs of the database past their retention",
                            metadata: ["removed": "\(removed)", "finishedBefore": "\(cutoff.ISO8601Format())"])
                    }
                } catch {
                    logger.warning("cannot remove done jobs of the database past their retention", metadata: ["error": "\(error)"])
                }
                continuation.resume()
            }
        }
    }

    /// Enqueues the recurring jobs (``DaemonConfiguration/cron``) at start and then at the
    /// start of every minute, when a schedule may fire. The entries are read each time, so that
    /// a reload changes them.
    func cronService(spool: SpoolDirectory) -> RecurringService {
        let scheduler = CronScheduler(spool: spool, logger: logger)
        return RecurringService(
            name: "cron", worksAtStart: true,
            // Just past the next whole minute: a schedule fires at a minute's start.
            pause: { .seconds(60 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60) + 0.05) }
        ) {
            let entries = self.configuration.cron
            if !entries.isEmpty {
                scheduler.enqueueDue(entries, now: self.hooks.clock.now())
            }
        }
    }
}
