import Dispatch
import Foundation
import LineupSpool
import Logging
import Synchronization
import LineupJobs

/// A host's spool as the intake of a database's jobs (`lineupd --database`): what arrives in
/// `new/` moves into `lineup_jobs`, where every daemon on every host can claim it.
///
/// A file is first claimed into `active/`, where its name is unique (the claim in it) and stays
/// the same; it is inserted with that name as its intake key, then deleted. A crash between
/// the insert and the deletion leaves it in `active/`, and the next start inserts it again,
/// which the key turns into nothing: a job is never enqueued twice, and never lost. A bulk file
/// (`*.jobs.jsonl`) goes in whole, one row a line, in one transaction.
///
/// Files are inserted as they are, valid or not: the daemon that claims a broken one fails it
/// with the reason, as it would from the spool.
final class DatabaseIntake: Sendable {
    let spool: SpoolDirectory
    let database: JobDatabase
    private let logger: Logger
    /// Passes run one at a time, here: hints come from the spool watcher's thread.
    private let passes = DispatchQueue(label: "lineup.intake")
    /// Whether a pass asked for by ``hint()`` has not started yet.
    private let passPending = Atomic<Bool>(false)

    init(spool: SpoolDirectory, database: JobDatabase, logger: Logger) {
        self.spool = spool
        self.database = database
        self.logger = logger
    }

    /// Asks for a pass over `active/` and `new/`; hints that come while one is pending are that
    /// pass. `active/` holds files only when a pass failed (the database was down) or a daemon
    /// stopped in the middle of one: this one's ownership of the spool makes them its own.
    func hint() {
        guard passPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        passes.async {
            self.passPending.store(false, ordering: .releasing)
            do {
                try self.recoverActive()
                try self.moveQueued()
            } catch {
                self.logger.error("cannot move jobs from the spool into the database", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Inserts again what a pass left in `active/` (it was inserted, or not: the intake key makes
    /// both the same), then deletes it.
    private func recoverActive() throws {
        for entry in try spool.entries(.running) {
            guard let contents = FileManager.default.contents(atPath: entry.path) else { continue }
            try insert(activeFileName: entry.fileName, name: entry.name, isBulk: entry.isBulk, contents: contents, path: entry.path)
        }
    }

    /// Moves every job file in `new/` into the database, due or not (the table keeps `notBefore`).
    private func moveQueued() throws {
        for entry in try spool.entries(.queued) {
            guard let claimed = try spool.claim(fileName: entry.fileName) else { continue }
            if claimed.isBulk, SpoolDirectory.jobLines(ofBulk: claimed.contents).isEmpty {
                try failWhole(claimed)
                continue
            }
            try insert(
                activeFileName: claimed.fileName, name: claimed.name, isBulk: claimed.isBulk, contents: claimed.contents,
                path: claimed.path)
        }
    }

    /// A bulk file with no job to insert (blank, unreadable or too large) fails whole in the
    /// spool's `failed/`, with its reason, as a daemon on the spool fails it: deleted, it would be
    /// lost without a word.
    private func failWhole(_ claimed: ClaimedJob) throws {
        let reason: String
        do {
            _ = try claimed.decodeJobFile()
            reason = "holds no job (job file \(claimed.enqueuedFileName))"
        } catch {
            reason = error.description
        }
        try spool.fail(
            claimed,
            report: JobFailureReport(
                name: claimed.name, id: nil, kind: nil, reason: reason, attempts: 0, interruptions: claimed.interruptions,
                retryable: false, startedAt: nil, finishedAt: Date()))
        logger.error("bulk file failed: no job to move into the database", metadata: ["file": "\(claimed.fileName)", "error": "\(reason)"])
    }

    private func insert(activeFileName: String, name: String, isBulk: Bool, contents: Data, path: String) throws {
        let submissions: [JobDatabase.Submission]
        if isBulk {
            submissions = SpoolDirectory.jobLines(ofBulk: contents).map { line in
                JobDatabase.Submission(name: "\(name).line\(line.number)", contents: line.contents, intakeKey: "\(activeFileName):\(line.number)")
            }
        } else {
            submissions = [JobDatabase.Submission(name: name, contents: contents, intakeKey: activeFileName)]
        }
        let inserted = try database.enqueue(submissions)
        try FileManager.default.removeItem(atPath: path)
        logger.info(
            "job file moved into the database",
            metadata: ["file": "\(activeFileName)", "jobs": "\(submissions.count)", "inserted": "\(inserted)"])
    }
}
