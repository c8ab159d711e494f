import Foundation
import LineupJobs
import LineupLocking
import LineupStore

/// Counts the tasks of `probe` jobs running at once, across every daemon of the process that
/// shares it, and the most there ever were.
final class ConcurrencyProbe: Sendable {
    private struct Counts {
        var now = 0
        var most = 0
        var runs = 0
    }

    private let counts = Locked(Counts())

    /// The most tasks that ran at once so far.
    var most: Int { counts.withLock { $0.most } }
    /// The tasks that have run.
    var runs: Int { counts.withLock { $0.runs } }

    func enter() {
        counts.withLock { counts in
            counts.now += 1
            counts.runs += 1
            counts.most = max(counts.most, counts.now)
        }
    }

    func leave() {
        counts.withLock { $0.now -= 1 }
    }

    /// `registry` with the kind `probe`: a task that saves a row and holds its place for
    /// 300 ms, counted by this probe: long enough that tasks overlap on a loaded machine.
    func registering(in registry: JobRegistry) -> JobRegistry {
        var registry = registry
        registry.register("probe") { request in ProbeTask(request: request, probe: self) }
        return registry
    }
}

/// A job of kind `probe` (see ``ConcurrencyProbe``).
final class ProbeTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: as every JobTask (an Operation); `probe` is Sendable and never changes.
    let probe: ConcurrencyProbe

    init(request: JobRequest, probe: ConcurrencyProbe) {
        self.probe = probe
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        probe.enter()
        defer { probe.leave() }
        let row = TestRow(context: context)
        row.label = jobID
        Thread.sleep(forTimeInterval: 0.3)
        return JobOutcome(summary: "probed", counts: ["rows": 1])
    }
}
