public import Foundation

extension SpoolDirectory {
    /// Marks a claimed job done: writes `done/<stem>.result.json` (the stem is the job file's
    /// name without `.job.json`, claim included), then moves the job file from `active/`
    /// beside it.
    ///
    /// - Parameter report: the result report's bytes (usually ``JobResultReport/encoded()``).
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job file is no
    ///   longer in `active/`; ``SpoolError/Code/io`` when a write or rename fails.
    public func complete(_ job: ClaimedJob, report: Data) throws(SpoolError) {
        try finish([(job, report)], in: .done)
    }

    /// Marks a claimed job done with a typed report.
    public func complete(_ job: ClaimedJob, report: JobResultReport) throws(SpoolError) {
        try finish([(job, report.encoded())], in: .done)
    }

    /// Marks a group of claimed jobs done at once (the runner's group commit after a
    /// flush): every report is written and fsynced, the reports are renamed into `done/`
    /// and `done/` is fsynced once, then the job files are moved and `done/` is fsynced once
    /// more. Stops at the first error; jobs before it are done, the others stay in `active/`.
    public func complete(_ jobs: [(job: ClaimedJob, report: Data)]) throws(SpoolError) {
        try finish(jobs.map { ($0.job, $0.report) }, in: .done)
    }

    /// Marks a claimed job failed: writes `failed/<stem>.error.json`, then moves the job
    /// file from `active/` beside it.
    ///
    /// - Parameter report: the error report's bytes (usually ``JobFailureReport/encoded()``).
    public func fail(_ job: ClaimedJob, report: Data) throws(SpoolError) {
        try finish([(job, report)], in: .failed)
    }

    /// Marks a claimed job failed with a typed report.
    public func fail(_ job: ClaimedJob, report: JobFailureReport) throws(SpoolError) {
        try finish([(job, report.encoded())], in: .failed)
    }

    /// Returns a claimed job to `new/` without its claim, and without counting an interruption
    /// (graceful shutdown cancelled it before it finished).
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job file is no
    ///   longer in `active/`.
    public func release(_ job: ClaimedJob) throws(SpoolError) {
        if job.bulkLine != nil {
            try giveBack(line: job, notBefore: nil)
            return
        }
        guard try requeue(from: job.path, as: job.jobFileName) != nil else {
            throw SpoolError(code: .notFound, path: job.path, message: "claimed job file is no longer in active/")
        }
        forgetBacklog()
        try syncIfDurable(.queued)
    }

    /// Returns a claimed job that may not run yet to `new/`, with its `notBefore` time in its
    /// file name so that claimers skip it until then; nothing is counted (the job did not run).
    /// A daemon does this for a job whose file says `notBefore` and whose name did not (a job
    /// file written into `new/` by hand rather than by ``enqueue(_:)``).
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job file is no
    ///   longer in `active/`.
    public func postpone(_ job: ClaimedJob, until notBefore: Date) throws(SpoolError) {
        if job.bulkLine != nil {
            // It waits in its bulk, which stays claimed until then; its line says when again
            // if the bulk is claimed anew.
            try giveBack(line: job, notBefore: notBefore)
            return
        }
        let scheduled = job.jobFileName.withNotBefore(JobFileName.seconds(notBefore: notBefore))
        guard try requeue(from: job.path, as: scheduled) != nil else {
            throw SpoolError(code: .notFound, path: job.path, message: "claimed job file is no longer in active/")
        }
        try syncIfDurable(.queued)
    }

    /// Counts a failed attempt of a claimed job that will be retried, in its file name in
    /// `active/` (`.a<N>`), so that the count survives a restart and `maxAttempts` bounds the
    /// job across restarts too.
    ///
    /// - Returns: the job under its new file name; use it from now on.
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job file is no
    ///   longer in `active/`.
    public func recordFailedAttempt(of job: ClaimedJob) throws(SpoolError) -> ClaimedJob {
        if job.bulkLine != nil {
            return try recordFailedAttempt(ofLine: job)
        }
        let counted = job.jobFileName.withFailedAttempts(job.failedAttempts + 1)
        let destination = path(of: .running) + "/" + counted.fileName
        try syncClaims()
        guard try FileSystem.rename(job.path, to: destination) else {
            throw SpoolError(code: .notFound, path: job.path, message: "claimed job file is no longer in active/")
        }
        try syncIfDurable(.running)
        return job.renamed(to: counted, path: destination)
    }

    /// Moves a job file from `active/` back to `new/` as `fileName` without its claim; with its
    /// claim when another job in `new/` already has that name (two jobs of one name, both
    /// interrupted). A bulk file keeps its claim, which names its ledger. Returns the name it has
    /// in `new/`, or nil when `source` is gone.
    @discardableResult
    func requeue(from source: String, as fileName: JobFileName) throws(SpoolError) -> JobFileName? {
        let queued = path(of: .queued) + "/"
        let unclaimed = fileName.isBulk ? fileName : fileName.withClaim(nil)
        do throws(SpoolError) {
            return try FileSystem.rename(source, to: queued + unclaimed.fileName) ? unclaimed : nil
        } catch where error.code == .alreadyExists {
            return try FileSystem.rename(source, to: queued + fileName.fileName) ? fileName : nil
        }
    }

    /// Writes the reports, then moves the job files, as the protocol orders it.
    func finish(_ jobs: [(ClaimedJob, Data)], in state: JobState) throws(SpoolError) {
        let lines = jobs.filter { $0.0.bulkLine != nil }
        if !lines.isEmpty {
            try settleLines(lines.map { (job: $0.0, report: $0.1) }, in: state)
            try finish(jobs.filter { $0.0.bulkLine == nil }, in: state)
            return
        }
        guard !jobs.isEmpty else { return }
        // Checked first so that a job finished twice leaves no second report behind.
        for (job, _) in jobs where !FileSystem.fileExists(job.path) {
            throw SpoolError(code: .notFound, path: job.path, message: "claimed job file is no longer in active/")
        }
        var staged: [StagedReport] = []
        staged.reserveCapacity(jobs.count)
        for (job, report) in jobs {
            staged.append(try stage(report, of: job, for: state))
        }
        try move(staged, into: state)
    }

    // MARK: Staged completion

    /// Writes a claimed job's result report into `tmp/` (fsynced when the spool is durable),
    /// ahead of the job's completion, so that ``complete(staged:)`` later only renames.
    ///
    /// This is the first step of ``complete(_:report:)`` taken early: a consumer that must
    /// wait before it may complete a job (the daemon waits for the flush that carries the job's
    /// changes) writes the report as soon as the job has finished, and what is left after the
    /// wait is the renames. A staged report is invisible to the protocol: until it is renamed
    /// into `done/` the job is not done, and a crash leaves only a stray file in `tmp/`, which
    /// ``recoverActive(maxInterruptions:)`` removes. Staging the same job again replaces it.
    ///
    /// - Parameter report: the result report's bytes (usually ``JobResultReport/encoded()``).
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/io`` when the write fails.
    public func stageResultReport(_ report: Data, of job: ClaimedJob) throws(SpoolError) -> StagedReport {
        try stage(report, of: job, for: .done)
    }

    /// Marks a group of claimed jobs done whose reports were staged with
    /// ``stageResultReport(_:of:)``: renames the reports into `done/` and fsyncs `done/` once,
    /// then moves the job files and fsyncs `done/` once more. Stops at the first error; jobs
    /// before it are done, the others stay in `active/` (their reports may already be in
    /// `done/`, which recovery takes as done, or still in `tmp/`).
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when a staged report or
    ///   a job file is no longer where it was; ``SpoolError/Code/io`` when a rename fails.
    public func complete(staged: [StagedReport]) throws(SpoolError) {
        try move(staged, into: .done)
    }

    /// Writes a report into `tmp/` under the dot-name recovery knows as a report temporary.
    private func stage(_ report: Data, of job: ClaimedJob, for state: JobState) throws(SpoolError) -> StagedReport {
        if job.bulkLine != nil {
            // Its report goes into its bulk's ledger, in one append with the others of its group.
            return StagedReport(job: job, temporaryPath: "", reportName: "", lineReport: report)
        }
        let reportName = reportFileName(for: job.jobFileName, in: state)
        let temporary = temporaryPath + "/." + reportName
        try FileSystem.writeFile(temporary, contents: report, exclusive: false, sync: durability == .fsync)
        return StagedReport(job: job, temporaryPath: temporary, reportName: reportName)
    }

    /// Renames the staged reports into `state`'s directory, then the job files beside them,
    /// with one directory sync after each half: a job file never reaches `done/` or `failed/`
    /// before its report is there, durably, nor before its claim is.
    private func move(_ staged: [StagedReport], into state: JobState) throws(SpoolError) {
        let lines = staged.compactMap { report in report.lineReport.map { (job: report.job, report: $0) } }
        if !lines.isEmpty {
            try settleLines(lines, in: state)
            try move(staged.filter { $0.lineReport == nil }, into: state)
            return
        }
        guard !staged.isEmpty else { return }
        try syncClaims()
        let directory = path(of: state)
        for report in staged {
            do throws(SpoolError) {
                guard try FileSystem.rename(report.temporaryPath, to: directory + "/" + report.reportName) else {
                    throw SpoolError(
                        code: .notFound, path: report.temporaryPath, message: "report vanished from tmp/ before it was moved")
                }
            } catch where error.code == .alreadyExists {
                // A report of this claim is in place already (an earlier try at filing this group
                // stopped between its reports and its job files): claims are unique, so it is
                // this job's own.
                try FileSystem.removeFile(report.temporaryPath)
            }
        }
        for report in staged where report.job.isBulk {
            // A bulk failed whole: what its lines did goes with it.
            try moveLedger(of: report.job.jobFileName, into: state)
        }
        try syncIfDurable(state)
        for report in staged {
            let source = path(of: .running) + "/" + report.job.fileName
            guard try FileSystem.rename(source, to: directory + "/" + report.job.fileName) else {
                throw SpoolError(
                    code: .notFound,
                    path: source,
                    message: "claimed job file is no longer in active/ (was the spool recovered by another daemon?)"
                )
            }
        }
        try syncIfDurable(state)
    }

    func reportFileName(for fileName: JobFileName, in state: JobState) -> String {
        state == .done ? fileName.resultReportName : fileName.errorReportName
    }
}
