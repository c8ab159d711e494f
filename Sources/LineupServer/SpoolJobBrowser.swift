import Foundation
import LineupJobs
import LineupSpool

#if canImport(Glibc)
import Glibc
#endif

/// The job browser over a spool: one directory per state, each job a file.
///
/// Listing a directory of 100,000 names is cheap; reading 100,000 files is not, so a page
/// reads only what it must. Names sort by enqueue time (a generated name starts with it, and
/// the spool's tags come after the name), so a page walks a state's names newest first from
/// its cursor (`<state>/<file name>`: the names below it) and:
///
/// - with no filter but the state, opens only its own jobs: one report for a done or failed
///   job (which holds the id, the kind and the times), the job file for a queued or running
///   one, and one `stat` for the enqueue time (a file's time, which the spool's renames keep);
/// - with named queues, also the job file of a done or failed job, for the queue it names,
///   which with its kind says the queue it ran in (``LineupJobs/QueueRouting``);
/// - with a filter that the name cannot answer (a kind or queue, an id, a finish time), opens
///   or `stat`s one file per job it considers, and stops after ``filterBudget`` of them
///   with a cursor to go on from: a page may then hold fewer jobs than asked, or none, and
///   still have a next one.
///
/// A job that moves to another state between two pages (claimed, settled, retried) may be seen
/// in both or in neither, as with any keyset over a live set.
struct SpoolJobBrowser: JobBrowsing {
    let spool: SpoolDirectory

    /// The most files a page opens or `stat`s to decide which jobs it holds.
    static let filterBudget = 2_000
    /// The most jobs one bulk request acts on.
    static let bulkBound = 5_000
    /// The most done reports the chart reads, newest first.
    static let statisticsBudget = 2_000

    var sourceName: String { "spool" }

    func page(_ query: JobQuery) async throws -> JobPage {
        let (found, next, examined) = try matches(query)
        return JobPage(jobs: found.map(\.row), next: next, examined: examined, source: sourceName)
    }

    func act(
        _ action: JobBulkAction, on query: JobQuery, cancelRunning: @Sendable (JobRow) async throws -> Bool
    ) async throws -> JobBulkOutcome {
        let scope: [JobState] = action == .cancel ? [.queued, .running] : [.failed]
        var query = query
        query.states = query.listedStates.filter(scope.contains)
        query.limit = JobQuery.maximumLimit
        var acted = 0
        var skipped = 0
        guard !query.states.isEmpty else { return JobBulkOutcome(action: action, acted: 0, skipped: 0, next: nil) }
        while true {
            let (found, next, _) = try matches(query)
            for (entry, row) in found {
                do {
                    switch (action, entry.state) {
                    case (.retry, _): try spool.retry(entry)
                    case (.discard, _): try spool.discard(entry)
                    case (.cancel, .queued): try spool.cancel(entry, reason: "cancelled by an operator")
                    case (.cancel, _):
                        guard try await cancelRunning(row) else {
                            skipped += 1
                            continue
                        }
                    }
                    acted += 1
                } catch let error as SpoolError where error.code == .notFound {
                    skipped += 1
                }
            }
            guard let next else { return JobBulkOutcome(action: action, acted: acted, skipped: skipped, next: nil) }
            guard acted + skipped < Self.bulkBound else { return JobBulkOutcome(action: action, acted: acted, skipped: skipped, next: next) }
            query.cursor = next
        }
    }

    func statistics(minutes: Int, now: Date) async throws -> JobStatistics {
        let since = now.addingTimeInterval(-Double(minutes) * 60)
        var samples: [(kind: String, startedAt: Date, finishedAt: Date)] = []
        var read = 0
        let done = try spool.entries(.done)
        for entry in done.reversed() where !entry.isBulk {
            guard read < Self.statisticsBudget else { return JobStatistics(samples: samples, minutes: minutes, now: now, sampled: read, truncated: true) }
            read += 1
            guard let report = try? spool.resultReport(for: entry), report.finishedAt >= since else { continue }
            samples.append((report.kind, report.startedAt, report.finishedAt))
        }
        return JobStatistics(samples: samples, minutes: minutes, now: now, sampled: read, truncated: false)
    }

    func daemonLeases() async throws -> [DaemonLease]? { nil }

    // MARK: - Paging

    /// A job file, what was learnt of it so far, and what each further step costs.
    private struct Candidate {
        let entry: SpoolEntry
        var row: JobRow
        var hasContents = false
        var hasEnqueueTime = false
        /// The queue its job file names (`queue`).
        var namedQueue: String?
    }

    /// The jobs of the page that `query` asks for, with the cursor of the next page and how many
    /// files were opened or examined.
    private func matches(_ query: JobQuery) throws -> (found: [(entry: SpoolEntry, row: JobRow)], next: String?, examined: Int) {
        let states = query.listedStates
        var startIndex = states.startIndex
        var below: String?
        if let cursor = query.cursor {
            guard let slash = cursor.firstIndex(of: "/"), let state = JobState(rawValue: String(cursor[..<slash])),
                let index = states.firstIndex(of: state)
            else { throw JobQueryError("not a cursor of this listing: \(cursor.debugDescription)") }
            startIndex = index
            let name = String(cursor[cursor.index(after: slash)...])
            below = name.isEmpty ? nil : name
        }
        var found: [(entry: SpoolEntry, row: JobRow)] = []
        var examined = 0
        var filterWork = 0
        for stateIndex in states.indices where stateIndex >= startIndex {
            let state = states[stateIndex]
            if found.count == query.limit || filterWork >= Self.filterBudget { return (found, "\(state)/", examined) }
            let entries = try spool.entries(state)
            // Names ascend; the page walks them down from below the cursor.
            var index = below.map { name in Self.partition(entries) { $0.fileName < name } } ?? entries.endIndex
            below = nil
            while index > entries.startIndex {
                index -= 1
                let entry = entries[index]
                let before = examined
                if let row = admit(entry, query, examined: &examined) { found.append((entry, row)) }
                filterWork += examined - before
                let more = index > entries.startIndex
                if more, found.count == query.limit || filterWork >= Self.filterBudget {
                    return (found, "\(state)/\(entry.fileName)", examined)
                }
            }
        }
        return (found, nil, examined)
    }

    /// The row of `entry` when it passes `query`, learning only what the filters need before
    /// deciding, then what the row shows.
    private func admit(_ entry: SpoolEntry, _ query: JobQuery, examined: inout Int) -> JobRow? {
        var candidate = Candidate(
            entry: entry, row: JobRow(state: entry.state, name: entry.name, attempts: entry.failedAttempts, isBulk: entry.isBulk))
        let search = query.search.flatMap { $0.isEmpty ? nil : $0 }
        let nameMatches = search.map { entry.name.localizedCaseInsensitiveContains($0) } ?? true
        if query.filtersOnKind || !nameMatches || query.filtersOnFinishTime {
            readContents(&candidate, examined: &examined, routing: query.routing)
            guard query.admits(kind: candidate.row.kind, namedQueue: candidate.namedQueue), query.admits(finishedAt: candidate.row.finishedAt)
            else { return nil }
            if !nameMatches {
                guard let search, let id = candidate.row.id, id.localizedCaseInsensitiveContains(search) else { return nil }
            }
        }
        if query.filtersOnEnqueueTime {
            readEnqueueTime(&candidate, examined: &examined)
            guard query.admits(enqueuedAt: candidate.row.enqueuedAt) else { return nil }
        }
        readContents(&candidate, examined: &examined, routing: query.routing)
        readEnqueueTime(&candidate, examined: &examined)
        candidate.row.queue = query.routing.queue(forJobNamed: candidate.namedQueue, kind: candidate.row.kind)
        return candidate.row
    }

    /// Reads the one file that says what the job is: the report of a settled job (it names the
    /// id, the kind and the times), the job file of a queued or running one. With named queues,
    /// a settled job's file too, for the queue it names: a job runs in that queue, not
    /// necessarily its kind's (``LineupJobs/QueueRouting``).
    private func readContents(_ candidate: inout Candidate, examined: inout Int, routing: QueueRouting) {
        guard !candidate.hasContents else { return }
        candidate.hasContents = true
        let entry = candidate.entry
        examined += 1
        if entry.state == .done || entry.state == .failed, !entry.isBulk, !routing.queueNames.isEmpty {
            examined += 1
            candidate.namedQueue = spool.jobFile(of: entry)?.queue
        }
        switch entry.state {
        case .done where !entry.isBulk:
            guard let report = try? spool.resultReport(for: entry) else { return }
            candidate.row.id = report.id
            candidate.row.kind = report.kind
            candidate.row.startedAt = report.startedAt
            candidate.row.finishedAt = report.finishedAt
            candidate.row.attempts = report.attempts
        case .failed:
            guard let report = try? spool.failureReport(for: entry) else { return }
            candidate.row.id = report.id
            candidate.row.kind = report.kind
            candidate.row.startedAt = report.startedAt
            candidate.row.finishedAt = report.finishedAt
            candidate.row.attempts = report.attempts
            candidate.row.reason = report.reason
        case .done:
            // A bulk file's ledger: its lines have their own kinds and times; its own time is the ledger's.
            candidate.row.finishedAt = Self.modificationTime(entry.path)
        case .queued, .running:
            guard !entry.isBulk, let file = spool.jobFile(of: entry) else { return }
            candidate.row.id = file.id
            candidate.row.kind = file.kind
            candidate.namedQueue = file.queue
        }
    }

    private func readEnqueueTime(_ candidate: inout Candidate, examined: inout Int) {
        guard !candidate.hasEnqueueTime else { return }
        candidate.hasEnqueueTime = true
        examined += 1
        candidate.row.enqueuedAt = Self.modificationTime(candidate.entry.path)
    }

    private static func modificationTime(_ path: String) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }

    /// The first index of `entries` (sorted by `belongsBefore`) whose element does not belong before.
    private static func partition(_ entries: [SpoolEntry], _ belongsBefore: (SpoolEntry) -> Bool) -> Int {
        var low = entries.startIndex
        var high = entries.endIndex
        while low < high {
            let middle = (low + high) / 2
            if belongsBefore(entries[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
