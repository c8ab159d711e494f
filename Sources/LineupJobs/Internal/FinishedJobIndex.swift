import Foundation
import LineupSpool

/// Which job ids are settled, in this run or an earlier one: acknowledged (`done/`) or failed
/// (`failed/`). Dependencies on jobs that are no longer in memory resolve through it.
///
/// Confined to the runner's coordinator queue. `done/` and `failed/` are read lazily, only when
/// an id is not known, and each file only once.
struct FinishedJobIndex {
    enum Outcome: Equatable {
        case done
        case failed(reason: String)
    }

    private var outcomes: [String: Outcome] = [:]
    private var scanned: Set<String> = []
    private let spool: SpoolDirectory

    init(spool: SpoolDirectory) {
        self.spool = spool
    }

    /// Records a job settled by this run. A job that succeeded once stays done.
    mutating func note(id: String, _ outcome: Outcome) {
        if outcomes[id] == .done { return }
        outcomes[id] = outcome
    }

    /// The outcome of the job with this id, reading job files in `done/` and `failed/` not
    /// read yet; nil when no settled job has this id.
    mutating func outcome(of id: String) -> Outcome? {
        if let known = outcomes[id] { return known }
        scan(.done)
        scan(.failed)
        return outcomes[id]
    }

    private mutating func scan(_ state: SpoolState) {
        guard let entries = try? spool.entries(state) else { return }
        for entry in entries where !scanned.contains(state.directoryName + "/" + entry.fileName) {
            scanned.insert(state.directoryName + "/" + entry.fileName)
            if entry.isBulk {
                // Its failed lines lie in failed/ as job files of their own.
                for id in (try? spool.acknowledgedLineIDs(of: entry)) ?? [] { note(id: id, .done) }
                continue
            }
            guard let data = try? Data(contentsOf: entry.url),
                let id = (try? JobFile(data: data, path: entry.path))?.id
            else { continue }
            if state == .done {
                note(id: id, .done)
            } else {
                let reason = (try? spool.failureReport(for: entry))?.reason ?? "see \(entry.path)"
                note(id: id, .failed(reason: reason))
            }
        }
    }
}
