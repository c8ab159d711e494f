public import Foundation

extension SpoolDirectory {
    /// Marks a claimed job done: writes `done/<name>.result.json`, then moves the job file
    /// from `active/` beside it.
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

    /// Marks a claimed job failed: writes `failed/<name>.error.json`, then moves the job
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

    /// Returns a claimed job to `new/` under its own name, without counting an interruption
    /// (graceful shutdown cancelled it before it finished).
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when the job file is no
    ///   longer in `active/`.
    public func release(_ job: ClaimedJob) throws(SpoolError) {
        let source = path(of: .running) + "/" + job.fileName
        guard try FileSystem.rename(source, to: path(of: .queued) + "/" + job.fileName) else {
            throw SpoolError(code: .notFound, path: source, message: "claimed job file is no longer in active/")
        }
        forgetBacklog()
        try syncIfDurable(.queued)
    }

    /// Writes the reports, then moves the job files, as the protocol orders it.
    func finish(_ jobs: [(ClaimedJob, Data)], in state: SpoolState) throws(SpoolError) {
        guard !jobs.isEmpty else { return }
        let directory = path(of: state)
        let sync = durability == .fsync
        var written: [(temporary: String, report: String)] = []
        written.reserveCapacity(jobs.count)
        for (job, report) in jobs {
            let reportName = reportFileName(for: job.jobFileName, in: state)
            let temporary = temporaryPath + "/." + reportName
            try FileSystem.writeFile(temporary, contents: report, exclusive: false, sync: sync)
            written.append((temporary, directory + "/" + reportName))
        }
        for (temporary, report) in written {
            guard try FileSystem.rename(temporary, to: report) else {
                throw SpoolError(code: .notFound, path: temporary, message: "report vanished from tmp/ before it was moved")
            }
        }
        try syncIfDurable(state)
        for (job, _) in jobs {
            let source = path(of: .running) + "/" + job.fileName
            guard try FileSystem.rename(source, to: directory + "/" + job.fileName) else {
                throw SpoolError(
                    code: .notFound,
                    path: source,
                    message: "claimed job file is no longer in active/ (was the spool recovered by another daemon?)"
                )
            }
        }
        try syncIfDurable(state)
    }

    func reportFileName(for fileName: JobFileName, in state: SpoolState) -> String {
        state == .done ? fileName.resultReportName : fileName.errorReportName
    }
}
