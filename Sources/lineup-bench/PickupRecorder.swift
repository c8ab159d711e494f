import LineupLocking

/// The pick-up latencies of the jobs that started, and when the last one started.
final class PickupRecorder: Sendable {
    private struct State {
        var latencies: [UInt64] = []
        var lastStart: UInt64 = 0
    }

    private let state = Locked(State())

    init(capacity: Int) {
        state.withLock { $0.latencies.reserveCapacity(capacity) }
    }

    func record(started: UInt64, enqueuedAt: UInt64) {
        state.withLock { state in
            state.latencies.append(started > enqueuedAt ? started - enqueuedAt : 0)
            state.lastStart = max(state.lastStart, started)
        }
    }

    var latencies: [UInt64] { state.withLock { $0.latencies } }
    var lastStart: UInt64 { state.withLock { $0.lastStart } }
}
