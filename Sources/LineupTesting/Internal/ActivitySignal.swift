import LineupLocking

/// Counts the daemon's event batches, so that a waiter can sleep until something happened
/// since it last looked at the daemon's state. The state is the truth; the events only wake.
final class ActivitySignal: Sendable {
    private struct State {
        var version = 0
        var waiters: [(after: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var isFinished = false
        var hasStarted = false
        var startWaiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Locked(State())

    /// The number of changes so far.
    var version: Int {
        state.withLock { $0.version }
    }

    /// Something happened: wakes every waiter.
    func signal() {
        let woken = state.withLock { state in
            state.version += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        woken.forEach { $0.continuation.resume() }
    }

    /// The daemon is gone: wakes every waiter, now and later.
    func finish() {
        let startWaiters = state.withLock { state in
            state.isFinished = true
            defer { state.startWaiters = [] }
            return state.startWaiters
        }
        startWaiters.forEach { $0.resume(returning: false) }
        signal()
    }

    /// The daemon has started: claims run and its container is open.
    func started() {
        let startWaiters = state.withLock { state in
            state.hasStarted = true
            defer { state.startWaiters = [] }
            return state.startWaiters
        }
        startWaiters.forEach { $0.resume(returning: true) }
    }

    /// Returns true once the daemon has started, false if it stopped first.
    func waitUntilStarted() async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.hasStarted { return true }
                if state.isFinished { return false }
                state.startWaiters.append(continuation)
                return nil
            }
            if let answer {
                continuation.resume(returning: answer)
            }
        }
    }

    /// Returns once the version is past `version` (at once if it is already).
    func wait(after version: Int) async {
        await withCheckedContinuation { continuation in
            let resumesNow = state.withLock { state in
                guard state.version <= version, !state.isFinished else { return true }
                state.waiters.append((version, continuation))
                return false
            }
            if resumesNow {
                continuation.resume()
            }
        }
    }
}
