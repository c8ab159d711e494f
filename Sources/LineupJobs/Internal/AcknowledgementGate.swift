import Foundation
import LineupLocking

/// An operation that finishes when its job is settled: acknowledged (its changes are on disk
/// and its file is in `done/`), failed for good, or set aside at shutdown.
///
/// Dependents (`after`) add it as an `Operation` dependency, so the queue starts them only
/// once the job they wait for is durable, not merely finished. The gate is never added to a
/// queue: ``open(_:)`` starts it on the caller's thread, which finishes it at once and makes its
/// dependents ready. Dependents read ``outcome`` to fail when their dependency failed.
///
/// The gate keeps its dependents alive until it opens: swift-corelibs-foundation's `Operation`
/// remembers dependents unretained and touches them when the dependency finishes, so a
/// dependent cancelled and released before its gate opened would be a dangling pointer.
final class AcknowledgementGate: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state` is behind a mutex; `jobID` is immutable.

    enum Outcome: Sendable, Equatable {
        case acknowledged
        case failed(String)
        /// Returned to `new/` at shutdown; its dependents are cancelled too.
        case released
    }

    let jobID: String

    private struct State {
        var outcome: Outcome?
        var dependents: [Operation] = []
    }

    private let state = Locked(State())

    init(jobID: String) {
        self.jobID = jobID
        super.init()
        self.name = "acknowledgement of \(jobID)"
    }

    /// How the job was settled; nil while it is not.
    var outcome: Outcome? {
        state.withLock { $0.outcome }
    }

    /// Makes `dependent` wait for this gate (unless it is open already).
    func hold(_ dependent: Operation) {
        let isOpen = state.withLock { state in
            if state.outcome == nil { state.dependents.append(dependent) }
            return state.outcome != nil
        }
        if !isOpen {
            dependent.addDependency(self)
        }
    }

    /// Settles the job and releases its dependents. Only the first call counts.
    func open(_ outcome: Outcome) {
        let first = state.withLock { state in
            guard state.outcome == nil else { return false }
            state.outcome = outcome
            return true
        }
        if first {
            start()
            // Finished: the dependents no longer need this gate to keep them alive.
            state.withLock { $0.dependents = [] }
        }
    }
}
