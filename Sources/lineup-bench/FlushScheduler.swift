import Dispatch
import LineupStore
import LineupLocking

/// When the stack benchmark moves saved chunks main → writer → disk.
enum FlushMode: String, CaseIterable {
    /// A flush loop of its own, as the daemon has: every chunk saved into the main context asks
    /// for a flush ("flush now", like SIGUSR1); requests that arrive while a flush runs are
    /// coalesced into one flush after it (group commit). The importer does not wait for the disk.
    case background
    /// The importing thread itself flushes after every chunk and waits for the disk.
    case chunk

    var explanation: String {
        switch self {
        case .background:
            return "a flush loop on a thread of its own, woken after every chunk save; requests during a flush coalesce into the next one (group commit); the importer never waits for the disk"
        case .chunk:
            return "the importer flushes main → writer → disk after every chunk and waits for it"
        }
    }
}

/// One flush: when it started, when the main context's save into the writer returned, and when
/// the writer's save (one SQLite transaction) returned.
struct FlushTiming {
    let started: UInt64
    let handedOver: UInt64
    let ended: UInt64
}

/// Runs the flushes of one benchmark run and times them.
///
/// A flush is `PersistentContainer.flush()`, as the daemon's committer makes it; its report
/// times the two steps.
final class FlushScheduler: Sendable {
    private struct State {
        var pending = false
        var failure: (any Error)?
        var timings: [FlushTiming] = []
    }

    private let container: PersistentContainer
    private let mode: FlushMode
    private let queue = DispatchQueue(label: "lineup-bench.flush-loop")
    private let state = Locked(State())

    init(container: PersistentContainer, mode: FlushMode) {
        self.container = container
        self.mode = mode
    }

    /// Called by the importer after each chunk saved into the main context. Throws the error of
    /// an earlier background flush, so that a failing run stops at once.
    func chunkSaved() throws {
        switch mode {
        case .chunk:
            try flushNow()
        case .background:
            if let failure = state.withLock({ $0.failure }) { throw failure }
            let schedule = state.withLock { state in
                if state.pending { return false }
                state.pending = true
                return true
            }
            guard schedule else { return }
            queue.async { [self] in
                state.withLock { $0.pending = false }
                do {
                    try flushNow()
                } catch {
                    state.withLock { if $0.failure == nil { $0.failure = error } }
                }
            }
        }
    }

    /// Waits for the flushes under way, then flushes whatever is left: when this returns, every
    /// saved row is on disk. Returns the timings of the flushes that wrote something.
    func finish() throws -> [FlushTiming] {
        queue.sync {}
        if let failure = state.withLock({ $0.failure }) { throw failure }
        try flushNow()
        return state.withLock { $0.timings }
    }

    private func flushNow() throws {
        let report = try container.flush()
        let ended = MonotonicClock.now()
        guard report.rowsWritten > 0 else { return }
        let started = ended - Self.nanoseconds(report.duration)
        let handedOver = started + Self.nanoseconds(report.mainContextDuration)
        state.withLock { $0.timings.append(FlushTiming(started: started, handedOver: handedOver, ended: ended)) }
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
