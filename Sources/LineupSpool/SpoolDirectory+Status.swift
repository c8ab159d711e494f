public import Foundation

extension SpoolDirectory {
    /// How many job files lie in each directory (reports are not counted).
    public func counts() throws(SpoolError) -> JobCounts {
        JobCounts(
            queued: try jobFileNames(in: .queued).count,
            running: try jobFileNames(in: .running).count,
            done: try jobFileNames(in: .done).count,
            failed: try jobFileNames(in: .failed).count
        )
    }

    /// The queue as a gauge sees it: how many job files `new/` holds, and since when the one
    /// that has waited longest has been due: enqueued (its file's time, which the renames into
    /// `new/` keep), or its `notBefore` time if that came later. Jobs not due yet count in the
    /// depth only. One directory listing and a `stat` a file.
    public func queueSummary(now: Date = Date()) throws(SpoolError) -> (count: Int, oldestDueSince: Date?) {
        let directory = path(of: .queued)
        let names = try jobFileNames(in: .queued)
        var oldest: Date?
        for name in names {
            let notBefore = name.notBefore.map { Date(timeIntervalSince1970: Double($0)) }
            if let notBefore, notBefore > now { continue }
            // Gone since the listing (claimed): it waits no more.
            guard let enqueued = FileSystem.modificationTime(directory + "/" + name.fileName) else { continue }
            let dueSince = max(enqueued, notBefore ?? enqueued)
            oldest = min(oldest ?? dueSince, dueSince)
        }
        return (names.count, oldest)
    }

    /// Whether a job enqueued under `name` is in any of the spool's directories: queued,
    /// running, done or failed. Lists the names only; reads no file.
    public func containsJob(named name: String) throws(SpoolError) -> Bool {
        for state in [JobState.queued, .running, .done, .failed] where try jobFileNames(in: state).contains(where: { $0.name == name }) {
            return true
        }
        return false
    }

    /// The names that jobs were enqueued under, in all of the spool's directories: queued,
    /// running, done and failed (listed in that order, the order a job moves in, so that a job
    /// moving meanwhile is still seen). ``containsJob(named:)`` for many names at once.
    public func jobNames() throws(SpoolError) -> Set<String> {
        var names: Set<String> = []
        for state in [JobState.queued, .running, .done, .failed] {
            for fileName in try jobFileNames(in: state) { names.insert(fileName.name) }
        }
        return names
    }

    /// The job files in one directory, in name order (for `new/`, claiming order).
    public func entries(_ state: JobState) throws(SpoolError) -> [SpoolEntry] {
        let directory = path(of: state)
        return try jobFileNames(in: state)
            .sorted { $0.fileName < $1.fileName }
            .map { SpoolEntry(fileName: $0, state: state, path: directory + "/" + $0.fileName) }
    }

    /// The result report beside a job in `done/`.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when there is none.
    public func resultReport(for entry: SpoolEntry) throws(SpoolError) -> JobResultReport {
        let path = self.path(of: .done) + "/" + entry.jobFileName.resultReportName
        return try JobResultReport(data: readReport(path), path: path)
    }

    /// The error report beside a job in `failed/`.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/notFound`` when there is none.
    public func failureReport(for entry: SpoolEntry) throws(SpoolError) -> JobFailureReport {
        let path = self.path(of: .failed) + "/" + entry.jobFileName.errorReportName
        return try JobFailureReport(data: readReport(path), path: path)
    }

    /// Files in `new/` that the spool ignores because they are not named `*.job.json` (or
    /// start with a dot). `lineup status` shows them: a job dropped under another name
    /// would otherwise wait forever, unnoticed.
    public func unrecognizedQueueEntries() throws(SpoolError) -> [String] {
        try FileSystem.fileNames(in: path(of: .queued))
            .filter { !$0.hasPrefix(".") && JobFileName(fileName: $0) == nil }
            .sorted()
    }

    func jobFileNames(in state: JobState) throws(SpoolError) -> [JobFileName] {
        try FileSystem.fileNames(in: path(of: state)).compactMap(JobFileName.init(fileName:))
    }

    private func readReport(_ path: String) throws(SpoolError) -> Data {
        let (contents, size) = try FileSystem.readFile(path, limit: 16 << 20)
        guard size == contents.count else {
            throw SpoolError(code: .malformedJobFile, path: path, message: "report is \(size) bytes, too large to read")
        }
        return contents
    }
}
