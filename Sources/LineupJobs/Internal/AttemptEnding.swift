import Foundation

/// How an attempt's task ended, as its thread read it (the task's own state is shared with that
/// thread; the state machine gets a copy).
struct AttemptEnding {
    var result: JobTaskResult
    /// When the task began running; nil if it never did.
    var startedAt: Date?
    /// Row changes the attempt saved into the main context before it failed.
    var keptRowChanges: Int
}
