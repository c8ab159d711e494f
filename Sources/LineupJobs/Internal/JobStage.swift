/// The runner's stages of a job it holds (``JobRecord/State`` without what each holds), and the
/// moves between them. Every stage is ``LineupSpool/JobState/running`` to any reader outside the
/// runner, until the job is settled.
///
/// ``moves`` is the one list of what may follow what: ``JobRecord/move(to:)`` checks each move
/// against it, and the table in "How a job travels" is ``movesTable``, which a test holds to
/// the article.
enum JobStage: String, CaseIterable, Sendable {
    case claimed
    case waitingForDependencies = "waiting for dependencies"
    case queued
    case waitingForRetry = "waiting for retry"
    case awaitingFlush = "awaiting flush"
    case settled

    /// One move: from a stage to the next, and what takes the job there.
    struct Move: Sendable {
        let from: JobStage
        let to: JobStage
        let when: String
    }

    static let moves: [Move] = [
        Move(from: .claimed, to: .queued, when: "valid, and every job in its `after` list is done: its task is in an `OperationQueue`"),
        Move(from: .claimed, to: .waitingForDependencies, when: "a job in its `after` list is not settled, or not known yet"),
        Move(from: .claimed, to: .settled, when: "failed: invalid file or parameters, attempts used up, uniqueKey held; or released at a stop"),
        Move(from: .waitingForDependencies, to: .waitingForDependencies, when: "one of the jobs it waits for settled; others are still awaited"),
        Move(from: .waitingForDependencies, to: .queued, when: "every job in its `after` list is done (or settled, with afterSettled)"),
        Move(from: .waitingForDependencies, to: .settled, when: "failed: a dependency failed, a cycle, an id unknown past dependencyWaitTimeout, an operator's cancel; or released at a stop"),
        Move(from: .queued, to: .awaitingFlush, when: "its task succeeded: its changes are in the main context, its report staged in `tmp/`"),
        Move(from: .queued, to: .waitingForRetry, when: "its task threw a retryable error with attempts left, or timed out"),
        Move(from: .queued, to: .settled, when: "failed: its task threw otherwise, or on its last attempt, or did not stop; or released: cancelled at a stop"),
        Move(from: .waitingForRetry, to: .queued, when: "its backoff is over: the next attempt's task is queued"),
        Move(from: .waitingForRetry, to: .waitingForRetry, when: "the next attempt's task could not be made, with attempts left"),
        Move(from: .waitingForRetry, to: .settled, when: "failed: no task could be made for its last attempt, an operator's cancel; or released at a stop"),
        Move(from: .awaitingFlush, to: .waitingForRetry, when: "the flush met rows that no merge policy settles: its changes were discarded"),
        Move(from: .awaitingFlush, to: .settled, when: "acknowledged: the flush that carried it committed and it is filed as done; failed: its changes were discarded on its last attempt; or released: no flush carried it before the stop"),
    ]

    /// Whether the runner may take a job from `from` to `to`.
    static func allows(from: JobStage, to: JobStage) -> Bool {
        moves.contains { $0.from == from && $0.to == to }
    }

    /// ``moves`` as the Markdown table of "How a job travels".
    static var movesTable: String {
        let rows = moves.map { "| \($0.from.rawValue) | \($0.to.rawValue) | \($0.when) |" }
        return (["| from | to | when |", "|---|---|---|"] + rows).joined(separator: "\n")
    }
}
