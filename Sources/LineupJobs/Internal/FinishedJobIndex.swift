import Foundation

/// Which job ids are settled, in this run or an earlier one (or by another daemon): acknowledged
/// or failed. Dependencies on jobs that are no longer in memory resolve through it.
///
/// Confined to the runner's coordinator queue. What this run settled is kept here; the rest is
/// asked of the queue, only when an id is not known.
struct FinishedJobIndex {
    private var outcomes: [String: SettledJobOutcome] = [:]
    private let queue: any JobQueue

    init(queue: any JobQueue) {
        self.queue = queue
    }

    /// Records a job settled by this run. A job that succeeded once stays done.
    mutating func note(id: String, _ outcome: SettledJobOutcome) {
        if outcomes[id] == .done { return }
        outcomes[id] = outcome
    }

    /// The outcome of the job with this id; nil when no settled job has this id.
    mutating func outcome(of id: String) -> SettledJobOutcome? {
        if let known = outcomes[id] { return known }
        guard let settled = queue.settledOutcome(ofJobID: id) else { return nil }
        note(id: id, settled)
        return settled
    }
}
