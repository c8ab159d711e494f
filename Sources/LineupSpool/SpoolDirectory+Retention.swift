public import Foundation

/// What ``SpoolDirectory/pruneDone(finishedBefore:)`` removed and kept.
public struct SpoolPruning: Sendable, Hashable {
    /// The done jobs removed, with their reports.
    public var removed: [SpoolEntry] = []
    /// Done jobs old enough to go that were kept, because a queued or running job names them in
    /// its `after` list.
    public var keptForDependents: [SpoolEntry] = []

    public init() {}
}

extension SpoolDirectory {
    /// Removes the jobs in `done/` that finished before `cutoff` (by the time their result
    /// report was written), job file first, then report.
    ///
    /// A done job that a job in `new/` or `active/` names in its `after` list is kept whatever
    /// its age: a daemon that starts later learns what finished from `done/`, and would leave
    /// that dependent waiting for a job it could no longer see. The lines of bulk files count on
    /// both sides: a queued bulk's lines wait for jobs too, and a done bulk is kept while a
    /// queued job names one of its acknowledged lines.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/io`` when a directory cannot be
    ///   listed or a file cannot be removed; what was removed before stays removed.
    @discardableResult
    public func pruneDone(finishedBefore cutoff: Date) throws(SpoolError) -> SpoolPruning {
        let donePath = path(of: .done) + "/"
        let expired = try entries(.done).filter { entry in
            let report = donePath + entry.jobFileName.resultReportName
            guard let finished = FileSystem.modificationTime(report) ?? FileSystem.modificationTime(entry.path) else { return false }
            return finished < cutoff
        }
        var pruning = SpoolPruning()
        guard !expired.isEmpty else { return pruning }
        // Read only when something may go: the queue may hold many files.
        let needed = try dependencyIDs()
        for entry in expired {
            let report = donePath + entry.jobFileName.resultReportName
            if !needed.isDisjoint(with: doneIDs(of: entry)) {
                pruning.keptForDependents.append(entry)
                continue
            }
            try FileSystem.removeFile(entry.path)
            try FileSystem.removeFile(report)
            pruning.removed.append(entry)
        }
        return pruning
    }

    /// The ids that the jobs in `new/` and `active/` wait for, bulk lines included.
    private func dependencyIDs() throws(SpoolError) -> Set<String> {
        var ids: Set<String> = []
        for state in [JobState.queued, .running] {
            for entry in try entries(state) {
                for job in jobFiles(in: entry) {
                    ids.formUnion(job.after)
                }
            }
        }
        return ids
    }

    /// The jobs of a file: itself, or a bulk's lines. What cannot be read is left out.
    private func jobFiles(in entry: SpoolEntry) -> [JobFile] {
        guard entry.isBulk else {
            return jobFile(of: entry).map { [$0] } ?? []
        }
        guard let (contents, size) = try? FileSystem.readFile(entry.path, limit: Self.maximumBulkFileSize),
            size <= Self.maximumBulkFileSize
        else { return [] }
        return Self.bulkLineRanges(of: contents).compactMap { try? JobFile(data: contents[$0.range]) }
    }

    /// The ids a done file answers for: its job's, or a bulk's acknowledged lines'.
    private func doneIDs(of entry: SpoolEntry) -> [String] {
        if entry.isBulk {
            return (try? acknowledgedLineIDs(of: entry)) ?? []
        }
        return jobFile(of: entry)?.id.map { [$0] } ?? []
    }
}
