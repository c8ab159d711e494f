public import Foundation

extension SpoolDirectory {
    /// The default number of interruptions after which a job is treated as poison.
    public static let defaultMaxInterruptions = 3

    /// Recovers the jobs a stopped daemon left in `active/`. Call it at start-up, before
    /// claiming, while no other consumer runs on this spool.
    ///
    /// Each leftover was interrupted. If its own report (the same claim) already lies in
    /// `done/` or `failed/`, its move is finished. Otherwise its interruption count goes up by
    /// one: below `maxInterruptions` it returns to `new/` without its claim, as
    /// `<name>.i<count>[.a<N>].job.json` (its place in the name order unchanged); at
    /// `maxInterruptions` it goes to `failed/` with a ``JobFailureReport`` (not retryable) that
    /// says it was interrupted that many times.
    ///
    /// - Parameter maxInterruptions: how many interruptions make a job poison (1 or more).
    @discardableResult
    public func recoverActive(maxInterruptions: Int = defaultMaxInterruptions) throws(SpoolError) -> SpoolRecovery {
        precondition(maxInterruptions >= 1, "maxInterruptions must be at least 1")
        var recovery = SpoolRecovery()
        // A crash between writing a report into tmp/ and renaming it leaves the report there;
        // its job is still in active/ and gets a new report when it finishes again.
        for name in try FileSystem.fileNames(in: temporaryPath)
        where name.hasPrefix(".") && (name.hasSuffix(".result.json") || name.hasSuffix(".error.json")) {
            try FileSystem.removeFile(temporaryPath + "/" + name)
        }
        let activePath = path(of: .running)
        let leftovers = try FileSystem.fileNames(in: activePath).compactMap(JobFileName.init(fileName:))
        for fileName in leftovers.sorted(by: { $0.fileName < $1.fileName }) {
            let source = activePath + "/" + fileName.fileName
            if FileSystem.fileExists(path(of: .done) + "/" + fileName.resultReportName) {
                if try FileSystem.rename(source, to: path(of: .done) + "/" + fileName.fileName) {
                    recovery.completed.append(fileName.name)
                }
                continue
            }
            if FileSystem.fileExists(path(of: .failed) + "/" + fileName.errorReportName) {
                if fileName.isBulk {
                    try moveLedger(of: fileName, into: .failed)
                }
                if try FileSystem.rename(source, to: path(of: .failed) + "/" + fileName.fileName) {
                    recovery.failed.append(fileName.name)
                }
                continue
            }
            let counted = fileName.withInterruptions(fileName.interruptions + 1)
            if counted.interruptions < maxInterruptions {
                if try requeue(from: source, as: counted) != nil {
                    recovery.requeued.append(fileName.name)
                }
            } else {
                // A file put into active/ by hand has no claim; it gets one, so that its name in
                // failed/ is its own.
                let counted = counted.claim == nil ? counted.withClaim(JobFileName.newClaim()) : counted
                let report = poisonReport(for: counted, at: source)
                let reportPath = path(of: .failed) + "/" + counted.errorReportName
                let temporary = temporaryPath + "/." + counted.errorReportName
                try FileSystem.writeFile(temporary, contents: report.encoded(), exclusive: false, sync: durability == .fsync)
                _ = try FileSystem.rename(temporary, to: reportPath)
                if counted.isBulk {
                    try moveLedger(of: counted, into: .failed)
                }
                try syncIfDurable(.failed)
                if try FileSystem.rename(source, to: path(of: .failed) + "/" + counted.fileName) {
                    recovery.poisoned.append(fileName.name)
                }
            }
        }
        if !recovery.requeued.isEmpty {
            try syncIfDurable(.queued)
            forgetBacklog()
        }
        if !(recovery.completed.isEmpty && recovery.failed.isEmpty && recovery.poisoned.isEmpty) {
            try syncIfDurable(.done)
            try syncIfDurable(.failed)
        }
        return recovery
    }

    /// Removes files from `tmp/` that were last modified more than `age` seconds ago:
    /// writes that a crashed producer or daemon never finished. Files younger than that may
    /// still be being written and are left alone (maildir uses 36 hours).
    ///
    /// - Returns: the number of files removed.
    @discardableResult
    public func removeStaleTemporaryFiles(olderThan age: TimeInterval = 36 * 3600) throws(SpoolError) -> Int {
        let limit = Date().addingTimeInterval(-age)
        var removed = 0
        for name in try FileSystem.fileNames(in: temporaryPath) {
            let path = temporaryPath + "/" + name
            if let modified = FileSystem.modificationTime(path), modified < limit {
                try FileSystem.removeFile(path)
                removed += 1
            }
        }
        return removed
    }

    /// The report of a poison job; the kind and id come from the job file when it parses.
    private func poisonReport(for fileName: JobFileName, at path: String) -> JobFailureReport {
        let job = try? FileSystem.readFile(path, limit: Self.maximumJobFileSize).contents
        let parsed = job.flatMap { try? JobFile(data: $0, path: path) }
        return JobFailureReport(
            name: fileName.name,
            id: parsed?.id,
            kind: parsed?.kind,
            reason: "the daemon stopped while running this job "
                + (fileName.interruptions == 1 ? "once" : "\(fileName.interruptions) times") + "; "
                + "it is set aside as poison, as it may crash the daemon (job file \(fileName.enqueuedFileName))",
            attempts: fileName.failedAttempts + fileName.interruptions,
            interruptions: fileName.interruptions,
            retryable: false,
            startedAt: nil,
            finishedAt: Date()
        )
    }
}
