import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging

/// Moves the jobs enqueued with the data (``ManagedObjectContext/enqueue(_:)``) from the SQLite
/// store's outbox into the spool, after the flush that wrote them has committed: at the daemon's
/// start, and after each flush.
///
/// Exactly once, across crashes. Each job carries the name it takes in the spool
/// (``OutboxJobName``), written with it in the flush's transaction. Moving one writes it into
/// `tmp/`, renames it into `new/` under that name (never over a file), and then deletes its row;
/// so a crash leaves the job in the spool, or its row in the outbox, or both, never neither. Both
/// is told apart from a job not moved yet by its name: the spool holds a job of that name, in
/// `new/`, `active/`, `done/` or `failed/`. Which rows need that look:
/// - at start, every row: an earlier process may have moved it. The look runs after `active/` is
///   recovered and before anything is claimed, so no job moves meanwhile (the directories are
///   listed in the order jobs move through them, so one that moved would be seen anyway).
/// - after that, only the rows whose move failed midway in this process (the spool refused the
///   rename, or its sync): every other row was written by this process's flushes and never moved,
///   or moved by this process, which remembers those whose deletion failed.
final class SpoolOutbox: Sendable {
    let spool: SpoolDirectory
    private let faults: OutboxFaultInjection?
    private let state = Locked(State())

    private struct State {
        /// Whether every row has been looked for in the spool once (the start's pass).
        var leftoversChecked = false
        /// Rows in the spool whose deletion from the outbox has not succeeded yet.
        var moved: Set<Int64> = []
        /// Rows whose move failed midway: they may be in the spool.
        var uncertain: Set<Int64> = []
        /// Whether the last pass stopped at an error: the next flush moves again even if it wrote
        /// no job.
        var unfinished = false
    }

    /// How many rows a pass reads at a time.
    static let batch = 500

    init(spool: SpoolDirectory, faults: OutboxFaultInjection? = OutboxFaultInjection.fromEnvironment()) {
        self.spool = spool
        self.faults = faults
    }

    /// Whether a flush that wrote `jobsWritten` jobs into the outbox leaves something to move.
    func hasWork(afterFlushWriting jobsWritten: Int) -> Bool {
        jobsWritten > 0 || state.withLock { !$0.leftoversChecked || $0.unfinished }
    }

    /// Moves what the outbox holds into the spool; returns how many jobs were enqueued (not those
    /// found there already). Stops at the first error, which it throws: the rest waits for the next
    /// pass.
    @discardableResult
    func deliver(from container: PersistentContainer, logger: Logger) throws -> Int {
        state.withLock { $0.unfinished = true }
        var enqueued = 0
        let checkAll = state.withLock { !$0.leftoversChecked }
        var namesInSpool: Set<String>?
        while true {
            let entries = try container.outboxEntries(on: OutboxMessage.jobChannel, limit: Self.batch)
            if entries.isEmpty { break }
            faults?.mayKill(at: .afterCommit)
            var done: [Int64] = []
            for entry in entries {
                let (alreadyMoved, uncertain) = state.withLock { ($0.moved.contains(entry.id), $0.uncertain.contains(entry.id)) }
                if !alreadyMoved && (checkAll || uncertain) {
                    if namesInSpool == nil { namesInSpool = try spool.jobNames() }
                    if namesInSpool?.contains(entry.message.key) == true {
                        logger.info(
                            "job from the outbox found in the spool already; removing it from the outbox",
                            metadata: ["job": "\(entry.message.key)", "outbox_id": "\(entry.id)"])
                        done.append(entry.id)
                        continue
                    }
                }
                if !alreadyMoved {
                    guard try move(entry, logger: logger) else { continue }
                    enqueued += 1
                }
                done.append(entry.id)
            }
            try container.removeFromOutbox(done)
            state.withLock { $0.moved.subtract(done) }
            // A full batch of rows that cannot be moved would be read again and again.
            if entries.count < Self.batch || done.isEmpty { break }
        }
        state.withLock {
            $0.leftoversChecked = true
            $0.unfinished = false
        }
        return enqueued
    }

    /// Moves one job into the spool; false for a row that holds no job file, which no Lineup
    /// writes: it is left in the outbox, and logged, rather than holding up the rows after it.
    private func move(_ entry: OutboxEntry, logger: Logger) throws -> Bool {
        let name = entry.message.key
        let job: JobFile
        do {
            job = try JobFile(data: entry.message.body, path: "lineup_outbox row \(entry.id) (\(name))")
        } catch {
            logger.error(
                "a row of the outbox holds no job file; left there", metadata: ["job": "\(name)", "outbox_id": "\(entry.id)", "error": "\(error)"])
            return false
        }
        do throws(SpoolError) {
            try spool.enqueue(job, named: name)
        } catch where error.code == .alreadyExists {
            // In new/ already: a move of this process that failed after its rename (its sync).
        } catch {
            state.withLock { _ = $0.uncertain.insert(entry.id) }
            throw error
        }
        state.withLock { state in
            state.uncertain.remove(entry.id)
            state.moved.insert(entry.id)
        }
        logger.info(
            "job enqueued from the outbox",
            metadata: ["job": "\(job.id ?? name)", "name": "\(name)", "kind": "\(job.kind)", "outbox_id": "\(entry.id)"])
        faults?.mayKill(at: .afterSpoolWrite)
        return true
    }
}
