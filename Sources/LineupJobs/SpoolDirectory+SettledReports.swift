public import LineupSpool

extension SpoolDirectory {
    /// How the jobs with these ids were settled, with their reports, as a job that waited for
    /// them reads them (``JobRequest/dependencyReports()``): read from `done/`, `failed/` and
    /// the ledgers of bulk files, so a batch's jobs are found too. An id that no settled job has,
    /// or whose report cannot be read, is left out.
    public func settledReports(ofJobIDs ids: some Sequence<String>) -> [String: DependencyReport] {
        // The daemon's own lookup, so that `lineup show` reads what a callback would read.
        let storage = SpoolJobStorage(spool: self)
        var reports: [String: DependencyReport] = [:]
        for id in ids {
            reports[id] = storage.settledReport(ofJobID: id)
        }
        return reports
    }
}
