/// What a shutdown step waits for (see `JobRunner.wait(until:timeout:)`).
enum WaitCondition: Sendable {
    /// No task is running (tasks not started yet may remain).
    case noRunningTasks
    /// No task is left in the queue.
    case noQueuedTasks
}
