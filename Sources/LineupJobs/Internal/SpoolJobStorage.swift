import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging

/// The jobs of one machine: a spool directory (DESIGN §3). A job is acknowledged by moving its
/// file to `done/` after the flush that carried its rows, so a crash between the two runs it
/// again (at least once).
final class SpoolJobStorage: JobStorage {
    let spool: SpoolDirectory
    /// The jobs that tasks enqueued with their data, on their way from the store into the spool.
    let outbox: SpoolOutbox
    /// The ids read from `done/` and `failed/` and from the ledgers of bulk files not finished,
    /// and the files read already: each file is read once.
    private let settled = Locked(SettledFiles())

    private struct SettledFiles {
        var outcomes = SettledJobOutcomes()
        /// `<directory>/<file name>` of a job file or a finished bulk file, `ledger/<name>.c<claim>`
        /// of an unfinished bulk's ledger.
        var scanned: Set<String> = []
        /// When a job holding each unique key was last done (see ``lastDone(withUniqueKey:)``).
        var doneByUniqueKey: [String: Date] = [:]
        /// Whether `done/` was read for its unique keys (once: after it, this run notes the jobs
        /// it files there itself).
        var scannedForUniqueKeys = false

        mutating func noteDone(uniqueKey: String, at date: Date) {
            if doneByUniqueKey[uniqueKey].map({ $0 < date }) ?? true {
                doneByUniqueKey[uniqueKey] = date
            }
        }
        /// The reports of the jobs this run settled, and of bulk lines read in ledgers.
        var reports = RecentReports()
        /// Where the job files with ids read in `done/` and `failed/` lie, for their reports.
        var reportFiles: [String: SpoolEntry] = [:]
    }

    init(spool: SpoolDirectory) {
        self.spool = spool
        self.outbox = SpoolOutbox(spool: spool)
    }

    var location: String { spool.root.path }

    /// One rename a job: a batch would save nothing.
    var claimRoundTrip: Duration? { nil }

    func claimNext(upTo limit: Int) throws -> ClaimedJob? {
        try spool.claimNext()
    }

    func recordFailedAttempt(of job: ClaimedJob) throws -> ClaimedJob {
        try spool.recordFailedAttempt(of: job)
    }

    func settle(_ job: ClaimedJob, _ transition: JobTransition) throws {
        switch transition {
        case let .failed(report):
            // Noted first: if the move fails, the job stays in active/ until the next start, and
            // for this run it failed all the same.
            if let id = report.id {
                settled.withLock { files in
                    files.outcomes.note(id, .failed(reason: report.reason))
                    files.reports.note(id, .failed(report))
                }
            }
            try spool.fail(job, report: report)
        case .released:
            try spool.release(job)
        case let .postponed(notBefore):
            try spool.postpone(job, until: notBefore)
        }
    }

    func releaseUnhandedClaims() throws {
        // Bulk files go back to new/ as soon as their lines out are settled or released.
        try spool.releaseClaimedBulks()
    }

    func pendingJobIDs(among ids: Set<String>) throws -> Set<String> {
        try spool.scheduledJobIDs().intersection(ids)
    }

    func cancellationRequests() throws -> [String] {
        try spool.cancellationRequests()
    }

    func settleCancellationRequests(actedOn: [String], notHeld: [String]) throws -> [String] {
        for job in actedOn {
            try spool.removeCancellationRequest(ofJob: job)
        }
        var dropped: [String] = []
        for job in notHeld where try spool.runningEntries(matching: job).isEmpty {
            try spool.removeCancellationRequest(ofJob: job)
            dropped.append(job)
        }
        return dropped
    }

    /// Reads the job files in `done/` and `failed/` and the ledgers of unfinished bulk files not
    /// read yet, lazily: only when the runner meets an id it does not know.
    func settledOutcome(ofJobID id: String) -> SettledJobOutcome? {
        settled.withLock { files in
            if let known = files.outcomes[id] { return known }
            scan(.done, into: &files)
            scan(.failed, into: &files)
            if let found = files.outcomes[id] { return found }
            scanUnfinishedBulks(into: &files)
            return files.outcomes[id]
        }
    }

    /// Kept in memory for the jobs this run settled; read from `done/` or `failed/` (or a bulk's
    /// ledger) for the others, lazily, as ``settledOutcome(ofJobID:)`` reads outcomes.
    func settledReport(ofJobID id: String) -> DependencyReport? {
        settled.withLock { files in
            if let report = files.reports[id] { return report }
            if files.reportFiles[id] == nil {
                scan(.done, into: &files)
                scan(.failed, into: &files)
                if let report = files.reports[id] { return report }
                scanUnfinishedBulks(into: &files)
                if let report = files.reports[id] { return report }
            }
            guard let entry = files.reportFiles[id] else { return nil }
            if entry.state == .done {
                return (try? spool.resultReport(for: entry)).map(DependencyReport.done)
            }
            return (try? spool.failureReport(for: entry)).map(DependencyReport.failed)
        }
    }

    private func scan(_ state: JobState, into files: inout SettledFiles) {
        guard let entries = try? spool.entries(state) else { return }
        func note(_ id: String, _ outcome: SettledJobOutcome) {
            files.outcomes.note(id, outcome)
        }
        for entry in entries where files.scanned.insert(state.directoryName + "/" + entry.fileName).inserted {
            if entry.isBulk {
                // Its failed lines lie in failed/ as job files of their own, filed before it
                // finished; `lineup retry` may have taken them back since.
                for line in (try? spool.settledLines(of: entry)) ?? [] where line.outcome == .done {
                    note(line.id, .done)
                    if let report = line.resultReport { files.reports.note(line.id, .done(report)) }
                }
                continue
            }
            guard let data = try? Data(contentsOf: entry.url),
                let id = (try? JobFile(data: data, path: entry.path))?.id
            else { continue }
            if state == .done || files.reportFiles[id]?.state != .done {
                files.reportFiles[id] = entry
            }
            if state == .done {
                note(id, .done)
            } else {
                let reason = (try? spool.failureReport(for: entry))?.reason ?? "see \(entry.path)"
                note(id, .failed(reason: reason))
            }
        }
    }

    /// Reads the ledgers of the bulk files not finished (in `new/` or `active/`) not read yet:
    /// the lines that earlier runs settled are recorded there alone until the bulk finishes. Each
    /// ledger is read once: what earlier runs wrote into it no longer changes, and the lines this
    /// run settles are noted as it settles them (``settle(_:_:)``, ``commit(_:flushing:logger:)``).
    private func scanUnfinishedBulks(into files: inout SettledFiles) {
        func key(_ name: String, _ claim: String) -> String { "ledger/" + name + ".c" + claim }
        let scanned = files.scanned
        guard let bulks = try? spool.unfinishedBulks(skipping: { scanned.contains(key($0, $1)) }) else { return }
        for bulk in bulks {
            // One that cannot be read may have moved since it was listed (claimed, given back,
            // finished): it is read the next time, from where it is then.
            guard let claim = bulk.claim, let lines = try? spool.settledLines(of: bulk) else { continue }
            files.scanned.insert(key(bulk.name, claim))
            for line in lines {
                switch line.outcome {
                case .done:
                    files.outcomes.note(line.id, .done)
                    if let report = line.resultReport { files.reports.note(line.id, .done(report)) }
                case let .failed(report):
                    // The ledger's entry counts even where a crash kept the line out of failed/.
                    let reason = report?.reason ?? "see line \(line.number) of \(bulk.path)"
                    files.outcomes.note(line.id, .failed(reason: reason))
                    if let report { files.reports.note(line.id, .failed(report)) }
                }
            }
        }
    }

    /// Reads the job files of `done/` once, lazily, when the first job with `uniqueFor` is
    /// claimed: a spool with none never pays for it. The jobs this run files are noted as it
    /// files them (``commit(_:flushing:logger:)``): one daemon owns a spool, so nothing else
    /// files jobs in `done/`. A bulk file's lines are not looked at: their keys hold only while
    /// they are queued or running.
    func lastDone(withUniqueKey key: String) -> Date? {
        settled.withLock { files in
            guard !files.scannedForUniqueKeys, let entries = try? spool.entries(.done) else { return files.doneByUniqueKey[key] }
            files.scannedForUniqueKeys = true
            for entry in entries where !entry.isBulk {
                guard let data = try? Data(contentsOf: entry.url),
                    let uniqueKey = (try? JobFile(data: data, path: entry.path))?.uniqueKey,
                    let report = try? spool.resultReport(for: entry)
                else { continue }
                files.noteDone(uniqueKey: uniqueKey, at: report.finishedAt)
            }
            return files.doneByUniqueKey[key]
        }
    }

    // MARK: - Acknowledging

    /// Writes the job's result report into `tmp/`, so that filing it after the flush takes only
    /// renames.
    func stage(_ report: JobResultReport, of job: ClaimedJob, logger: Logger) -> FinishedJob<ClaimedJob> {
        do {
            let staged = try spool.stageResultReport(report.encoded(), of: job)
            return FinishedJob(claimed: job, report: report, staged: staged)
        } catch {
            logger.warning(
                "cannot write a result report into tmp/; writing it again after the flush",
                metadata: ["job": "\(job.name)", "error": "\(error)"])
            return FinishedJob(claimed: job, report: report, staged: nil)
        }
    }

    /// Flushes, then files the jobs in `done/` if the flush committed, then moves the jobs that
    /// the flush wrote into the outbox into the spool.
    func commit(_ jobs: [FinishedJob<ClaimedJob>], flushing container: PersistentContainer, logger: Logger) -> CommitOutcome {
        let flush = Result { try container.flush() }
        guard case let .success(report) = flush else {
            return CommitOutcome(flush: flush, filed: [])
        }
        let (filed, filingError) = file(jobs, logger: logger)
        settled.withLock { files in
            for job in jobs where filed.contains(job.claimed.claim) {
                if let id = job.report.id {
                    files.outcomes.note(id, .done)
                    files.reports.note(id, .done(job.report))
                }
                if let key = job.uniqueKey { files.noteDone(uniqueKey: key, at: job.report.finishedAt) }
            }
        }
        deliverOutbox(from: container, jobsWritten: report.messagesWritten, logger: logger)
        return CommitOutcome(flush: flush, filed: filed, filingError: filingError)
    }

    /// Moves the jobs in the store's outbox into the spool (see ``SpoolOutbox``): at start, before
    /// anything is claimed, and after each flush, once its group is filed. What cannot be moved
    /// now (a full disk) waits in the outbox for the next flush, and does not fail the group's
    /// acknowledgement.
    func deliverOutbox(from container: PersistentContainer, jobsWritten: Int, logger: Logger) {
        guard outbox.hasWork(afterFlushWriting: jobsWritten) else { return }
        do {
            try outbox.deliver(from: container, logger: logger)
        } catch {
            logger.error(
                "cannot move the jobs enqueued with the data into the spool; they wait in the outbox for the next flush",
                metadata: ["store": "\(container.storeLocation)", "error": "\(error)"])
        }
    }

    /// Moves the jobs to `done/` with their reports, as one group (one directory sync for the
    /// group rather than one per job); returns the claims of those moved. When the group stops at
    /// an error, the rest are tried one by one, so that one bad file holds back only itself.
    private func file(_ jobs: [FinishedJob<ClaimedJob>], logger: Logger) -> (filed: Set<String>, error: (any Error)?) {
        guard !jobs.isEmpty else { return ([], nil) }
        let staged = jobs.compactMap { $0.staged ?? stage($0.report, of: $0.claimed, logger: logger).staged }
        do {
            try spool.complete(staged: staged)
            if staged.count == jobs.count {
                return (Set(staged.map(\.job.claim)), nil)
            }
        } catch {
            logger.warning("cannot move a group of jobs to done/; moving them one by one", metadata: ["error": "\(error)"])
        }
        let done = spool.directory(.done)
        var filed: Set<String> = []
        var lastError: (any Error)?
        for job in jobs {
            do {
                // Written afresh: the group may have moved its staged report already.
                try spool.complete(job.claimed, report: job.report)
                filed.insert(job.claimed.claim)
            } catch where FileManager.default.fileExists(atPath: done.appending(path: job.claimed.fileName).path) {
                // Moved by the group call before it stopped.
                filed.insert(job.claimed.claim)
            } catch {
                lastError = error
                logger.error(
                    "cannot move an acknowledged job to done/; retrying after the next flush",
                    metadata: ["job": "\(job.claimed.name)", "error": "\(error)"])
            }
        }
        return (filed, lastError)
    }
}

// MARK: - Pauses and limits

extension SpoolJobStorage {
    func claimNext(filter: ClaimFilter, upTo limit: Int) throws -> ClaimedJob? {
        try spool.claimNext(admitting: filter.admits)
    }

    func pausedScopes() throws -> [JobScope] {
        try spool.pausedScopes()
    }

    func setPaused(_ scope: JobScope, _ paused: Bool) throws -> Bool {
        try (paused ? spool.pause(scope) : spool.resume(scope))
    }

    /// One daemon per spool: its own counts are the limits'.
    func sharedLimitStates(_ filter: ClaimFilter) throws -> [DaemonStatus.LimitState]? {
        nil
    }
}
