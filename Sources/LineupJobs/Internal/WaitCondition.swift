/// What a shutdown step waits for (see `JobRunner.wait(until:timeout:)`).
enum WaitCondition: Sendable {
    /// No task is running (tasks not started yet may remain).
    case noRunningTasks
    /// No task is left in the queue.
    case noQueuedTasks
}

/// The steps of a stop that wait for a condition, each with its continuation.
struct StopWaiters {
    private var nextToken = 0
    private var waiting: [Int: (condition: WaitCondition, continuation: CheckedContinuation<Bool, Never>)] = [:]

    /// Whether no step waits.
    var isEmpty: Bool { waiting.isEmpty }

    /// Keeps a waiter; returns the token that takes it back.
    mutating func add(_ condition: WaitCondition, _ continuation: CheckedContinuation<Bool, Never>) -> Int {
        defer { nextToken += 1 }
        waiting[nextToken] = (condition, continuation)
        return nextToken
    }

    /// Takes back the waiter of `token`, if it is still waiting.
    mutating func remove(_ token: Int) -> CheckedContinuation<Bool, Never>? {
        waiting.removeValue(forKey: token)?.continuation
    }

    /// Takes back every waiter whose condition `holds`.
    mutating func removeAll(where holds: (WaitCondition) -> Bool) -> [CheckedContinuation<Bool, Never>] {
        let ready = waiting.filter { holds($0.value.condition) }
        for token in ready.keys { waiting[token] = nil }
        return ready.values.map(\.continuation)
    }
}
