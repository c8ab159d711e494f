/// The reports of the last jobs a job storage settled, by id, at most `capacity` of them: what a
/// job that waited for them reads (``JobRequest/dependencyReports()``) without a trip to the disk,
/// where a report of this run may lie in a ledger already read. Older ones are read from where
/// they are filed.
struct RecentReports {
    let capacity: Int
    private var reports: [String: DependencyReport] = [:]
    /// Ids in the order they were noted, oldest first from `head`: the next to forget.
    private var order: [String] = []
    private var head = 0

    init(capacity: Int = 10_000) {
        precondition(capacity > 0, "a report cache holds one report at least")
        self.capacity = capacity
    }

    subscript(id: String) -> DependencyReport? {
        reports[id]
    }

    /// Notes the report of the job with `id`; a job done stays done (as ``SettledJobOutcomes``).
    mutating func note(_ id: String, _ report: DependencyReport) {
        if reports[id]?.isDone == true, !report.isDone { return }
        if reports.updateValue(report, forKey: id) == nil {
            order.append(id)
        }
        while reports.count > capacity, head < order.count {
            reports[order[head]] = nil
            head += 1
        }
        // Compacted now and then, so that `order` stays about `capacity` long.
        if head > capacity {
            order.removeFirst(head)
            head = 0
        }
    }
}
