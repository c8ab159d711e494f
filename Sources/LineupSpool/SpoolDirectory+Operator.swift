import Foundation

/// What an operator does by hand (`lineup failed`, `retry`, `cancel`, `show`, and the
/// dashboard's discard), each step one atomic rename or unlink, so that two operators (or an
/// operator and a daemon) racing for the same job never both get it.
extension SpoolDirectory {
    /// The job file of `entry`, read (up to ``maximumJobFileSize``) and parsed; nil when it
    /// cannot be read, is larger, or is not a valid job file.
    public func jobFile(of entry: SpoolEntry) -> JobFile? {
        guard let (contents, size) = try? FileSystem.readFile(entry.path, limit: Self.maximumJobFileSize),
            size <= Self.maximumJobFileSize
        else { return nil }
        return try? JobFile(data: contents)
    }

    /// The job files in `state` whose job id (the file's `id` field) or enqueued name is `id`.
    /// A file that cannot be read or decoded matches by its name only.
    public func entries(_ state: JobState, matching id: String) throws(SpoolError) -> [SpoolEntry] {
        try entries(state).filter { entry in
            entry.name == id || jobFile(of: entry)?.id == id
        }
    }

    /// The ids of the queued jobs that carry a `notBefore` time, due or not (a due one may not be
    /// claimed yet): a job that names one in its `after` list waits for it however long that is.
    /// Only those files are read, however long the queue.
    public func scheduledJobIDs() throws(SpoolError) -> Set<String> {
        Set(
            try entries(.queued).compactMap { entry -> String? in
                guard entry.jobFileName.notBefore != nil else { return nil }
                return jobFile(of: entry)?.id
            })
    }

    /// Moves a failed job back to `new/` to run again, as a fresh job: its count of failed
    /// attempts and of interruptions starts again from zero, and it loses its claim (unless
    /// another job of its name is queued; see `requeue`). Its error report is removed once it is
    /// queued: the report belonged to the run that failed.
    ///
    /// - Returns: the queued entry.
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job is no longer
    ///   in `failed/` (retried already, by this call or another), ``SpoolError/Code/invalidPath``
    ///   when `entry` is not a failed job.
    @discardableResult
    public func retry(_ entry: SpoolEntry) throws(SpoolError) -> SpoolEntry {
        guard entry.state == .failed else {
            throw SpoolError(code: .invalidPath, path: entry.path, message: "is not in failed/, so there is nothing to retry")
        }
        let fresh = JobFileName(name: entry.name, claim: entry.claim, isBulk: entry.isBulk, priority: entry.jobFileName.priority)
        if entry.isBulk {
            // Its lines' outcomes go back to its ledger, so that the lines done stay done.
            let results = path(of: .failed) + "/" + entry.jobFileName.resultReportName
            let ledger = path(of: .running) + "/" + fresh.ledgerName
            if FileSystem.fileExists(results), !FileSystem.fileExists(ledger) {
                _ = try FileSystem.rename(results, to: ledger)
                try syncIfDurable(.running)
            }
        }
        guard let queued = try requeue(from: entry.path, as: fresh) else {
            throw SpoolError(code: .notFound, path: entry.path, message: "is no longer in failed/ (retried or removed already)")
        }
        forgetBacklog()
        try syncIfDurable(.queued)
        try syncIfDurable(.failed)
        try? FileSystem.removeFile(path(of: .failed) + "/" + entry.jobFileName.errorReportName)
        return SpoolEntry(fileName: queued, state: .queued, path: path(of: .queued) + "/" + queued.fileName)
    }

    /// Takes a queued job out of the queue: claims it, as a daemon would, and fails it with
    /// `reason`, so that it lies in `failed/` with a report like any failed job (and
    /// ``retry(_:)`` can queue it again).
    ///
    /// - Returns: the failed entry.
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job is no longer
    ///   queued (a daemon claimed it, or it was cancelled already); ``SpoolError/Code/invalidPath``
    ///   when `entry` is not a queued job.
    @discardableResult
    public func cancel(_ entry: SpoolEntry, reason: String = "cancelled") throws(SpoolError) -> SpoolEntry {
        guard entry.state == .queued else {
            throw SpoolError(code: .invalidPath, path: entry.path, message: "is not in new/, so it cannot be cancelled")
        }
        guard let job = try claim(fileName: entry.fileName) else {
            throw SpoolError(code: .notFound, path: entry.path, message: "is no longer queued (a daemon claimed it, or it was cancelled already)")
        }
        let file = try? job.decodeJobFile()
        let report = JobFailureReport(
            name: job.name, id: file?.id, kind: file?.kind, reason: reason, attempts: job.failedAttempts,
            interruptions: job.interruptions, retryable: false, startedAt: nil, finishedAt: Date())
        try fail(job, report: report)
        return SpoolEntry(fileName: job.jobFileName, state: .failed, path: path(of: .failed) + "/" + job.fileName)
    }

    /// Removes a failed job for good: its file first (one unlink, so that of two operators
    /// discarding or retrying it at once, one wins), then its error report and, for a bulk file,
    /// what its lines did. A job that waits for it in `after` then waits for an unknown id.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job is no longer
    ///   in `failed/` (discarded or retried already); ``SpoolError/Code/invalidPath`` when
    ///   `entry` is not a failed job.
    public func discard(_ entry: SpoolEntry) throws(SpoolError) {
        guard entry.state == .failed else {
            throw SpoolError(code: .invalidPath, path: entry.path, message: "is not in failed/, so it cannot be discarded")
        }
        guard try FileSystem.removeFileIfPresent(entry.path) else {
            throw SpoolError(code: .notFound, path: entry.path, message: "is no longer in failed/ (discarded or retried already)")
        }
        let failed = path(of: .failed) + "/"
        try FileSystem.removeFile(failed + entry.jobFileName.errorReportName)
        if entry.isBulk {
            try FileSystem.removeFile(failed + entry.jobFileName.resultReportName)
        }
        try syncIfDurable(.failed)
    }
}
