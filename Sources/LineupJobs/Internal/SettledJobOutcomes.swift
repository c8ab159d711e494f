/// How a job was settled, as a dependency on it sees it: its final ``LineupSpool/JobState``
/// (`done` or `failed`), with the failure's reason that a dependent's own failure repeats.
package enum SettledJobOutcome: Equatable {
    case done
    case failed(reason: String)
}

/// The outcomes of settled jobs by id, as a job storage remembers them: the jobs it settled in
/// this run, and those it looked up. A job that succeeded once stays done (an id reused by a
/// later job that failed does not undo it).
package struct SettledJobOutcomes {
    private var outcomes: [String: SettledJobOutcome] = [:]

    package init() {}

    package subscript(id: String) -> SettledJobOutcome? {
        outcomes[id]
    }

    package mutating func note(_ id: String, _ outcome: SettledJobOutcome) {
        if outcomes[id] != .done {
            outcomes[id] = outcome
        }
    }
}
